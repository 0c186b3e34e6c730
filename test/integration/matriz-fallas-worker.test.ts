import type { ChildProcess } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import {
  balanceDeCuenta,
  bloquearFila,
  lanzarWorkerProceso,
  llamadasPac,
  matar,
  reportarCaso,
  timbresDePagosDe,
  timbresDelFolio,
} from '../support/fallas';
import { iniciarPila, type Pila } from '../support/pila';
import { directorioTemporal } from '../support/xslt';

/**
 * Fault matrix, worker half (issue 13, point 4): the real worker process (dist/worker/main.js) is killed
 * with SIGKILL at each point of a stamping (before the PAC call, during it, after the PAC answered but
 * before the stamp is written, after the write but before the PDF) and of a payment's ledger step; another
 * worker process takes over. Pass: the invoice ends stamped with one UUID at the PAC, one event, its PDF.
 * The points are reached deterministically: a row lock held by the test stops the worker at the write it
 * is about to make (seen in information_schema.innodb_trx), the sandbox PAC's call counter shows a call
 * open, and a Chromium that cannot start keeps the PDF from being written.
 */

type Cuenta = Awaited<ReturnType<typeof cuentaLista>>;

const folio = () => `W${Date.now()}${Math.floor(Math.random() * 1e6)}`;

describe('matriz de fallas: worker muerto (SIGKILL) en cada punto del timbrado', () => {
  let pila: Pila;
  const hijos: ChildProcess[] = [];
  const temporal = directorioTemporal('matriz-worker-');

  const lanzar = async (env: Record<string, string> = {}) => {
    const hijo = await lanzarWorkerProceso(pila, env);
    hijos.push(hijo);
    return hijo;
  };

  beforeAll(async () => {
    // No worker in this process: the workers are processes this file starts and kills.
    pila = await iniciarPila({ worker: false, timbradoEsperaMs: 1000 });
  });
  afterEach(async () => {
    for (const h of hijos.splice(0)) await matar(h);
  });
  afterAll(async () => {
    await pila.detener();
    temporal.borrar();
  });

  const fila = async (id: string) =>
    (await pila.db('facturas').where({ id }).first()) as {
      estado: string;
      uuid: string | null;
      xml_sellado: string | null;
      timbrado_intentos: number;
      pdf: Buffer | null;
    };

  const llamadasTimbrado = async () => {
    const l = await llamadasPac(pila);
    return (l.stamp?.recibidas ?? 0) + (l.stamped?.recibidas ?? 0);
  };

  /** The second worker's whole run: the workflow ends (PDF included), then what was lost or duplicated. */
  async function terminarYContar(
    caso: string,
    fallas: string,
    c: Cuenta,
    id: string,
    f: string,
    pac0: number,
  ) {
    expect(await pila.cliente.workflow.getHandle(`timbrado:${id}`).result()).toBe('timbrada');
    const final = (await c.http.get(`/v1/facturas/${id}`)).body;
    expect(final.estado).toBe('timbrada');
    expect((await c.http.get(`/v1/facturas/${id}/pdf`)).status).toBe(200);
    const b = await balanceDeCuenta(pila, c.cuentaId, [{ id, folio: f, final: 'timbrada' }]);
    reportarCaso(caso, {
      fallas,
      solicitudes: 1,
      workers: 2,
      llamadas_pac: (await llamadasTimbrado()) - pac0,
      intentos: b.intentos[0]!,
      eventos: b.eventos[0]!.join(','),
      perdidas: b.perdidas,
      duplicados: b.duplicados,
    });
    expect({ perdidas: b.perdidas, duplicados: b.duplicados }).toEqual({ perdidas: 0, duplicados: 0 });
    expect(b.eventos[0]).toEqual(['factura.timbrada']);
    expect(await timbresDelFolio(pila, f)).toEqual([final.uuid]);
    return b;
  }

  it('antes de la llamada al PAC (sellando): nada llegó al PAC; el segundo worker sella y timbra una vez', async () => {
    const c = await cuentaLista(pila);
    const f = folio();
    const pac0 = await llamadasTimbrado();
    // No worker yet: the invoice is accepted and waits, pending, for one.
    const r = await c.http.post('/v1/facturas', facturaNueva(c, { folio: f }));
    expect(r.status).toBe(202);
    const id = r.body.id as string;

    const candado = await bloquearFila(pila, 'facturas', id);
    try {
      const primero = await lanzar();
      // The first worker built and sealed the CFDI and now waits to store the sealed XML.
      await esperar(async () => ((await candado.esperando()) ? true : undefined), 60_000);
      await matar(primero);
    } finally {
      await candado.soltar();
    }
    // Nothing reached the PAC. The sealed XML may still land: MariaDB finishes the dead worker's UPDATE once
    // the lock is free (it notices the closed connection afterwards); the next worker then sends those bytes.
    expect(await llamadasTimbrado()).toBe(pac0);
    const escrita = await fila(id);
    expect(escrita).toMatchObject({ estado: 'borrador', uuid: null });
    const sellada = escrita.xml_sellado !== null;
    // The seal's write also counts the PAC attempt about to follow it (timbrarDeUnaVez): counted only if it
    // landed, and then the next worker asks the PAC for a stamp before sending (it finds none).
    expect(escrita.timbrado_intentos).toBe(sellada ? 1 : 0);

    await lanzar();
    const b = await terminarYContar(
      'sigkill-antes-del-pac',
      `bloqueo_de_fila+SIGKILL sello_escrito_tras_la_muerte=${sellada ? 'si' : 'no'}`,
      c,
      id,
      f,
      pac0,
    );
    expect(b.intentos[0]).toBe(sellada ? 2 : 1);
  }, 240_000);

  it('durante la llamada al PAC: el PAC timbra tras la muerte del worker; el segundo recupera ese UUID', async () => {
    const c = await cuentaLista(pila);
    const f = folio();
    const pac0 = await llamadasTimbrado();
    const primero = await lanzar();
    // The PAC takes 8 s: the worker dies while waiting for its answer, and the PAC stamps anyway.
    const r = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { folio: f, serie: 'SANDBOX:LATENCIA=8000' }),
    );
    expect(r.status).toBe(202);
    const id = r.body.id as string;
    await esperar(async () => ((await llamadasPac(pila)).stamp?.en_curso ? true : undefined), 60_000);
    expect(await timbresDelFolio(pila, f)).toEqual([]);
    await matar(primero);
    expect((await fila(id)).uuid).toBeNull();

    await lanzar();
    const b = await terminarYContar(
      'sigkill-durante-el-pac',
      'SANDBOX:LATENCIA=8000+SIGKILL',
      c,
      id,
      f,
      pac0,
    );
    expect(b.intentos[0]).toBeGreaterThanOrEqual(2);
  }, 240_000);

  it('después de la respuesta del PAC y antes de escribir el timbre: el segundo consulta al PAC y guarda el mismo UUID', async () => {
    const c = await cuentaLista(pila);
    const f = folio();
    const pac0 = await llamadasTimbrado();
    const primero = await lanzar();
    const r = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { folio: f, serie: 'SANDBOX:LATENCIA=5000' }),
    );
    expect(r.status).toBe(202);
    const id = r.body.id as string;
    // The call is open at the PAC (the attempt was counted before it): lock the row before the answer.
    await esperar(async () => ((await llamadasPac(pila)).stamp?.en_curso ? true : undefined), 60_000);
    const candado = await bloquearFila(pila, 'facturas', id);
    try {
      await esperar(async () => ((await timbresDelFolio(pila, f)).length ? true : undefined), 60_000);
      // The worker has the PAC's answer and waits to write it.
      await esperar(async () => ((await candado.esperando()) ? true : undefined), 60_000);
      await matar(primero);
    } finally {
      await candado.soltar();
    }
    expect(await fila(id)).toMatchObject({ estado: 'borrador', uuid: null });
    expect(await timbresDelFolio(pila, f)).toHaveLength(1);

    await lanzar();
    const b = await terminarYContar(
      'sigkill-antes-de-escribir',
      'SANDBOX:LATENCIA=5000+bloqueo_de_fila+SIGKILL',
      c,
      id,
      f,
      pac0,
    );
    expect(b.intentos[0]).toBeGreaterThanOrEqual(2);
  }, 240_000);

  it('después de escribir el timbre y antes del PDF: el segundo worker solo genera el PDF', async () => {
    // A "Chromium" that cannot start: the first worker stamps, then fails at every PDF attempt.
    const chromiumRoto = join(temporal.ruta, 'chromium-roto');
    writeFileSync(chromiumRoto, '#!/bin/sh\nexit 1\n');
    chmodSync(chromiumRoto, 0o755);
    const c = await cuentaLista(pila);
    const f = folio();
    const pac0 = await llamadasTimbrado();
    const primero = await lanzar({ CHROMIUM_PATH: chromiumRoto });
    const r = await c.http.post('/v1/facturas', facturaNueva(c, { folio: f }));
    expect([201, 202]).toContain(r.status);
    const id = r.body.id as string;
    // Stamped and written; the stamping's PDF render has already failed at least once on this worker.
    const handle = pila.cliente.workflow.getHandle(`timbrado:${id}`);
    await esperar(async () => {
      const pendientes = (await handle.describe()).raw.pendingActivities ?? [];
      const pdf = pendientes.find((p) => p.activityType?.name === 'generarPdf');
      return pdf && (pdf.attempt ?? 0) >= 2 ? true : undefined;
    }, 90_000);
    await matar(primero);
    const escrita = await fila(id);
    expect(escrita).toMatchObject({ estado: 'timbrada', pdf: null });
    expect(await timbresDelFolio(pila, f)).toEqual([escrita.uuid]);

    await lanzar();
    const b = await terminarYContar('sigkill-antes-del-pdf', 'chromium_roto+SIGKILL', c, id, f, pac0);
    expect(b.intentos[0]).toBe(1);
    expect((await fila(id)).uuid).toBe(escrita.uuid);
  }, 240_000);

  it('durante el registro de un pago (paso del libro): un pago, una parcialidad, un CFDI de pago timbrado', async () => {
    const c = await cuentaLista(pila);
    const primero = await lanzar();
    const fPpd = folio();
    const ppd = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { metodo_pago: 'PPD', forma_pago: undefined, folio: fPpd }),
    );
    expect([201, 202]).toContain(ppd.status);
    const facturaId = ppd.body.id as string;
    expect(await pila.cliente.workflow.getHandle(`timbrado:${facturaId}`).result()).toBe('timbrada');
    const uuidFactura = (await fila(facturaId)).uuid!;
    const pac0 = await llamadasTimbrado();

    // The ledger step locks the paid invoice first: held here, the worker dies waiting for it.
    const candado = await bloquearFila(pila, 'facturas', facturaId);
    let pagoId: string;
    try {
      const r = await c.http.post('/v1/pagos', {
        organizacion: c.org,
        fecha_pago: new Date().toISOString(),
        forma_pago: '03',
        monto: '1234.56',
        facturas_pagadas: [{ factura: facturaId, imp_pagado: '1234.56' }],
      });
      expect(r.status).toBe(202);
      pagoId = r.body.id as string;
      await esperar(async () => ((await candado.esperando()) ? true : undefined), 60_000);
      await matar(primero);
    } finally {
      await candado.soltar();
    }
    expect((await pila.db('pagos').where({ id: pagoId }).first()).estado).toBe('registrando');
    expect(await pila.db('pagos_facturas').where({ pago_id: pagoId })).toEqual([]);

    await lanzar();
    expect(await pila.cliente.workflow.getHandle(`pago:${pagoId}`).result()).toBe('timbrada');
    const p = (await c.http.get(`/v1/pagos/${pagoId}`)).body;
    expect(p).toMatchObject({ estado: 'timbrada' });
    expect(p.facturas_pagadas).toEqual([
      expect.objectContaining({ factura: facturaId, num_parcialidad: 1, imp_pagado: '1234.56' }),
    ]);

    // The whole account: the PPD invoice and the payment CFDI, each stamped once with its one event.
    const b = await balanceDeCuenta(pila, c.cuentaId, [
      { id: facturaId, folio: fPpd, final: 'timbrada' },
      { id: p.factura_pago as string, pagaA: uuidFactura, final: 'timbrada' },
    ]);
    const pagos = await pila.db('pagos').where({ cuenta_id: c.cuentaId }).select('id', 'estado');
    const libro = await pila.db('pagos_facturas').where({ cuenta_id: c.cuentaId }).select('pago_id');
    const creados = await pila
      .db('eventos')
      .where({ cuenta_id: c.cuentaId, tipo: 'pago.creado' })
      .whereRaw("JSON_VALUE(datos, '$.id') = ?", [pagoId]);
    const perdidas =
      b.perdidas + (pagos.length < 1 ? 1 : 0) + (libro.length < 1 ? 1 : 0) + (creados.length < 1 ? 1 : 0);
    const duplicados =
      b.duplicados +
      Math.max(0, pagos.length - 1) +
      Math.max(0, libro.length - 1) +
      Math.max(0, creados.length - 1);
    reportarCaso('sigkill-registro-de-pago', {
      fallas: 'bloqueo_de_fila+SIGKILL',
      solicitudes: 2,
      workers: 2,
      llamadas_pac: (await llamadasTimbrado()) - pac0,
      intentos: b.intentos[1]!,
      eventos: ['pago.creado', ...b.eventos[1]!].join(','),
      perdidas,
      duplicados,
    });
    expect({ perdidas, duplicados }).toEqual({ perdidas: 0, duplicados: 0 });
    expect(pagos).toEqual([{ id: pagoId, estado: 'registrado' }]);
    expect(await timbresDePagosDe(pila, uuidFactura)).toEqual([p.uuid]);
  }, 300_000);
});
