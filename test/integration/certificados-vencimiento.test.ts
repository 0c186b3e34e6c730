import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nuevoId } from '../../db/ids';
import { asegurarProgramaciones, idsProgramaciones } from '../../temporal/programaciones';
import { generarCsd } from '../support/certificados';
import type { ClienteHttp } from '../support/cliente-http';
import { CLIENTE, nuevaCuenta, ORGANIZACION, PRODUCTO } from '../support/cuentas';
import { esperar, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';

const DIA = 24 * 3600 * 1000;

describe('vencimiento de certificados: avisos una sola vez y un CSD vencido ya no sella', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila();
  });
  afterAll(() => pila.detener());

  /** An account whose organization's active CSD expires at `validoHasta`. */
  async function cuentaConCsd(validoHasta: Date) {
    const c = await nuevaCuenta(pila.db, pila.url);
    const org = (await c.http.post('/v1/organizaciones', ORGANIZACION)).body.id;
    const csd = generarCsd({
      rfc: ORGANIZACION.rfc,
      nombre: ORGANIZACION.nombre,
      validoDesde: new Date(Date.now() - DIA),
      validoHasta,
    });
    const cert = await c.http.post('/v1/certificados', {
      organizacion: org,
      cer: csd.cer.toString('base64'),
      llave: csd.llave.toString('base64'),
      contrasena: csd.contrasena,
    });
    expect(cert.status).toBe(201);
    const cli = (await c.http.post('/v1/clientes', { ...CLIENTE, organizacion: org })).body.id;
    const prod = (await c.http.post('/v1/productos', { ...PRODUCTO, organizacion: org })).body.id;
    return { ...c, org, cli, prod, cert: cert.body as { id: string; no_certificado: string } };
  }

  const avisos = async (c: { http: ClienteHttp }, tipo: string) =>
    (await c.http.get(`/v1/eventos?tipo=${tipo}`)).body.datos as { id: string; datos: { id: string } }[];

  it('la Schedule diaria escribe certificado.por_vencer una vez, con el certificado como datos, y lo entrega a un webhook', async () => {
    const recibidos: string[] = [];
    const receptor = createServer((req, res) => {
      let cuerpo = '';
      req.on('data', (p) => (cuerpo += p));
      req.on('end', () => {
        recibidos.push(JSON.parse(cuerpo).tipo);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receptor.listen(0, '127.0.0.1', r));
    const prefijo = `prueba-${nuevoId('x')}`;
    const ids = idsProgramaciones(prefijo);
    try {
      const c = await cuentaConCsd(new Date(Date.now() + 20 * DIA));
      const url = `http://127.0.0.1:${(receptor.address() as AddressInfo).port}/`;
      const w = await c.http.post('/v1/webhooks', {
        url,
        eventos_suscritos: ['certificado.por_vencer', 'certificado.vencido'],
      });
      expect(w.status).toBe(201);

      // Created, the schedule runs once at once; then daily at 13:00 UTC.
      await asegurarProgramaciones(pila.cliente, {
        taskQueue: pila.taskQueue,
        prefijo,
        solo: ['certificados'],
      });
      const d = await pila.cliente.schedule.getHandle(ids.certificados).describe();
      expect(d.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 13, end: 13, step: 1 }] });
      expect(d.action).toMatchObject({ workflowType: 'revisarCertificados', taskQueue: pila.taskQueue });
      const [aviso] = await esperar(async () => {
        const a = await avisos(c, 'certificado.por_vencer');
        return a.length ? a : undefined;
      });
      expect(aviso!.datos).toEqual((await c.http.get(`/v1/certificados/${c.cert.id}`)).body);
      for (const campo of [
        'cer',
        'llave',
        'llave_cifrada',
        'contrasena',
        'contrasena_cifrada',
        'dek_cifrada',
      ]) {
        expect(aviso!.datos).not.toHaveProperty(campo);
      }

      // Whatever the schedule does (triggered again, runs overlapping), the notice exists once.
      const h = pila.cliente.schedule.getHandle(ids.certificados);
      await h.trigger();
      await Promise.all(
        [1, 2].map((n) =>
          pila.cliente.workflow.execute('revisarCertificados', {
            taskQueue: pila.taskQueue,
            workflowId: `${prefijo}-a-mano-${n}`,
          }),
        ),
      );
      await esperar(async () => ((await h.describe()).info.recentActions.length >= 2 ? true : undefined));
      expect(await avisos(c, 'certificado.por_vencer')).toHaveLength(1);
      expect(await avisos(c, 'certificado.vencido')).toHaveLength(0);
      await esperar(async () => (recibidos.length ? true : undefined));
      expect(recibidos).toEqual(['certificado.por_vencer']);
    } finally {
      await pila.cliente.schedule
        .getHandle(ids.certificados)
        .delete()
        .catch(() => undefined);
      await new Promise<void>((r) => receptor.close(() => r()));
    }
  });

  it('un CSD activo vencido: 422 certificado_vencido al crear con timbrado, al timbrar y al pagar; certificado.vencido una vez', async () => {
    const c = await cuentaConCsd(new Date(Date.now() + 4000));
    const borrador = await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
    expect(borrador.status).toBe(201);
    await new Promise((r) => setTimeout(r, 4500));

    const creada = await c.http.post('/v1/facturas', facturaNueva(c));
    expect(creada.status).toBe(422);
    expect(creada.body.error).toMatchObject({ codigo: 'certificado_vencido', parametro: 'organizacion' });
    expect(creada.body.error.mensaje).toContain(c.cert.no_certificado);
    expect(creada.body.error.mensaje).toContain(c.cert.id);
    expect(await pila.db('facturas').where({ cuenta_id: c.cuentaId })).toHaveLength(1);

    const timbrar = await c.http.post(`/v1/facturas/${borrador.body.id}/timbrar`);
    expect(timbrar.status).toBe(422);
    expect(timbrar.body.error).toMatchObject({ codigo: 'certificado_vencido', parametro: 'id' });
    expect((await c.http.get(`/v1/facturas/${borrador.body.id}`)).body.timbrado).toMatchObject({
      estado: 'no_solicitado',
      intentos: 0,
    });

    const pago = await c.http.post('/v1/pagos', {
      organizacion: c.org,
      fecha_pago: new Date().toISOString().slice(0, 10),
      forma_pago: '03',
      monto: '10.00',
      facturas_pagadas: [{ factura: borrador.body.id, imp_pagado: '10.00' }],
    });
    expect(pago.status).toBe(422);
    expect(pago.body.error).toMatchObject({ codigo: 'certificado_vencido', parametro: 'organizacion' });
    expect(await pila.db('pagos').where({ cuenta_id: c.cuentaId })).toHaveLength(0);

    for (const n of [1, 2]) {
      await pila.cliente.workflow.execute('revisarCertificados', {
        taskQueue: pila.taskQueue,
        workflowId: `revisar-${c.cuentaId}-${n}`,
      });
    }
    const vencido = await avisos(c, 'certificado.vencido');
    expect(vencido.map((e) => e.datos.id)).toEqual([c.cert.id]);
    // It expired before any run saw it within the 30 days: only the expiry notice.
    expect(await avisos(c, 'certificado.por_vencer')).toHaveLength(0);
  });
});
