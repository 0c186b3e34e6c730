import type { ChildProcess } from 'node:child_process';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { fallasPac, lanzarWorkerProceso } from '../support/fallas';
import { iniciarPila, type Pila } from '../support/pila';

type Cuenta = Awaited<ReturnType<typeof cuentaLista>>;
interface FacturaPpd {
  id: string;
  uuid: string;
  total: string;
}

// Amounts compared exactly: cents as bigint, never floats.
const centavos = (s: string): bigint => {
  const [entero, fraccion = ''] = String(s).split('.');
  const resto = fraccion.padEnd(6, '0');
  if (!/^0*$/.test(resto.slice(2))) throw new Error(`${s} tiene más de 2 decimales`);
  return BigInt(entero!) * 100n + BigInt(resto.slice(0, 2));
};
const aTexto = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;

const hoy = () => new Date().toISOString();
const dormir = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Every account issues as the same RFC: without a folio of its own, two invoices sealed in the same second
// are one document to the PAC (307, cfdi_duplicado).
const folio = () => `F${Date.now()}${Math.floor(Math.random() * 1e6)}`;

async function ppd(c: Cuenta): Promise<FacturaPpd> {
  const r = await c.http.post(
    '/v1/facturas',
    facturaNueva(c, { metodo_pago: 'PPD', forma_pago: undefined, folio: folio() }),
  );
  expect(r.status).toBe(201);
  return r.body as FacturaPpd;
}

/** A payment of `[factura, imp_pagado]` pairs, `monto` their exact sum. */
const pago = (c: Cuenta, pagadas: [string, string][], extra: Record<string, unknown> = {}) => ({
  organizacion: c.org,
  fecha_pago: hoy(),
  forma_pago: '03',
  monto: aTexto(pagadas.reduce((t, [, imp]) => t + centavos(imp), 0n)),
  facturas_pagadas: pagadas.map(([factura, imp_pagado]) => ({ factura, imp_pagado })),
  ...extra,
});

/** Once the payment is decided and its CFDI's stamping is no longer pending. */
async function pagoFinal(c: Cuenta, id: string, ms = 90_000) {
  return esperar(async () => {
    const p = await c.http.get(`/v1/pagos/${id}`);
    if (p.body.estado === 'registrando') return undefined;
    if (!p.body.factura_pago) return p.body;
    const cfdi = await c.http.get(`/v1/facturas/${p.body.factura_pago}`);
    return cfdi.body.timbrado.estado === 'pendiente' ? undefined : p.body;
  }, ms);
}

interface FilaLibro {
  pago_id: string;
  num_parcialidad: number;
  imp_saldo_anterior: string;
  imp_pagado: string;
  imp_saldo_insoluto: string;
}

const libroDe = async (pila: Pila, facturaId: string): Promise<FilaLibro[]> =>
  pila
    .db('pagos_facturas')
    .where({ factura_id: facturaId, vigente: true })
    .orderBy('num_parcialidad')
    .select('pago_id', 'num_parcialidad', 'imp_saldo_anterior', 'imp_pagado', 'imp_saldo_insoluto');

/**
 * The ledger of one invoice as a chain: instalments exactly 1..n, each balance before = the previous one's
 * balance after, each after = before − paid, the first before = the total. Returns the last balance.
 */
function verificarCadena(filas: FilaLibro[], total: string): bigint {
  expect(filas.map((f) => f.num_parcialidad)).toEqual(filas.map((_, i) => i + 1));
  let saldo = centavos(total);
  for (const f of filas) {
    expect(centavos(f.imp_saldo_anterior)).toBe(saldo);
    saldo -= centavos(f.imp_pagado);
    expect(centavos(f.imp_saldo_insoluto)).toBe(saldo);
  }
  for (let i = 1; i < filas.length; i++) {
    expect(filas[i]!.imp_saldo_anterior).toBe(filas[i - 1]!.imp_saldo_insoluto);
  }
  return saldo;
}

/** Stamps the sandbox PAC holds for payment CFDIs of an invoice: they name its UUID as IdDocumento. */
const timbresDePagosDe = async (pila: Pila, uuidFactura: string): Promise<string[]> =>
  (
    await pila
      .db('pac_sandbox_timbres')
      .where('tipo_comprobante', 'P')
      .andWhere('xml_timbrado', 'like', `%IdDocumento="${uuidFactura}"%`)
      .select('uuid')
  ).map((f) => String(f.uuid).toUpperCase());

interface Evento {
  tipo: string;
  datos: { id?: string; factura?: { id: string } };
}

async function eventosDe(pila: Pila, cuentaId: string): Promise<Evento[]> {
  const filas = await pila.db('eventos').where({ cuenta_id: cuentaId }).select('tipo', 'datos');
  return filas.map((f: { tipo: string; datos: unknown }) => ({
    tipo: f.tipo,
    datos: (typeof f.datos === 'string' ? JSON.parse(f.datos) : f.datos) as Evento['datos'],
  }));
}

const cuantas = <T>(xs: T[], v: T) => xs.filter((x) => x === v).length;

/**
 * 0 lost, 0 duplicated, in MariaDB for the whole account: exactly the expected payments, every one
 * registered with one ledger row per paid invoice, one `pago.creado` each, one payment CFDI each, and
 * every stamped payment CFDI with one UUID and one `factura.timbrada`.
 */
async function verificarCuenta(
  pila: Pila,
  c: Cuenta,
  pagosEsperados: string[],
  rechazadosPorPac: string[] = [],
) {
  const pagos = (await pila
    .db('pagos')
    .where({ cuenta_id: c.cuentaId })
    .select('id', 'estado', 'solicitud', 'factura_pago_id')) as {
    id: string;
    estado: string;
    solicitud: unknown;
    factura_pago_id: string | null;
  }[];
  expect(pagos.map((p) => p.id).sort()).toEqual([...pagosEsperados].sort());
  // A payment whose CFDI the PAC refused ends `rechazado` (its ledger rows stay, not counting).
  expect(
    pagos.filter((p) => p.estado !== (rechazadosPorPac.includes(p.id) ? 'rechazado' : 'registrado')),
  ).toEqual([]);

  const libro = (await pila.db('pagos_facturas').where({ cuenta_id: c.cuentaId }).select('pago_id')) as {
    pago_id: string;
  }[];
  const idsLibro = libro.map((l) => l.pago_id);
  for (const p of pagos) {
    const s = (typeof p.solicitud === 'string' ? JSON.parse(p.solicitud) : p.solicitud) as {
      facturas_pagadas: unknown[];
    };
    expect(cuantas(idsLibro, p.id)).toBe(s.facturas_pagadas.length);
  }
  expect(libro.length).toBe(pagos.reduce((t, p) => t + cuantas(idsLibro, p.id), 0));

  const cfdis = (await pila
    .db('facturas')
    .where({ cuenta_id: c.cuentaId, tipo: 'pago' })
    .select('id', 'estado', 'uuid')) as { id: string; estado: string; uuid: string | null }[];
  expect(cfdis.map((f) => f.id).sort()).toEqual(pagos.map((p) => p.factura_pago_id).sort());

  const eventos = await eventosDe(pila, c.cuentaId);
  const creados = eventos.filter((e) => e.tipo === 'pago.creado').map((e) => e.datos.id);
  expect([...creados].sort()).toEqual([...pagosEsperados].sort());
  const timbradas = eventos.filter((e) => e.tipo === 'factura.timbrada').map((e) => e.datos.id);
  for (const f of cfdis) {
    expect(cuantas(timbradas, f.id)).toBe(f.estado === 'timbrada' ? 1 : 0);
  }
  const uuids = cfdis.filter((f) => f.uuid).map((f) => f.uuid);
  expect(new Set(uuids).size).toBe(uuids.length);
  return { pagos, cfdis, eventos };
}

describe('pagos simultáneos y fallas del timbrado del CFDI de pago', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila({ timbradoEsperaMs: 15_000 });
  });
  afterAll(() => pila.detener());

  it('20 pagos simultáneos a una factura: parcialidades 1..20 sin huecos ni repeticiones y saldo exacto', async () => {
    const c = await cuentaLista(pila);
    const f = await ppd(c);
    const imp = aTexto(centavos(f.total) / 20n);
    const respuestas = await Promise.all(
      Array.from({ length: 20 }, () => c.http.post('/v1/pagos', pago(c, [[f.id, imp]]))),
    );
    expect(respuestas.map((r) => r.status).filter((s) => s !== 201 && s !== 202)).toEqual([]);
    const ids = respuestas.map((r) => r.body.id as string);
    const finales = await Promise.all(ids.map((id) => pagoFinal(c, id)));
    expect(finales.map((p) => p.estado)).toEqual(ids.map(() => 'timbrada'));

    const filas = await libroDe(pila, f.id);
    expect(filas).toHaveLength(20);
    expect(filas.map((l) => l.pago_id).sort()).toEqual([...ids].sort());
    const saldo = verificarCadena(filas, f.total);
    expect(saldo).toBe(centavos(f.total) - 20n * centavos(imp));

    const leida = await c.http.get(`/v1/facturas/${f.id}`);
    expect(leida.body.saldo_insoluto).toBe(aTexto(saldo));
    expect(leida.body.num_parcialidades).toBe(20);
    // Each answer's figures are the ledger's.
    for (const p of finales) {
      const fila = filas.find((l) => l.pago_id === p.id)!;
      expect(p.facturas_pagadas[0]).toMatchObject({
        num_parcialidad: fila.num_parcialidad,
        imp_saldo_anterior: aTexto(centavos(fila.imp_saldo_anterior)),
        imp_saldo_insoluto: aTexto(centavos(fila.imp_saldo_insoluto)),
      });
    }
    await verificarCuenta(pila, c, ids);
    expect((await timbresDePagosDe(pila, f.uuid)).sort()).toEqual(finales.map((p) => p.uuid).sort());
  }, 300_000);

  it('pagos cruzados [A, B] y [B, A] en 5 rondas simultáneas: sin bloqueo mutuo, sin 5xx, saldos exactos', async () => {
    const c = await cuentaLista(pila);
    const a = await ppd(c);
    const b = await ppd(c);
    const ids: string[] = [];
    const estados: number[] = [];
    for (let ronda = 0; ronda < 5; ronda++) {
      const [uno, dos] = await Promise.all([
        c.http.post(
          '/v1/pagos',
          pago(c, [
            [a.id, '100.00'],
            [b.id, '50.00'],
          ]),
        ),
        c.http.post(
          '/v1/pagos',
          pago(c, [
            [b.id, '70.00'],
            [a.id, '30.00'],
          ]),
        ),
      ]);
      estados.push(uno.status, dos.status);
      ids.push(uno.body.id, dos.body.id);
    }
    expect(estados.filter((s) => s !== 201 && s !== 202)).toEqual([]);
    const finales = await Promise.all(ids.map((id) => pagoFinal(c, id)));
    expect(finales.map((p) => p.estado)).toEqual(ids.map(() => 'timbrada'));

    const saldoA = verificarCadena(await libroDe(pila, a.id), a.total);
    const saldoB = verificarCadena(await libroDe(pila, b.id), b.total);
    expect(saldoA).toBe(centavos(a.total) - 5n * (10000n + 3000n));
    expect(saldoB).toBe(centavos(b.total) - 5n * (5000n + 7000n));
    expect((await c.http.get(`/v1/facturas/${a.id}`)).body).toMatchObject({
      saldo_insoluto: aTexto(saldoA),
      num_parcialidades: 10,
    });
    expect((await c.http.get(`/v1/facturas/${b.id}`)).body).toMatchObject({
      saldo_insoluto: aTexto(saldoB),
      num_parcialidades: 10,
    });
    await verificarCuenta(pila, c, ids);
  }, 300_000);

  it('respuesta del PAC perdida para el CFDI de pago: timbrado una sola vez, con el UUID que guardó el PAC', async () => {
    const c = await cuentaLista(pila);
    const f = await ppd(c);
    const r = await c.http.post('/v1/pagos', pago(c, [[f.id, '500.00']], { serie: 'SANDBOX:PERDIDA' }));
    expect([201, 202]).toContain(r.status);
    const final = await pagoFinal(c, r.body.id);
    expect(final.estado).toBe('timbrada');
    const cfdi = (await c.http.get(`/v1/facturas/${final.factura_pago}`)).body;
    expect(cfdi).toMatchObject({ estado: 'timbrada', serie: 'SANDBOX:PERDIDA', uuid: final.uuid });
    expect(cfdi.timbrado.intentos).toBeGreaterThanOrEqual(2);
    expect(await timbresDePagosDe(pila, f.uuid)).toEqual([final.uuid]);
    verificarCadena(await libroDe(pila, f.id), f.total);
    await verificarCuenta(pila, c, [r.body.id]);
  }, 180_000);

  it('el PAC rechaza el CFDI de pago: 422 timbrado_rechazado con factura y pago; el pago no cuenta y su parcialidad queda libre', async () => {
    const c = await cuentaLista(pila);
    const f = await ppd(c);
    const r = await c.http.post(
      '/v1/pagos',
      pago(c, [[f.id, '1000.00']], { serie: 'SANDBOX:RECHAZO=CFDI40145' }),
    );
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ tipo: 'regla_de_negocio', codigo: 'timbrado_rechazado' });
    const { factura: cfdiId, pago: pagoId } = r.body.error as { factura: string; pago: string };
    expect(cfdiId).toMatch(/^fac_/);
    expect(pagoId).toMatch(/^pago_/);
    expect(r.body.error.mensaje).toContain('CFDI40145');

    const p = (await c.http.get(`/v1/pagos/${pagoId}`)).body;
    expect(p).toMatchObject({
      estado: 'rechazado',
      factura_pago: cfdiId,
      uuid: null,
      error: { codigo: 'timbrado_rechazado' },
      facturas_pagadas: [{ factura: f.id, num_parcialidad: 1, imp_pagado: '1000.00', vigente: false }],
    });
    const cfdi = (await c.http.get(`/v1/facturas/${cfdiId}`)).body;
    expect(cfdi).toMatchObject({
      tipo: 'pago',
      estado: 'borrador',
      uuid: null,
      pago: pagoId,
      timbrado: { estado: 'fallido', ultimo_error: { codigo: 'CFDI40145' } },
    });
    // The balance was given back in the rejection's own transaction.
    expect((await c.http.get(`/v1/facturas/${f.id}`)).body).toMatchObject({
      saldo_insoluto: f.total,
      num_parcialidades: 0,
    });
    const eventos = await eventosDe(pila, c.cuentaId);
    const fallidos = (ev: typeof eventos) =>
      ev.filter((e) => e.tipo === 'factura.timbrado_fallido' && e.datos.id === cfdiId);
    expect(fallidos(eventos)).toHaveLength(1);
    expect(eventos.filter((e) => e.tipo === 'pago.creado').map((e) => e.datos.id)).toEqual([pagoId]);

    // Its CFDI cannot be stamped any more: the payment is registered again instead.
    const otra = await c.http.post(`/v1/facturas/${cfdiId}/timbrar`);
    expect(otra.status).toBe(409);
    expect(otra.body.error).toMatchObject({ codigo: 'cfdi_de_pago_rechazado', parametro: 'id' });
    expect(fallidos(await eventosDe(pila, c.cuentaId))).toHaveLength(1);
    expect(await timbresDePagosDe(pila, f.uuid)).toEqual([]);

    const nuevo = await c.http.post('/v1/pagos', pago(c, [[f.id, '1000.00']]));
    expect(nuevo.status).toBe(201);
    expect(nuevo.body.facturas_pagadas[0]).toMatchObject({ num_parcialidad: 1, vigente: true });
    verificarCadena(await libroDe(pila, f.id), f.total);
    await verificarCuenta(pila, c, [pagoId, nuevo.body.id], [pagoId]);
  }, 180_000);

  it('la misma Clave-Idempotencia dos veces a la vez: un solo pago en el libro', async () => {
    const c = await cuentaLista(pila);
    const f = await ppd(c);
    const cuerpo = pago(c, [[f.id, '250.00']]);
    const clave = { 'Clave-Idempotencia': `pago-${Date.now()}-${Math.random()}` };
    const [uno, dos] = await Promise.all([
      c.http.post('/v1/pagos', cuerpo, clave),
      c.http.post('/v1/pagos', cuerpo, clave),
    ]);
    const estados = [uno.status, dos.status].sort();
    // The second either waits for nothing (409 while the first runs) or replays the first's answer.
    expect([201, 202]).toContain(estados[0]);
    expect([201, 202, 409]).toContain(estados[1]);
    const ganador = [uno, dos].find((r) => r.status < 300)!;
    for (const r of [uno, dos]) {
      if (r.status === 409) expect(r.body.error.codigo).toBe('solicitud_en_curso');
      else expect(r.body.id).toBe(ganador.body.id);
    }
    const final = await pagoFinal(c, ganador.body.id);
    expect(final.estado).toBe('timbrada');
    const repetida = await c.http.post('/v1/pagos', cuerpo, clave);
    expect(repetida.headers.get('idempotencia-repetida')).toBe('true');
    expect(repetida.body.id).toBe(ganador.body.id);

    const filas = await libroDe(pila, f.id);
    expect(filas.map((l) => l.pago_id)).toEqual([ganador.body.id]);
    verificarCadena(filas, f.total);
    await verificarCuenta(pila, c, [ganador.body.id]);
  }, 180_000);
});

describe('worker muerto (SIGKILL) después del libro y antes del timbrado del CFDI de pago', () => {
  let pila: Pila;
  let c: Cuenta;
  const hijos: ChildProcess[] = [];
  const lanzarWorker = async () => {
    const hijo = await lanzarWorkerProceso(pila);
    hijos.push(hijo);
    return hijo;
  };

  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, timbradoEsperaMs: 2000 });
    c = await cuentaLista(pila);
  });
  afterAll(async () => {
    await fallasPac(pila, 'normal').catch(() => undefined);
    for (const h of hijos) if (h.exitCode === null) h.kill('SIGKILL');
    await pila.detener();
  });

  it('otro worker retoma: el CFDI de pago queda timbrado una vez y el libro se escribió una vez', async () => {
    const primero = await lanzarWorker();
    const f = await esperar(async () => {
      const r = await c.http.post(
        '/v1/facturas',
        facturaNueva(c, { metodo_pago: 'PPD', forma_pago: undefined, folio: folio() }),
      );
      return r.status === 201 ? (r.body as FacturaPpd) : undefined;
    }, 60_000);

    await fallasPac(pila, 'caido');
    const r = await c.http.post('/v1/pagos', pago(c, [[f.id, '1234.56']]));
    expect(r.status).toBe(202);
    const pagoId = r.body.id as string;
    // The ledger step committed; the stamping retries against a PAC that is down.
    const registrado = await esperar(async () => {
      const fila = await pila.db('pagos').where({ id: pagoId }).first();
      return fila?.estado === 'registrado' ? (fila as { factura_pago_id: string }) : undefined;
    }, 30_000);
    expect(await libroDe(pila, f.id)).toHaveLength(1);
    await esperar(async () => {
      const cfdi = await pila.db('facturas').where({ id: registrado.factura_pago_id }).first();
      return cfdi.timbrado_intentos >= 1 ? true : undefined;
    }, 30_000);
    expect((await pila.db('facturas').where({ id: registrado.factura_pago_id }).first()).estado).toBe(
      'borrador',
    );

    const fin = new Promise((res) => primero.once('exit', res));
    primero.kill('SIGKILL');
    await fin;
    await fallasPac(pila, 'normal');
    await dormir(500);
    await lanzarWorker();

    const final = await pagoFinal(c, pagoId, 120_000);
    expect(final).toMatchObject({ estado: 'timbrada', factura_pago: registrado.factura_pago_id });
    // The workflow ends (PDF included) on the second worker.
    expect(await pila.cliente.workflow.getHandle(`pago:${pagoId}`).result()).toBe('timbrada');
    expect(final.facturas_pagadas[0]).toMatchObject({ num_parcialidad: 1, imp_pagado: '1234.56' });
    expect(await timbresDePagosDe(pila, f.uuid)).toEqual([final.uuid]);
    const filas = await libroDe(pila, f.id);
    expect(filas.map((l) => l.pago_id)).toEqual([pagoId]);
    expect(verificarCadena(filas, f.total)).toBe(centavos(f.total) - 123456n);
    await verificarCuenta(pila, c, [pagoId]);
  }, 240_000);
});
