import { clienteHttp } from '../support/cliente-http';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import {
  balanceDeCuenta,
  fallaPac,
  llamadasPac,
  reportarCaso,
  timbresDelFolio,
  type FacturaEsperada,
} from '../support/fallas';
import { iniciarPila, type Pila } from '../support/pila';

/**
 * Fault matrix, PAC and idempotency half (issue 13, point 4): every case against the real stack (API,
 * Temporal, MariaDB, the sandbox PAC over HTTP), each ending with 0 lost and 0 duplicated invoices, UUIDs
 * and events, counted in MariaDB and in the sandbox's own store of stamps. Worker kills are in
 * matriz-fallas-worker.test.ts. Each case prints one `matriz caso=…` line for RELIABILITY.md.
 */

type Cuenta = Awaited<ReturnType<typeof cuentaLista>>;

// Every account issues as the same RFC: a folio of its own keeps two documents from being one to the PAC.
const folio = () => `M${Date.now()}${Math.floor(Math.random() * 1e6)}`;
const con = (clave: string) => ({ 'Clave-Idempotencia': clave });
const nuevaClave = () => `matriz-${Date.now()}-${Math.random().toString(36).slice(2)}`;

/** SOAP calls the stamping made (stamp and stamped), from two readings of GET /sandbox/llamadas. */
const llamadasTimbrado = (
  antes: Awaited<ReturnType<typeof llamadasPac>>,
  despues: Awaited<ReturnType<typeof llamadasPac>>,
) =>
  ['stamp', 'stamped'].reduce((t, op) => t + (despues[op]?.recibidas ?? 0) - (antes[op]?.recibidas ?? 0), 0);

describe('matriz de fallas: PAC e idempotencia', () => {
  let pila: Pila;
  beforeAll(async () => {
    // The API waits up to 8 s: long enough for a request to be "long", short of every fault's recovery.
    pila = await iniciarPila({ timbradoEsperaMs: 8000 });
  });
  afterEach(() => fallaPac(pila, { modo: 'normal' }));
  afterAll(() => pila.detener());

  /** The invoice's final answer once its stamping is no longer pending. */
  async function estadoFinal(c: Cuenta, id: string, ms = 150_000) {
    return esperar(async () => {
      const f = await c.http.get(`/v1/facturas/${id}`);
      return f.body.timbrado.estado === 'pendiente' ? undefined : f.body;
    }, ms);
  }

  /**
   * One invoice through a fault: injects it (`antes`, or magic values in `serie`), creates the invoice,
   * waits for the whole workflow (PDF included), then counts what was lost or duplicated.
   */
  async function casoPac(
    caso: string,
    fallas: string,
    op: { serie?: string; antes?: () => Promise<void>; final: 'timbrada' | 'fallido' },
  ) {
    const c = await cuentaLista(pila);
    const antes = await llamadasPac(pila);
    await op.antes?.();
    const f = folio();
    const r = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { folio: f, ...(op.serie ? { serie: op.serie } : {}) }),
    );
    const id = (r.status === 422 ? r.body.error.factura : r.body.id) as string;
    expect(id).toMatch(/^fac_/);
    const final = await estadoFinal(c, id);
    expect(await pila.cliente.workflow.getHandle(`timbrado:${id}`).result()).toBe(op.final);
    const llamadas = llamadasTimbrado(antes, await llamadasPac(pila));
    const esperada: FacturaEsperada = { id, folio: f, final: op.final };
    const b = await balanceDeCuenta(pila, c.cuentaId, [esperada]);
    reportarCaso(caso, {
      fallas,
      solicitudes: 1,
      http: r.status,
      llamadas_pac: llamadas,
      intentos: b.intentos[0]!,
      eventos: b.eventos[0]!.join(','),
      perdidas: b.perdidas,
      duplicados: b.duplicados,
    });
    expect({ perdidas: b.perdidas, duplicados: b.duplicados }).toEqual({ perdidas: 0, duplicados: 0 });
    return { r, final, b, llamadas, folio: f };
  }

  it('PAC lento (4 s, dentro del plazo del cliente): timbrada al primer intento, un UUID', async () => {
    const { r, final, b } = await casoPac('pac-lento', 'SANDBOX:LATENCIA=4000', {
      serie: 'SANDBOX:LATENCIA=4000',
      final: 'timbrada',
    });
    expect(r.status).toBe(201);
    expect(final).toMatchObject({ estado: 'timbrada', uuid: b.uuids[0] });
    expect(b.intentos[0]).toBe(1);
    expect(b.eventos[0]).toEqual(['factura.timbrada']);
  }, 180_000);

  it('respuesta más lenta que el plazo del cliente (21 s > 20 s): el PAC timbró tarde y el reintento recupera ese UUID', async () => {
    const { final, b, llamadas } = await casoPac('pac-respuesta-tardia', 'SANDBOX:LATENCIA=21000', {
      serie: 'SANDBOX:LATENCIA=21000',
      final: 'timbrada',
    });
    expect(final.estado).toBe('timbrada');
    expect(b.intentos[0]).toBeGreaterThanOrEqual(2);
    expect(llamadas).toBeGreaterThanOrEqual(2);
    expect(b.eventos[0]).toEqual(['factura.timbrada']);
  }, 240_000);

  it('tiempo agotado: el PAC acepta la conexión y nunca responde; al recuperarse se timbra una vez', async () => {
    const { final, b } = await casoPac('pac-sin-respuesta', 'POST_/sandbox/fallas sin_respuesta veces:1', {
      antes: () => fallaPac(pila, { modo: 'sin_respuesta', veces: 1 }),
      final: 'timbrada',
    });
    expect(final.estado).toBe('timbrada');
    expect(b.intentos[0]).toBeGreaterThanOrEqual(2);
    expect(b.eventos[0]).toEqual(['factura.timbrada']);
  }, 240_000);

  it('conexiones reiniciadas (TCP RST) tres veces seguidas: reintenta y timbra una vez', async () => {
    const { final, b, llamadas } = await casoPac('pac-reinicio', 'POST_/sandbox/fallas reinicio veces:3', {
      antes: () => fallaPac(pila, { modo: 'reinicio', veces: 3 }),
      final: 'timbrada',
    });
    expect(final.estado).toBe('timbrada');
    expect(b.intentos[0]).toBeGreaterThanOrEqual(3);
    expect(llamadas).toBeGreaterThanOrEqual(4);
    expect(b.eventos[0]).toEqual(['factura.timbrada']);
  }, 180_000);

  it('ráfaga de 4 respuestas HTTP 500: reintenta con backoff y timbra una vez', async () => {
    const { final, b, llamadas } = await casoPac('pac-rafaga-500', 'POST_/sandbox/fallas error_500 veces:4', {
      antes: () => fallaPac(pila, { modo: 'error_500', veces: 4 }),
      final: 'timbrada',
    });
    expect(final.estado).toBe('timbrada');
    expect(b.intentos[0]).toBeGreaterThanOrEqual(4);
    expect(llamadas).toBeGreaterThanOrEqual(5);
    expect(b.eventos[0]).toEqual(['factura.timbrada']);
  }, 180_000);

  it('respuesta perdida: el PAC timbró y cortó la conexión; el reintento recupera el mismo UUID', async () => {
    const { final, b } = await casoPac('pac-respuesta-perdida', 'SANDBOX:PERDIDA', {
      serie: 'SANDBOX:PERDIDA',
      final: 'timbrada',
    });
    expect(final.estado).toBe('timbrada');
    expect(b.intentos[0]).toBeGreaterThanOrEqual(2);
    expect(b.eventos[0]).toEqual(['factura.timbrada']);
  }, 180_000);

  it('el PAC rechaza el CFDI: 422 timbrado_rechazado, fallido con su evento, ningún UUID', async () => {
    const {
      r,
      final,
      b,
      folio: f,
    } = await casoPac('pac-rechazo', 'SANDBOX:RECHAZO=CFDI40145', {
      serie: 'SANDBOX:RECHAZO=CFDI40145',
      final: 'fallido',
    });
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ codigo: 'timbrado_rechazado' });
    expect(final).toMatchObject({
      estado: 'borrador',
      uuid: null,
      timbrado: { estado: 'fallido', ultimo_error: { codigo: 'CFDI40145' } },
    });
    expect(b.eventos[0]).toEqual(['factura.timbrado_fallido']);
    expect(await timbresDelFolio(pila, f)).toEqual([]);
  }, 180_000);

  it('6 solicitudes simultáneas con la misma Clave-Idempotencia: una factura, un UUID, un evento', async () => {
    const c = await cuentaLista(pila);
    const f = folio();
    // The PAC takes 2 s, so the first request is still running when the others arrive.
    const cuerpo = facturaNueva(c, { folio: f, serie: 'SANDBOX:LATENCIA=2000' });
    const clave = nuevaClave();
    const rs = await Promise.all(
      Array.from({ length: 6 }, () => c.http.post('/v1/facturas', cuerpo, con(clave))),
    );
    const estados = rs.map((r) => r.status);
    expect(estados.filter((s) => ![201, 202, 409].includes(s))).toEqual([]);
    for (const r of rs.filter((x) => x.status === 409)) {
      expect(r.body.error.codigo).toBe('solicitud_en_curso');
    }
    const ids = [...new Set(rs.filter((r) => r.status !== 409).map((r) => r.body.id as string))];
    expect(ids).toHaveLength(1);
    const id = ids[0]!;
    expect((await estadoFinal(c, id)).estado).toBe('timbrada');
    expect(await pila.cliente.workflow.getHandle(`timbrado:${id}`).result()).toBe('timbrada');
    const repetida = await c.http.post('/v1/facturas', cuerpo, con(clave));
    expect(repetida.headers.get('idempotencia-repetida')).toBe('true');
    expect(repetida.body.id).toBe(id);

    const b = await balanceDeCuenta(pila, c.cuentaId, [{ id, folio: f, final: 'timbrada' }]);
    reportarCaso('idem-concurrentes', {
      fallas: '6 POST simultáneos, una clave',
      solicitudes: 7,
      http: estados.sort().join(','),
      intentos: b.intentos[0]!,
      eventos: b.eventos[0]!.join(','),
      perdidas: b.perdidas,
      duplicados: b.duplicados,
    });
    expect({ perdidas: b.perdidas, duplicados: b.duplicados }).toEqual({ perdidas: 0, duplicados: 0 });
    expect(b.eventos[0]).toEqual(['factura.timbrada']);
  }, 180_000);

  it('la misma clave con otro cuerpo, durante y después de la primera: 422 y nada más se crea', async () => {
    const c = await cuentaLista(pila);
    const f = folio();
    const clave = nuevaClave();
    const primera = c.http.post(
      '/v1/facturas',
      facturaNueva(c, { folio: f, serie: 'SANDBOX:LATENCIA=3000' }),
      con(clave),
    );
    // While the first runs (its row is claimed), then once it has its answer.
    await esperar(async () =>
      (await pila.db('idempotencia').where({ cuenta_id: c.cuentaId, clave }).first()) ? true : undefined,
    );
    const otroCuerpo = () => c.http.post('/v1/facturas', facturaNueva(c, { folio: folio() }), con(clave));
    const durante = await otroCuerpo();
    const r = await primera;
    const despues = await otroCuerpo();
    for (const x of [durante, despues]) {
      expect(x.status).toBe(422);
      expect(x.body.error).toMatchObject({
        codigo: 'clave_idempotencia_reutilizada',
        parametro: 'Clave-Idempotencia',
      });
    }
    expect(r.status).toBe(201);
    expect(await pila.cliente.workflow.getHandle(`timbrado:${r.body.id}`).result()).toBe('timbrada');

    const b = await balanceDeCuenta(pila, c.cuentaId, [{ id: r.body.id, folio: f, final: 'timbrada' }]);
    reportarCaso('idem-otro-cuerpo', {
      fallas: 'misma clave, otro cuerpo, en curso y completada',
      solicitudes: 3,
      http: [r.status, durante.status, despues.status].join(','),
      intentos: b.intentos[0]!,
      eventos: b.eventos[0]!.join(','),
      perdidas: b.perdidas,
      duplicados: b.duplicados,
    });
    expect({ perdidas: b.perdidas, duplicados: b.duplicados }).toEqual({ perdidas: 0, duplicados: 0 });
  }, 180_000);

  it('llave revocada durante una solicitud larga: la solicitud termina completa; la siguiente con esa llave es 401', async () => {
    const c = await cuentaLista(pila);
    const nueva = await c.http.post('/v1/llaves_api', { nombre: 'revocable', modo: 'test' });
    expect(nueva.status).toBe(201);
    const revocable = clienteHttp(pila.url, nueva.body.secreto as string);
    const f = folio();
    const clave = nuevaClave();
    const cuerpo = facturaNueva(c, { folio: f, serie: 'SANDBOX:LATENCIA=4000' });
    const antes = await llamadasPac(pila);
    const enVuelo = revocable.post('/v1/facturas', cuerpo, con(clave));
    // Revoked once the request has reached the PAC: it is mid-flight for certain.
    await esperar(async () => ((await llamadasPac(pila)).stamp?.en_curso ? true : undefined), 60_000);
    const revocada = await c.http.delete(`/v1/llaves_api/${nueva.body.id}`);
    expect(revocada.status).toBe(200);
    expect(revocada.body.revocada_en).toEqual(expect.any(String));
    expect((await llamadasPac(pila)).stamp!.recibidas).toBeGreaterThan(antes.stamp?.recibidas ?? 0);

    // Authenticated when it started, it completes: one invoice, stamped, its answer stored whole.
    const r = await enVuelo;
    expect([201, 202]).toContain(r.status);
    expect(await pila.cliente.workflow.getHandle(`timbrado:${r.body.id}`).result()).toBe('timbrada');
    const fila = await pila.db('idempotencia').where({ cuenta_id: c.cuentaId, clave }).first();
    expect(fila).toMatchObject({ estado: 'completada', status: r.status });

    // From the next request on, the key is refused, even replaying the stored answer.
    const siguiente = await revocable.get('/v1/facturas');
    const repeticion = await revocable.post('/v1/facturas', cuerpo, con(clave));
    for (const x of [siguiente, repeticion]) {
      expect(x.status).toBe(401);
      expect(x.body.error.codigo).toBe('llave_invalida');
    }
    // The account's valid key replays it (keys are scoped by account and mode, not by API key).
    const conOtra = await c.http.post('/v1/facturas', cuerpo, con(clave));
    expect(conOtra.headers.get('idempotencia-repetida')).toBe('true');
    expect(conOtra.body.id).toBe(r.body.id);

    const b = await balanceDeCuenta(pila, c.cuentaId, [{ id: r.body.id, folio: f, final: 'timbrada' }]);
    reportarCaso('llave-revocada-en-vuelo', {
      fallas: 'DELETE /v1/llaves_api durante el timbrado',
      solicitudes: 4,
      http: [r.status, siguiente.status, repeticion.status, conOtra.status].join(','),
      intentos: b.intentos[0]!,
      eventos: b.eventos[0]!.join(','),
      perdidas: b.perdidas,
      duplicados: b.duplicados,
    });
    expect({ perdidas: b.perdidas, duplicados: b.duplicados }).toEqual({ perdidas: 0, duplicados: 0 });
  }, 180_000);
});
