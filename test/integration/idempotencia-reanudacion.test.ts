import { crearRepositorioIdempotencia } from '../../db/repositorios/idempotencia';
import { crearBoveda } from '../../seguridad/boveda';
import { randomBytes } from 'node:crypto';
import { cuentaLista, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';

/**
 * A create request whose answer is lost after its commit (MySQL gone during the bounded wait, the API process
 * killed) leaves its `Clave-Idempotencia` naming what it created. The retry with the same key and body answers for
 * that invoice or payment instead of creating a second one. The lost answer is reproduced by putting the key's
 * row of a real request back as such a request leaves it: `en_curso`, with its resource, no stored answer.
 */
describe('Clave-Idempotencia: una creación confirmada cuya respuesta se perdió', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  beforeAll(async () => {
    pila = await iniciarPila({ timbradoEsperaMs: 15_000 });
    c = await cuentaLista(pila);
  });
  afterAll(() => pila.detener());

  const alcance = () => ({ cuentaId: c.cuentaId, modo: 'test' as const, llaveId: 'sistema' });
  const clave = () => `perdida-${randomBytes(6).toString('hex')}`;
  const contar = async (tabla: string) =>
    Number((await pila.db(tabla).where({ cuenta_id: c.cuentaId }).count({ n: '*' }))[0]!.n);

  /**
   * Turns a completed request back into one whose answer was lost after its commit: the row as the API leaves it
   * when the database dies during the bounded wait (`en_curso`, its resource noted, no stored answer).
   */
  async function perderRespuesta(k: string) {
    const n = await pila
      .db('idempotencia')
      .where({ cuenta_id: c.cuentaId, modo: 'test', clave: k })
      .whereNotNull('recurso')
      .update({
        estado: 'en_curso',
        status: null,
        cuerpo_cifrado: null,
        dek_cifrada: null,
        version_clave: null,
        actualizado_en: new Date(),
      });
    expect(n).toBe(1);
  }

  it('la creación anota su factura en la misma transacción que la crea', async () => {
    const k = clave();
    const r = await c.http.post('/v1/facturas', facturaNueva(c), { 'Clave-Idempotencia': k });
    expect(r.status).toBe(201);
    const fila = await pila.db('idempotencia').where({ cuenta_id: c.cuentaId, clave: k }).first();
    expect(fila).toMatchObject({ estado: 'completada', recurso: r.body.id });
  });

  it('el reintento responde por la factura ya creada y no crea otra', async () => {
    const cuerpo = facturaNueva(c, { auto_timbrar: false });
    const k = clave();
    const primera = await c.http.post('/v1/facturas', cuerpo, { 'Clave-Idempotencia': k });
    expect(primera.status).toBe(201);
    await perderRespuesta(k);
    const antes = await contar('facturas');
    const r = await c.http.post('/v1/facturas', cuerpo, { 'Clave-Idempotencia': k });
    expect(r.status).toBe(201);
    expect(r.body).toEqual(primera.body);
    expect(r.headers.get('idempotencia-repetida')).toBeNull();
    expect(await contar('facturas')).toBe(antes);
    // Its answer is kept now: the next retry is a plain replay.
    const otra = await c.http.post('/v1/facturas', cuerpo, { 'Clave-Idempotencia': k });
    expect(otra.headers.get('idempotencia-repetida')).toBe('true');
    expect(otra.body).toEqual(r.body);
  });

  it('una factura que quedó pendiente de timbrar se timbra al reanudarla, una sola vez', async () => {
    // Committed `pendiente` and never started: what the API leaves when it dies between the commit and the start.
    const cuerpo = facturaNueva(c, { auto_timbrar: false });
    const k = clave();
    const creada = await c.http.post('/v1/facturas', cuerpo, { 'Clave-Idempotencia': k });
    await pila.db('facturas').where({ id: creada.body.id }).update({ timbrado_estado: 'pendiente' });
    await perderRespuesta(k);
    const r = await c.http.post('/v1/facturas', cuerpo, { 'Clave-Idempotencia': k });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: creada.body.id, estado: 'timbrada' });
    const timbradas = await pila
      .db('eventos')
      .where({ cuenta_id: c.cuentaId, tipo: 'factura.timbrada' })
      .whereRaw(`JSON_VALUE(datos, '$.id') = ?`, [creada.body.id])
      .count({ n: '*' });
    expect(Number(timbradas[0]!.n)).toBe(1);
  });

  it('lo mismo para un pago: el reintento responde por el pago registrado, sin otra parcialidad', async () => {
    const f = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { metodo_pago: 'PPD', forma_pago: undefined }),
    );
    expect(f.status).toBe(201);
    const cuerpo = {
      organizacion: c.org,
      fecha_pago: new Date().toISOString(),
      forma_pago: '03',
      monto: '100.00',
      facturas_pagadas: [{ factura: f.body.id, imp_pagado: '100.00' }],
    };
    const k = clave();
    const pago = await c.http.post('/v1/pagos', cuerpo, { 'Clave-Idempotencia': k });
    expect(pago.status).toBe(201);
    await perderRespuesta(k);
    const r = await c.http.post('/v1/pagos', cuerpo, { 'Clave-Idempotencia': k });
    expect(r.status).toBe(201);
    expect(r.body).toEqual(pago.body);
    const libro = await pila.db('pagos_facturas').where({ factura_id: f.body.id });
    expect(libro).toHaveLength(1);
  });

  it('otra solicitud con esa clave sigue siendo 422, aunque la primera se haya abandonado', async () => {
    const cuerpo = facturaNueva(c, { auto_timbrar: false });
    const k = clave();
    await c.http.post('/v1/facturas', cuerpo, { 'Clave-Idempotencia': k });
    await perderRespuesta(k);
    await pila
      .db('idempotencia')
      .where({ cuenta_id: c.cuentaId, clave: k })
      .update({ actualizado_en: new Date(Date.now() - 10 * 60_000) });
    const r = await c.http.post('/v1/facturas', facturaNueva(c, { folio: 'OTRO' }), {
      'Clave-Idempotencia': k,
    });
    expect(r.status).toBe(422);
    expect(r.body.error.codigo).toBe('clave_idempotencia_reutilizada');
  });

  it('una solicitud que terminó sin respuesta libera su clave solo si no creó nada', async () => {
    const repo = crearRepositorioIdempotencia(pila.db, crearBoveda({ clave: randomBytes(32), version: 1 }));
    const [sinRecurso, conRecurso] = [clave(), clave()];
    const ahora = new Date();
    for (const [k, recurso] of [
      [sinRecurso, null],
      [conRecurso, 'fac_01m86xxmmcr413memvshpb9c6a'],
    ] as const) {
      await pila.db('idempotencia').insert({
        cuenta_id: c.cuentaId,
        modo: 'test',
        clave: k,
        huella: Buffer.alloc(32),
        estado: 'en_curso',
        recurso,
        creado_en: ahora,
        actualizado_en: ahora,
      });
      await repo.liberar(alcance(), k);
    }
    const quedan = await pila
      .db('idempotencia')
      .where({ cuenta_id: c.cuentaId })
      .whereIn('clave', [sinRecurso, conRecurso])
      .pluck('clave');
    expect(quedan).toEqual([conRecurso]);
  });
});
