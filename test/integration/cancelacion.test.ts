import { hijoDe, hijosDe, leerXml, localDe, textoDe } from '../../pac/soap/xml';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { fallasPac } from '../support/fallas';
import { iniciarPila, type Pila } from '../support/pila';

describe('cancelación de facturas (workflow + PAC sandbox con las reglas del SAT)', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  beforeAll(async () => {
    // A short tracking window (the default is 7 days): a silent receiver makes the cancellation `vencida`.
    pila = await iniciarPila({
      timbradoEsperaMs: 10_000,
      cancelacionSondeoMs: 300,
      cancelacionPlazoMs: 3000,
    });
    c = await cuentaLista(pila);
  });
  afterAll(() => pila.detener());

  const timbrada = async (extra: Record<string, unknown> = {}) => {
    const r = await c.http.post('/v1/facturas', facturaNueva(c, extra));
    expect(r.status).toBe(201);
    return r.body as { id: string; uuid: string };
  };
  const receptor = (uuid: string, accion: 'aceptar' | 'rechazar') =>
    fetch(`${pila.pacUrl}/sandbox/cancelaciones/${uuid}/${accion}`, { method: 'POST' });
  const final = (id: string) =>
    esperar(async () => {
      const f = await c.http.get(`/v1/facturas/${id}`);
      return ['en_proceso', 'solicitada'].includes(f.body.cancelacion?.estado) ? undefined : f.body;
    });
  /** GET …/acuse: the XML's root, its folios (UUID → EstatusUUID) and the raw answer; or the refusal. */
  const acuse = async (id: string) => {
    const r = await c.http.get(`/v1/facturas/${id}/acuse`);
    if (r.status !== 200) return { status: r.status, codigo: r.body.error.codigo as string };
    expect(r.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(r.headers.get('content-disposition')).toBe(`inline; filename="acuse-${id}.xml"`);
    // The sandbox answers as Finkok does: the SAT's acuse with the request's date, issuer and each folio.
    const raiz = leerXml(r.body as string);
    const resultado = hijoDe(raiz, 'CancelaCFDResult') ?? raiz;
    const folios = hijosDe(hijoDe(resultado, 'Folios'), 'UUID').map((u, i) => [
      textoDe(u),
      textoDe(hijosDe(hijoDe(resultado, 'Folios'), 'EstatusUUID')[i]),
    ]);
    return { status: 200, raiz: localDe(raiz.nombre), fecha: resultado.atributos.Fecha, folios, xml: r.body };
  };
  const estadoSat = async (id: string) => {
    const r = await c.http.get(`/v1/facturas/${id}/estado_sat`);
    expect(r.status).toBe(200);
    return r.body;
  };

  it('sin aceptación (dentro del plazo tras el timbrado): 200 cancelada y factura.cancelada', async () => {
    const f = await timbrada();
    // The sandbox answers the SAT's status from its own records.
    expect(await estadoSat(f.id)).toMatchObject({
      objeto: 'estado_sat',
      factura: f.id,
      uuid: f.uuid,
      estado: 'vigente',
      es_cancelable: 'cancelable_sin_aceptacion',
      estatus_cancelacion: null,
      codigo_estatus: expect.stringMatching(/^S - /),
    });
    expect(await acuse(f.id)).toEqual({ status: 409, codigo: 'factura_no_cancelada' });
    const r = await c.http.post(`/v1/facturas/${f.id}/cancelar`, { motivo: '02' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ estado: 'cancelada', cancelacion: { estado: 'aceptada', motivo: '02' } });
    expect(await acuse(f.id)).toMatchObject({
      status: 200,
      raiz: 'CancelaCFDResponse',
      fecha: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
      folios: [[f.uuid, '201']],
    });
    expect(await estadoSat(f.id)).toMatchObject({
      estado: 'cancelado',
      estatus_cancelacion: 'cancelado_sin_aceptacion',
    });
    const ev = await c.http.get('/v1/eventos?tipo=factura.cancelada');
    expect(ev.body.datos.map((e: { datos: { id: string } }) => e.datos.id)).toContain(f.id);
    const otra = await c.http.post(`/v1/facturas/${f.id}/cancelar`, { motivo: '02' });
    expect(otra.status).toBe(409);
    expect(otra.body.error.codigo).toBe('factura_no_timbrada');
  });

  it('con aceptación: 202 en_proceso (sigue timbrada) y, cuando el receptor acepta, cancelada', async () => {
    const f = await timbrada({ condiciones_pago: 'SANDBOX:CON_ACEPTACION' });
    const r = await c.http.post(`/v1/facturas/${f.id}/cancelar`, { motivo: '03' });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ estado: 'timbrada', cancelacion: { estado: 'en_proceso', motivo: '03' } });
    expect((await c.http.post(`/v1/facturas/${f.id}/cancelar`, { motivo: '03' })).body.error.codigo).toBe(
      'cancelacion_en_curso',
    );
    // Requested, not final: the acuse waits for the receiver; the SAT shows the request in process.
    expect(await acuse(f.id)).toEqual({ status: 409, codigo: 'factura_no_cancelada' });
    expect(await estadoSat(f.id)).toMatchObject({
      estado: 'vigente',
      es_cancelable: 'cancelable_con_aceptacion',
      estatus_cancelacion: 'en_proceso',
    });
    expect((await receptor(f.uuid, 'aceptar')).ok).toBe(true);
    const fin = await final(f.id);
    expect(fin).toMatchObject({ estado: 'cancelada', cancelacion: { estado: 'aceptada' } });
    expect(await acuse(f.id)).toMatchObject({ status: 200, folios: [[f.uuid, '201']] });
    expect(await estadoSat(f.id)).toMatchObject({
      estado: 'cancelado',
      estatus_cancelacion: 'cancelado_con_aceptacion',
    });
  });

  it('el receptor rechaza: sigue timbrada, cancelación rechazada y factura.cancelacion_fallida', async () => {
    const f = await timbrada({ condiciones_pago: 'SANDBOX:CON_ACEPTACION' });
    expect((await c.http.post(`/v1/facturas/${f.id}/cancelar`, { motivo: '02' })).status).toBe(202);
    expect((await receptor(f.uuid, 'rechazar')).ok).toBe(true);
    const fin = await final(f.id);
    expect(fin).toMatchObject({ estado: 'timbrada', cancelacion: { estado: 'rechazada' } });
    const ev = await c.http.get('/v1/eventos?tipo=factura.cancelacion_fallida');
    expect(ev.body.datos[0].datos).toMatchObject({ id: f.id, cancelacion: { estado: 'rechazada' } });
  });

  it('el receptor no responde dentro del plazo de seguimiento: vencida, factura.cancelacion_fallida y puede volver a pedirse', async () => {
    const f = await timbrada({ condiciones_pago: 'SANDBOX:CON_ACEPTACION' });
    expect((await c.http.post(`/v1/facturas/${f.id}/cancelar`, { motivo: '02' })).status).toBe(202);
    const fin = await final(f.id);
    expect(fin).toMatchObject({
      estado: 'timbrada',
      cancelacion: { estado: 'vencida', motivo: '02', error: { codigo: 'cancelacion_vencida' } },
    });
    const ev = await c.http.get('/v1/eventos?tipo=factura.cancelacion_fallida');
    const evento = ev.body.datos.find((e: { datos: { id: string } }) => e.datos.id === f.id);
    expect(evento.datos).toMatchObject({
      id: f.id,
      estado: 'timbrada',
      cancelacion: { estado: 'vencida', error: { codigo: 'cancelacion_vencida' } },
    });
    // The workflow ended with the window, visibly: its result is the final state.
    const h = pila.cliente.workflow.getHandle(`cancelacion:${f.id}`);
    expect(await h.result()).toBe('vencida');
    // Not in progress any more: a new request starts a new cancellation (a new run of the same workflow id).
    expect(await acuse(f.id)).toEqual({ status: 409, codigo: 'factura_no_cancelada' });
    const otra = await c.http.post(`/v1/facturas/${f.id}/cancelar`, { motivo: '02' });
    expect(otra.status).toBe(202);
    expect(otra.body.cancelacion).toMatchObject({ estado: 'en_proceso' });
    expect(otra.body.cancelacion.error).toBeNull();
    expect((await receptor(f.uuid, 'aceptar')).ok).toBe(true);
    expect(await final(f.id)).toMatchObject({ estado: 'cancelada', cancelacion: { estado: 'aceptada' } });
    // The SAT still had the first request pending and answered the second 202: the first acuse (201) stays.
    expect(await acuse(f.id)).toMatchObject({ status: 200, folios: [[f.uuid, '201']] });
  });

  it('rechazo inmediato (sin CSD activo para firmar): 422 cancelacion_rechazada con la factura, sigue timbrada', async () => {
    const f = await timbrada();
    const certs = await c.http.get('/v1/certificados');
    const cert = certs.body.datos.find(
      (x: { organizacion: string; activo: boolean }) => x.organizacion === c.org && x.activo,
    );
    expect((await c.http.patch(`/v1/certificados/${cert.id}`, { activo: false })).status).toBe(200);
    try {
      const r = await c.http.post(`/v1/facturas/${f.id}/cancelar`, { motivo: '02' });
      expect(r.status).toBe(422);
      expect(r.body.error).toMatchObject({
        tipo: 'regla_de_negocio',
        codigo: 'cancelacion_rechazada',
        factura: f.id,
      });
      expect(r.body.error.mensaje).toContain('sin_certificado_activo');
      const leida = await c.http.get(`/v1/facturas/${f.id}`);
      expect(leida.body).toMatchObject({
        estado: 'timbrada',
        cancelacion: { estado: 'rechazada', error: { codigo: 'sin_certificado_activo' } },
      });
      const ev = await c.http.get('/v1/eventos?tipo=factura.cancelacion_fallida');
      expect(ev.body.datos.some((e: { datos: { id: string } }) => e.datos.id === f.id)).toBe(true);
    } finally {
      expect((await c.http.patch(`/v1/certificados/${cert.id}`, { activo: true })).status).toBe(200);
    }
  });

  it('motivo 01 exige uuid_sustitucion de una factura timbrada que la relacione con tipo 04', async () => {
    const f = await timbrada();
    const sin = await c.http.post(`/v1/facturas/${f.id}/cancelar`, { motivo: '01' });
    expect(sin.status).toBe(400);
    expect(sin.body.error).toMatchObject({
      codigo: 'uuid_sustitucion_requerido',
      parametro: 'uuid_sustitucion',
    });
    const ajena = await timbrada();
    const mal = await c.http.post(`/v1/facturas/${f.id}/cancelar`, {
      motivo: '01',
      uuid_sustitucion: ajena.uuid,
    });
    expect(mal.status).toBe(422);
    expect(mal.body.error.codigo).toBe('sustitucion_invalida');
    const sustituta = await timbrada({ relaciones: [{ tipo_relacion: '04', uuids: [f.uuid] }] });
    const ok = await c.http.post(`/v1/facturas/${f.id}/cancelar`, {
      motivo: '01',
      uuid_sustitucion: sustituta.uuid,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.cancelacion).toMatchObject({ motivo: '01', uuid_sustitucion: sustituta.uuid });
  });

  it('uuid_sustitucion solo con motivo 01: con 02, 03 o 04 responde 400 y no cancela', async () => {
    const f = await timbrada();
    const otra = await timbrada();
    for (const motivo of ['02', '03', '04']) {
      const r = await c.http.post(`/v1/facturas/${f.id}/cancelar`, { motivo, uuid_sustitucion: otra.uuid });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({
        tipo: 'solicitud_invalida',
        codigo: 'uuid_sustitucion_no_permitido',
        parametro: 'uuid_sustitucion',
      });
    }
    expect((await c.http.get(`/v1/facturas/${f.id}`)).body).toMatchObject({
      estado: 'timbrada',
      cancelacion: null,
    });
  });

  it('un borrador no se cancela (409) ni tiene acuse ni estado en el SAT (409)', async () => {
    const b = await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
    const r = await c.http.post(`/v1/facturas/${b.body.id}/cancelar`, { motivo: '02' });
    expect(r.status).toBe(409);
    expect(r.body.error.codigo).toBe('factura_no_timbrada');
    expect(await acuse(b.body.id)).toEqual({ status: 409, codigo: 'factura_no_cancelada' });
    const sat = await c.http.get(`/v1/facturas/${b.body.id}/estado_sat`);
    expect([sat.status, sat.body.error.codigo]).toEqual([409, 'factura_no_timbrada']);
  });

  it('estado_sat con el PAC caído: 503 pac_no_disponible con Retry-After, y vuelve a responder', async () => {
    const f = await timbrada();
    await fallasPac(pila, 'caido');
    try {
      const r = await c.http.get(`/v1/facturas/${f.id}/estado_sat`);
      expect([r.status, r.body.error.tipo, r.body.error.codigo]).toEqual([
        503,
        'servicio_no_disponible',
        'pac_no_disponible',
      ]);
      expect(r.headers.get('retry-after')).toBe('5');
    } finally {
      await fallasPac(pila, 'normal');
    }
    expect(await estadoSat(f.id)).toMatchObject({ estado: 'vigente' });
  });
});
