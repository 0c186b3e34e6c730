import type { WebhookNuevo } from '../../servicios/webhooks';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { crearLogger } from '../../log/logger';
import { crearDespachadorTemporal, idEntrega } from '../../temporal/despachador';
import { atributosEntrega } from '../../workflows/atributos';
import { alcance, tablaEntregas, tablaPorDespachar } from '../support/memoria';
import { crearEntornoActividades } from '../support/memoria/servicios';

let x: Awaited<ReturnType<typeof crearEntornoActividades>>;

/** Temporal's client as the dispatcher uses it: `start` scripted per call, every call recorded. */
function clienteGuion(guion: (workflowId: string) => Promise<void> = async () => undefined) {
  const inicios: { workflowId: string; opciones: Record<string, unknown> }[] = [];
  const cancelados: string[] = [];
  const cliente = {
    workflow: {
      async start(_tipo: string, opciones: { workflowId: string } & Record<string, unknown>) {
        inicios.push({ workflowId: opciones.workflowId, opciones });
        await guion(opciones.workflowId);
      },
      getHandle: (id: string) => ({ cancel: async () => void cancelados.push(id) }),
    },
  } as unknown as Client;
  return { cliente, inicios, cancelados };
}

const despachador = (cliente: Client) =>
  crearDespachadorTemporal({
    cliente,
    taskQueue: 'cfdi',
    eventos: x.m.eventos,
    entregas: x.m.entregas,
    correos: x.m.correos,
    logger: crearLogger('prueba', 'silent'),
    programaS: [0, 1, 2],
    graciaMs: 0,
  });

/** An event as the services write it; a few ms later it is older than "now" for the outbox's `<` cut. */
async function evento(datos: object = { id: 'fac_1', organizacion: 'org_1' }) {
  const id = await x.m.transacciones.ejecutar((tx) =>
    x.m.eventos.registrar(tx, x.a, 'factura.timbrada', datos),
  );
  await new Promise((r) => setTimeout(r, 3));
  return id;
}

const webhook = (a = x.a, eventos_suscritos: WebhookNuevo['eventos_suscritos'] = ['factura.timbrada']) =>
  x.s.webhooks.crear(a, { url: 'https://hooks.ejemplo.mx/cfdi', eventos_suscritos });

beforeEach(async () => {
  x = await crearEntornoActividades();
});

describe('despachador de eventos (temporal/despachador.ts)', () => {
  it('inicia un workflow por entrega con su id de negocio, sus atributos y REJECT_DUPLICATE, y vacía la cola', async () => {
    const w1 = await webhook();
    const w2 = await webhook();
    await webhook(alcance('cta_b'));
    const id = await evento();
    const t = clienteGuion();
    expect(await despachador(t.cliente).despacharPendientes()).toBe(1);
    expect(t.inicios.map((i) => i.workflowId).sort()).toEqual(
      [w1.id, w2.id].map((w) => `entrega:${id}:${w}`).sort(),
    );
    const [primero] = t.inicios;
    expect(primero!.opciones).toMatchObject({
      taskQueue: 'cfdi',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [{ cuentaId: x.a.cuentaId, modo: 'test', programaS: [0, 1, 2] }],
    });
    const atributos = Object.fromEntries(
      (primero!.opciones.typedSearchAttributes as { key: { name: string }; value: unknown }[]).map((p) => [
        p.key.name,
        p.value,
      ]),
    );
    expect(atributos).toMatchObject({
      EventoId: id,
      TipoEvento: 'factura.timbrada',
      FacturaId: 'fac_1',
      OrganizacionId: 'org_1',
      IntentosEntrega: 1,
    });
    expect(tablaPorDespachar(x.m.almacen).todas()).toEqual([]);
  });

  it('un inicio que falla deja el evento en la cola; el siguiente paso lo despacha, sin detener a los demás', async () => {
    await webhook();
    const malo = await evento({ id: 'fac_malo' });
    const bueno = await evento({ id: 'fac_bueno' });
    let caido = true;
    const t = clienteGuion(async (wid) => {
      if (caido && wid.includes(malo)) throw new Error('UNAVAILABLE: Temporal caído');
    });
    const d = despachador(t.cliente);
    await expect(d.despacharPendientes()).rejects.toThrow(`sin despachar: ${malo}: UNAVAILABLE`);
    expect(await x.m.eventos.porDespachar(new Date(Date.now() + 1), 10)).toEqual([malo]);
    caido = false;
    expect(await d.despacharPendientes()).toBe(1);
    expect(tablaPorDespachar(x.m.almacen).todas()).toEqual([]);
    // The one delivery row of each event, whatever the number of tries.
    expect(
      tablaEntregas(x.m.almacen)
        .todas()
        .filter((e) => e.evento_id === malo),
    ).toHaveLength(1);
    expect(t.inicios.filter((i) => i.workflowId.includes(bueno))).toHaveLength(1);
  });

  it('un workflow ya iniciado (o terminado) cuenta como despachado', async () => {
    await webhook();
    await evento();
    const t = clienteGuion(async (wid) => {
      throw new WorkflowExecutionAlreadyStartedError('ya existe', wid, 'entregarEvento');
    });
    expect(await despachador(t.cliente).despacharPendientes()).toBe(1);
    expect(tablaPorDespachar(x.m.almacen).todas()).toEqual([]);
  });

  it('un reenvío cuyo inicio falló no se pierde: queda pendiente sin intentos y el reconciliador lo inicia', async () => {
    const w = await webhook();
    const id = await evento();
    let caido = true;
    const t = clienteGuion(async () => {
      if (caido) throw new Error('UNAVAILABLE');
    });
    const d = despachador(t.cliente);
    const fila = await x.m.transacciones.ejecutar(async (tx) => x.m.entregas.crearReenvio(tx, x.a, id, w.id));
    await expect(d.iniciar([fila])).resolves.toBeUndefined();
    caido = false;
    await new Promise((r) => setTimeout(r, 3));
    await d.despacharPendientes();
    expect(t.inicios.filter((i) => i.workflowId === idEntrega(fila))).toHaveLength(2);
    expect(idEntrega(fila)).toBe(`entrega:${id}:${w.id}:1`);
  });

  it('una ráfaga no abre más de 32 inicios a la vez', async () => {
    for (let i = 0; i < 10; i++) await webhook();
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push(await evento({ id: `fac_${i}` }));
    let enVuelo = 0;
    let maximo = 0;
    const t = clienteGuion(async () => {
      maximo = Math.max(maximo, ++enVuelo);
      await new Promise((r) => setTimeout(r, 5));
      enVuelo--;
    });
    const d = despachador(t.cliente);
    d.despachar(ids);
    await new Promise((r) => setTimeout(r, 10));
    while (t.inicios.length < 100 || enVuelo > 0) await new Promise((r) => setTimeout(r, 10));
    expect(t.inicios).toHaveLength(100);
    expect(maximo).toBe(32);
  });

  it('detener cancela el workflow de cada entrega', async () => {
    const w = await webhook();
    const id = await evento();
    const t = clienteGuion();
    await despachador(t.cliente).detener([
      { id: 'ent_1', cuenta_id: x.a.cuentaId, modo: 'test', evento_id: id, webhook_id: w.id, numero: 0 },
    ]);
    expect(t.cancelados).toEqual([`entrega:${id}:${w.id}`]);
  });
});

describe('atributos de búsqueda de una entrega', () => {
  const nombres = (pares: { key: { name: string }; value: unknown }[]) =>
    Object.fromEntries(pares.map((p) => [p.key.name, p.value]));

  it('pago.creado nombra el pago, su CFDI y las facturas pagadas: la consulta de finanzas por factura la encuentra', () => {
    const a = nombres(
      atributosEntrega(
        { cuentaId: 'cta_1', modo: 'test' },
        {
          eventoId: 'evt_1',
          webhookId: 'wh_1',
          tipo: 'pago.creado',
          datos: {
            id: 'pago_1',
            organizacion: 'org_1',
            factura_pago: 'fac_p',
            facturas_pagadas: [{ factura: 'fac_a' }, { factura: 'fac_b' }],
          },
        },
      ),
    );
    expect(a).toEqual({
      EventoId: 'evt_1',
      WebhookId: 'wh_1',
      TipoEvento: 'pago.creado',
      CuentaId: 'cta_1',
      Modo: 'test',
      IntentosEntrega: 1,
      OrganizacionId: 'org_1',
      FacturaId: 'fac_p',
      PagoId: 'pago_1',
      FacturasPagadas: ['fac_a', 'fac_b'],
    });
  });

  it('certificado.* no inventa factura ni pago', () => {
    const a = nombres(
      atributosEntrega(
        { cuentaId: 'cta_1', modo: 'live' },
        {
          eventoId: 'evt_2',
          webhookId: 'wh_2',
          tipo: 'certificado.vencido',
          datos: { id: 'cert_1', organizacion: 'org_1' },
        },
      ),
    );
    expect(Object.keys(a).sort()).toEqual(
      ['CuentaId', 'EventoId', 'IntentosEntrega', 'Modo', 'OrganizacionId', 'TipoEvento', 'WebhookId'].sort(),
    );
  });
});
