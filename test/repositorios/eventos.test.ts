import { nuevoId } from '../../db/ids';
import type { FiltrosEventos } from '../../db/repositorios/eventos';
import type { Pagina } from '../../dominio/paginacion';
import {
  alcanceDe,
  contrato,
  dormir,
  escenario,
  facturaTimbrada,
  nuevaFactura,
  nuevaOrganizacion,
  nuevoEvento,
  nuevoPago,
  paginasEsperadas,
  parcialidad,
  recorrer,
} from './soporte';

contrato('eventos', (impl) => {
  const pronto = () => new Date(Date.now() + 60_000);

  it('reads an event with its data as an object, who wrote it and the request behind it', async () => {
    const { cuentaId } = await escenario(impl());
    const a = alcanceDe(cuentaId, 'live', { solicitudId: 'req_123', llaveId: 'llave_origen' });
    const datos = { id: 'fac_1', total: '116.00', anidado: { lista: [1, 'dos', null] } };
    const id = await nuevoEvento(impl(), a, 'factura.creada', datos);
    const esperado = {
      id,
      modo: 'live',
      tipo: 'factura.creada',
      datos,
      actor: a.llaveId,
      solicitud_id: 'req_123',
      solicitud_llave_id: 'llave_origen',
      creado_en: expect.any(Date),
    };
    expect(await impl().repos.eventos.obtener(a, id)).toEqual(esperado);
    expect(await impl().repos.eventos.paraDespacho(id)).toEqual({ ...esperado, cuenta_id: cuentaId });

    const sistema = { cuentaId, modo: 'test' as const, llaveId: 'sistema' };
    const deSistema = await nuevoEvento(impl(), sistema, 'factura.timbrada', { id: 'fac_1' });
    expect(await impl().repos.eventos.obtener(sistema, deSistema)).toMatchObject({
      actor: 'sistema',
      solicitud_id: null,
      solicitud_llave_id: null,
    });
  });

  it('another account or mode never sees the event', async () => {
    const { a, live, otra } = await escenario(impl());
    const id = await nuevoEvento(impl(), a);
    for (const fuera of [live, otra]) {
      expect(await impl().repos.eventos.obtener(fuera, id)).toBeUndefined();
      expect((await impl().repos.eventos.listar(fuera, {}, { limite: 10 })).datos).toEqual([]);
    }
  });

  it('lists newest first, page by page, by type', async () => {
    const { a, live } = await escenario(impl());
    const creadas = [];
    for (let i = 0; i < 3; i++) creadas.push(await nuevoEvento(impl(), a, 'factura.creada'));
    const timbradas = [
      await nuevoEvento(impl(), a, 'factura.timbrada'),
      await nuevoEvento(impl(), a, 'factura.timbrada'),
    ];
    await nuevoEvento(impl(), live, 'factura.creada');
    const listar =
      (f: FiltrosEventos = {}) =>
      (p: Pagina) =>
        impl().repos.eventos.listar(a, f, p);
    expect(await recorrer(listar(), 2)).toEqual(paginasEsperadas([...creadas, ...timbradas], 2));
    expect(await recorrer(listar({ tipo: 'factura.creada' }), 2)).toEqual(paginasEsperadas(creadas, 2));
    expect(await recorrer(listar({ tipo: 'pago.creado' }), 2)).toEqual([[]]);
  });

  it('an event is listed under every invoice and payment it is about', async () => {
    const { a, live } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const f1 = (await facturaTimbrada(impl(), a, org)).id;
    const f2 = (await facturaTimbrada(impl(), a, org)).id;
    const cfdi = await nuevaFactura(impl(), a, org, { tipo: 'pago' });
    const pago = await nuevoPago(impl(), a, org, [
      { factura: f1, imp_pagado: '1' },
      { factura: f2, imp_pagado: '1' },
    ]);
    await impl().transacciones.ejecutar((tx) =>
      impl().repos.pagos.registrar(tx, a, pago, cfdi, [
        parcialidad(f1, 1, { anterior: '116', pagado: '1', insoluto: '115' }),
        parcialidad(f2, 1, { anterior: '116', pagado: '1', insoluto: '115' }),
      ]),
    );
    const deF1 = await nuevoEvento(impl(), a, 'factura.timbrada', { id: f1 });
    const delPago = await nuevoEvento(impl(), a, 'pago.creado', {
      id: pago,
      factura_pago: cfdi,
      facturas_pagadas: [{ factura: f1 }, { factura: f2 }],
    });
    // A payment CFDI's event: about its payment, and the invoices the ledger says that payment paid.
    const delCfdi = await nuevoEvento(impl(), a, 'factura.timbrada', { id: cfdi, pago });
    // An event of another mode about the same id is not listed.
    await nuevoEvento(impl(), live, 'factura.timbrada', { id: f1 });
    const de = async (f: FiltrosEventos) =>
      (await impl().repos.eventos.listar(a, f, { limite: 10 })).datos.map((e) => e.id).sort();
    expect(await de({ facturaId: f1 })).toEqual([deF1, delPago, delCfdi].sort());
    expect(await de({ facturaId: f2 })).toEqual([delPago, delCfdi].sort());
    expect(await de({ facturaId: cfdi })).toEqual([delPago, delCfdi].sort());
    expect(await de({ pagoId: pago })).toEqual([delPago, delCfdi].sort());
    expect(await de({ facturaId: f1, pagoId: pago })).toEqual([delPago, delCfdi].sort());
    expect(await de({ facturaId: f1, tipo: 'pago.creado' })).toEqual([delPago]);
    expect(await de({ facturaId: nuevoId('fac') })).toEqual([]);
  });

  it('the outbox holds each committed event until it is dispatched, oldest first', async () => {
    const { a, otra } = await escenario(impl());
    const e1 = await nuevoEvento(impl(), a);
    await dormir(5);
    const e2 = await nuevoEvento(impl(), otra);
    await dormir(5);
    const e3 = await nuevoEvento(impl(), a);
    const mios = [e1, e2, e3];
    const pendientes = async (antesDe: Date) =>
      (await impl().repos.eventos.porDespachar(antesDe, 100_000)).filter((id) => mios.includes(id));
    expect(await pendientes(pronto())).toEqual([e1, e2, e3]);
    // The fast path had no chance yet: too recent for the reconciler.
    expect(await pendientes(new Date(Date.now() - 60_000))).toEqual([]);
    await impl().repos.eventos.despachado(e2);
    await impl().repos.eventos.despachado(e2);
    expect(await pendientes(pronto())).toEqual([e1, e3]);
    // Dispatched, the event itself stays.
    expect(await impl().repos.eventos.obtener(otra, e2)).toMatchObject({ id: e2 });
  });

  it('the outbox is read oldest first and cut at the limit', async () => {
    const { a } = await escenario(impl());
    const mios: string[] = [];
    for (let i = 0; i < 3; i++) {
      mios.push(await nuevoEvento(impl(), a));
      await dormir(5);
    }
    const todos = await impl().repos.eventos.porDespachar(pronto(), 100_000);
    const propios = todos.filter((id) => mios.includes(id));
    expect(propios).toEqual(mios);
    // The limit cuts the oldest-first list.
    const corto = await impl().repos.eventos.porDespachar(pronto(), todos.indexOf(mios[1]!) + 1);
    expect(corto.filter((id) => mios.includes(id))).toEqual(mios.slice(0, 2));
  });

  it('an event for the dispatcher is found by id alone; an unknown id is undefined', async () => {
    expect(await impl().repos.eventos.paraDespacho(nuevoId('evt'))).toBeUndefined();
  });
});
