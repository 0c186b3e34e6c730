import { randomUUID } from 'node:crypto';
import { crearKnex, type Knex } from '../../db/conexion';
import { clienteHttp, type ClienteHttp, type Respuesta } from '../support/cliente-http';
import { VIGENCIA_LECTURA_MS } from '../../api/middleware/limite';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { timbresDelFolio, timbresDePagosDe } from '../support/fallas';
import type { Pila } from '../support/pila';
import { receptorWebhooks } from '../support/receptor-webhooks';
import { Client, Connection } from '@temporalio/client';
import { idsProgramaciones } from '../../temporal/programaciones';
import { baseAparte, iniciarServicioReplicado, type ServicioReplicado } from '../support/servicio-replicado';
import { iniciarTemporalProduccion, type TemporalProduccion } from '../support/temporal-produccion';

/**
 * Scale-out (issue 25): the service as `make up` runs it with API_REPLICAS=2 WORKER_REPLICAS=2 PDF_REPLICAS=2
 * (scripts/replicas.ts: real processes from dist/, HAProxy on one address) on the production-grade Temporal. A
 * burst of invoices, PPD invoices with their payments and webhook events; mid-burst one API, one worker and one
 * PDF worker die by SIGKILL and are not restarted: the survivors must take over everything (restarts are the
 * reinicios-* and matriz-fallas-worker files' business, and a new worker would only add its start-up here).
 * Clients retry network errors, 5xx, 409 solicitud_en_curso and 429 with the same Clave-Idempotencia until the
 * answer is final. Pass: nothing lost, no UUID twice (MySQL and the PAC's own store), every operation final, every
 * event delivered; idempotency and the per-key rate limit hold across replicas (MySQL is what they share).
 *
 * What the wait after the kills is made of (workflow options untouched): a stamping, payment or first delivery
 * attempt runs its steps as local activities inside a workflow task, so the killed worker's tasks come back after
 * the workflow task timeout (10 s, Temporal's default) and a cached workflow's next task after the sticky queue's
 * schedule-to-start timeout (10 s, the SDK's default); a stamping already retrying as a regular activity after the
 * PAC's heartbeat timeout (5 s). The killed PDF worker's render comes back after its heartbeat timeout (30 s,
 * workflows/pdf.ts) unless a read asks for the PDF first, which this test does: that read is then served after
 * the sticky timeout. So the 10 s timeouts dominate here, the PDF's 30 s in a deployment nobody reads from.
 */

const REPLICAS = { api: 2, worker: 2, pdf: 2 };
const RAFAGA = 20;
const LLAVES = 10;
const FACTURAS_PUE = 20;
const CADENAS_PPD = 10;
const CARRILES = 6;
/** Accepted invoices after which the kills land. */
const MATAR_TRAS = 10;

const dormir = (ms: number) => new Promise((r) => setTimeout(r, ms));
const codigo = (r: Respuesta) => (r.body as { error?: { codigo?: string } })?.error?.codigo;

/** Retryable: the request may not have been served (network, 5xx), is still running, or was rate limited. */
const reintentable = (r: Respuesta) =>
  r.status >= 500 || r.status === 429 || (r.status === 409 && codigo(r) === 'solicitud_en_curso');

/**
 * Until a final answer: a network error or a retryable answer is retried (after its Retry-After, capped, or
 * 200 ms); a POST keeps its Clave-Idempotencia, so a retry never creates a second resource.
 */
async function hastaFinal(
  pedir: () => Promise<Respuesta>,
  cuenta: { reintentos: number },
  ms = 90_000,
): Promise<Respuesta> {
  const limite = Date.now() + ms;
  for (;;) {
    let r: Respuesta | undefined;
    try {
      r = await pedir();
      if (!reintentable(r)) return r;
    } catch {
      // The connection was refused or cut: retried like a 5xx.
    }
    if (Date.now() > limite) throw new Error(`sin respuesta final: ${r?.status} ${JSON.stringify(r?.body)}`);
    cuenta.reintentos++;
    const espera = Number(r?.headers.get('retry-after') ?? 0);
    await dormir(espera > 0 ? Math.min(espera, 2) * 1000 : 200);
  }
}

describe('escala: 2 API, 2 workers y 2 workers de PDF detrás de HAProxy, con un proceso de cada tipo muerto a mitad de la ráfaga', () => {
  let temporal: TemporalProduccion;
  let servicio: ServicioReplicado;
  let db: Knex;
  let base: Awaited<ReturnType<typeof baseAparte>>;
  let temporalCliente: Client;
  const t0 = Date.now();
  const tiempos: Record<string, number> = {};
  const marcar = (fase: string) => (tiempos[fase] = Math.round((Date.now() - t0) / 100) / 10);

  beforeAll(async () => {
    // Both take seconds, mostly waiting: the server's start and the catalogs' copy overlap.
    [temporal, base] = await Promise.all([
      iniciarTemporalProduccion(),
      baseAparte(process.env.DATABASE_URL!),
    ]);
    db = crearKnex(base.url);
    temporalCliente = new Client({ connection: await Connection.connect({ address: temporal.address }) });
    marcar('temporal');
  }, 180_000);
  // A hook of its own: on a loaded machine each half may take minutes.
  beforeAll(async () => {
    servicio = await iniciarServicioReplicado({
      temporalAddress: temporal.address,
      databaseUrl: base.url,
      replicas: REPLICAS,
      entorno: {
        LIMITE_SOLICITUDES_RAFAGA: String(RAFAGA),
        LIMITE_SOLICITUDES_POR_SEGUNDO: '1',
        LIMITE_AUTENTICACIONES_FALLIDAS: '3',
        LIMITE_AUTENTICACIONES_FALLIDAS_VENTANA_MS: '4000',
        // The stamping takes a while at the PAC, so the worker dies with calls open.
        PAC_SANDBOX_LATENCIA_MS: '300',
      },
    });
    marcar('procesos');
  }, 180_000);
  afterAll(async () => {
    await servicio?.detener();
    await temporalCliente?.connection.close();
    await temporal?.detener();
    await db?.destroy();
    await base?.borrar();
    process.stderr.write(
      `\nescala: segundos desde el inicio ${JSON.stringify(tiempos)}; arranques (ms) ${JSON.stringify(servicio?.arranquesMs)}\n`,
    );
  });

  const contexto = () => ({ db, url: servicio.url }) as Pick<Pila, 'db' | 'url'>;

  it('límites compartidos: la ráfaga de una llave y los fallos de una dirección valen para las dos réplicas', async () => {
    const c = await cuentaLista(contexto());
    // A key of its own: its bucket starts full (the account's first key paid for the setup above).
    const llave = (await c.http.post('/v1/llaves_api', { nombre: 'ráfaga', modo: 'test' })).body
      .secreto as string;
    const [api1, api2] = [servicio.apis.api1!, servicio.apis.api2!];
    const directa = (url: string) => clienteHttp(url, llave);
    const inicio = Date.now();
    const respuestas = await Promise.all(
      Array.from({ length: 2 * RAFAGA }, (_, i) => directa(i % 2 ? api2 : api1).get('/v1/cuenta')),
    );
    const segundos = (Date.now() - inicio) / 1000;
    const aceptadas = respuestas.filter((r) => r.status === 200).length;
    // Each replica alone would have granted RAFAGA; a token comes back only after a whole second (1 per second),
    // so a burst answered within the second gets exactly RAFAGA.
    expect({ segundos, aceptadas }).toEqual({ segundos, aceptadas: segundos < 1 ? RAFAGA : aceptadas });
    expect(aceptadas).toBeGreaterThanOrEqual(RAFAGA);
    expect(aceptadas).toBeLessThanOrEqual(RAFAGA + Math.floor(segundos));
    expect(respuestas.filter((r) => ![200, 429].includes(r.status))).toEqual([]);
    for (const r of respuestas.filter((x) => x.status === 429)) {
      expect(codigo(r)).toBe('limite_de_solicitudes_excedido');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
    }
    // Through the balancer too, until the bucket refills.
    const despues = await clienteHttp(servicio.url, llave).get('/v1/cuenta');
    expect(despues.status).toBe(429);
    await dormir(Number(despues.headers.get('retry-after')) * 1000);
    expect((await directa(api2).get('/v1/cuenta')).status).toBe(200);

    // Failed authentications: three on api1 block the address on api2 too, even with a valid key, once api2's
    // last read of it is a second old (VIGENCIA_LECTURA_MS); each replica alone would never block it on api2.
    const invalida = clienteHttp(api1, 'sk_test_' + 'x'.repeat(40));
    for (let i = 0; i < 3; i++) expect((await invalida.get('/v1/cuenta')).status).toBe(401);
    const bloqueada = await esperar(async () => {
      const r = await clienteHttp(api2, c.secreto).get('/v1/cuenta');
      return r.status === 429 ? r : (await dormir(100), undefined);
    }, VIGENCIA_LECTURA_MS + 2500);
    expect(codigo(bloqueada)).toBe('demasiados_intentos_fallidos');
    await dormir(Number(bloqueada.headers.get('retry-after')) * 1000);
    expect((await clienteHttp(api2, c.secreto).get('/v1/cuenta')).status).toBe(200);
    marcar('limites');
  }, 60_000);

  it('ráfaga con SIGKILL de una API, un worker y un worker de PDF: nada perdido ni duplicado, todo final y entregado', async () => {
    const c = await cuentaLista(contexto());
    const receptor = await receptorWebhooks();
    try {
      const wh = await c.http.post('/v1/webhooks', {
        url: receptor.url,
        eventos_suscritos: ['factura.timbrada', 'pago.creado'],
      });
      expect(wh.status).toBe(201);
      // One key per lane: the burst is many clients of one account, each within its own bucket.
      const llaves = [c.secreto];
      for (let i = 1; i < LLAVES; i++)
        llaves.push(
          (await c.http.post('/v1/llaves_api', { nombre: `carril ${i}`, modo: 'test' })).body.secreto,
        );
      const clientes = llaves.map((k) => clienteHttp(servicio.url, k));
      const cuenta = { reintentos: 0 };

      // Idempotency across replicas: one key sent at once to both replicas directly makes one invoice.
      const clave = randomUUID();
      const folioDoble = `ID${Date.now() % 1e8}`;
      const cuerpo = facturaNueva(c, { folio: folioDoble });
      const dobles = await Promise.all(
        [servicio.apis.api1!, servicio.apis.api2!].map((url) =>
          hastaFinal(
            () => clienteHttp(url, c.secreto).post('/v1/facturas', cuerpo, { 'Clave-Idempotencia': clave }),
            cuenta,
          ),
        ),
      );
      expect(dobles.map((r) => [201, 202].includes(r.status))).toEqual([true, true]);
      expect(new Set(dobles.map((r) => r.body.id)).size).toBe(1);
      const repetida = await c.http.post('/v1/facturas', cuerpo, { 'Clave-Idempotencia': clave });
      expect(repetida.headers.get('idempotencia-repetida')).toBe('true');
      expect(repetida.body.id).toBe(dobles[0]!.body.id);
      const [una] = await db('facturas').where({ cuenta_id: c.cuentaId }).count({ n: '*' });
      expect(Number(una?.n)).toBe(1);

      // The burst: PUE invoices, and PPD invoices each followed by a payment once stamped.
      const sello = Date.now() % 1e7;
      type Trabajo = { tipo: 'pue' | 'ppd'; folio: string };
      const trabajos: Trabajo[] = [
        ...Array.from({ length: FACTURAS_PUE }, (_, i) => ({
          tipo: 'pue' as const,
          folio: `E${sello}U${i}`,
        })),
        ...Array.from({ length: CADENAS_PPD }, (_, i) => ({ tipo: 'ppd' as const, folio: `E${sello}P${i}` })),
      ].sort(() => Math.random() - 0.5);
      const facturas = new Map<string, string>([[dobles[0]!.body.id as string, folioDoble]]);
      const pagos: { id: string; factura: string }[] = [];
      let aceptadas = 0;
      let puerta: Promise<void> | undefined;
      let muertes: Promise<void> | undefined;
      let muerte = 0;
      let enVuelo = 0;
      let enVueloAlMatar = 0;

      /** Stop starting requests, let every create in flight commit (its key then names it), kill, go on. */
      const matar = async () => {
        let abrir!: () => void;
        puerta = new Promise((r) => (abrir = r));
        enVueloAlMatar = enVuelo;
        // A create killed between claiming its key and committing would keep the key `en_curso` for 60 s
        // (ABANDONO_MS): its retries answer 409 until then. Killing once every claimed key names its invoice
        // keeps the test within its budget; such a request is still answered, a minute later. The pause lets a
        // request already on its way claim its key first.
        await dormir(300);
        await esperar(async () => {
          const sinRecurso = await db('idempotencia')
            .where({ cuenta_id: c.cuentaId, estado: 'en_curso' })
            .whereNull('recurso')
            .count({ n: '*' });
          return Number(sinRecurso[0]!.n) === 0 ? true : undefined;
        }, 20_000);
        await Promise.all(['api1', 'worker1', 'pdf1'].map((n) => servicio.matar(n)));
        muerte = Date.now();
        marcar('sigkill');
        abrir();
      };

      const crear = async (http: ClienteHttp, ruta: string, datos: unknown) => {
        await puerta;
        const clave = randomUUID();
        enVuelo++;
        const r = await hastaFinal(
          () => http.post(ruta, datos, { 'Clave-Idempotencia': clave }),
          cuenta,
        ).finally(() => enVuelo--);
        expect({ ruta, status: r.status, codigo: codigo(r) }).toEqual({
          ruta,
          status: r.status === 202 ? 202 : 201,
          codigo: undefined,
        });
        return r.body as { id: string; estado: string; total: string };
      };

      const carril = async (http: ClienteHttp) => {
        for (let t = trabajos.shift(); t; t = trabajos.shift()) {
          const extra = t.tipo === 'ppd' ? { metodo_pago: 'PPD', forma_pago: undefined } : {};
          const f = await crear(http, '/v1/facturas', facturaNueva(c, { folio: t.folio, ...extra }));
          facturas.set(f.id, t.folio);
          if (++aceptadas === MATAR_TRAS) muertes = matar();
          if (t.tipo === 'pue') continue;
          const timbrada = await esperar(async () => {
            await puerta;
            const r = await hastaFinal(() => http.get(`/v1/facturas/${f.id}`), cuenta);
            return r.body.estado === 'timbrada' ? r.body : undefined;
          }, 60_000);
          const p = await crear(http, '/v1/pagos', {
            organizacion: c.org,
            fecha_pago: new Date().toISOString(),
            forma_pago: '03',
            monto: '100.00',
            facturas_pagadas: [{ factura: f.id, imp_pagado: '100.00' }],
          });
          expect(timbrada.total).toBe(f.total);
          pagos.push({ id: p.id, factura: f.id });
        }
      };
      // The account's first key paid for the setup: the lanes use fresh ones.
      await Promise.all(clientes.slice(1, 1 + CARRILES).map(carril));
      await muertes;
      marcar('rafaga');
      expect(muertes).toBeDefined();
      expect([facturas.size, pagos.length]).toEqual([1 + FACTURAS_PUE + CADENAS_PPD, CADENAS_PPD]);

      // Every operation final, through the surviving replica (requests spread over the keys).
      let turno = 0;
      const cliente = () => clientes[turno++ % clientes.length]!;
      const final = async <T>(ruta: string, listo: (b: any) => T | undefined) =>
        esperar(async () => listo((await hastaFinal(() => cliente().get(ruta), cuenta)).body), 60_000);
      const pagados = await Promise.all(
        pagos.map((p) => final(`/v1/pagos/${p.id}`, (b) => (b.estado === 'timbrada' ? b : undefined))),
      );
      const facturasPago = pagados.map((p) => p.factura_pago as string);
      const todas = [...facturas.keys(), ...facturasPago];
      const leidas = await Promise.all(
        todas.map((id) => final(`/v1/facturas/${id}`, (b) => (b.estado === 'timbrada' ? b : undefined))),
      );
      marcar('finales');
      // The PDF of each one, read (and so rendered now if the killed PDF worker held it).
      const pdfs = await Promise.all(
        todas.map(async (id) => {
          const r = await esperar(async () => {
            const x = await cliente().binario(`/v1/facturas/${id}/pdf`);
            return x.status === 200 ? x : undefined;
          }, 60_000);
          return r.body.subarray(0, 5).toString('latin1');
        }),
      );
      expect(new Set(pdfs)).toEqual(new Set(['%PDF-']));
      marcar('pdfs');

      // MySQL: exactly these invoices and payments, stamped, each with its PDF; no UUID twice.
      const filas = (await db('facturas')
        .where({ cuenta_id: c.cuentaId })
        .select('id', 'estado', 'uuid', db.raw('pdf IS NOT NULL AS con_pdf'))) as {
        id: string;
        estado: string;
        uuid: string;
        con_pdf: number;
      }[];
      expect(filas.map((f) => f.id).sort()).toEqual([...todas].sort());
      expect(filas.filter((f) => f.estado !== 'timbrada' || !f.con_pdf)).toEqual([]);
      expect(new Set(filas.map((f) => f.uuid)).size).toBe(filas.length);
      expect(leidas.map((f) => f.uuid).sort()).toEqual(filas.map((f) => f.uuid).sort());
      const filasPagos = await db('pagos').where({ cuenta_id: c.cuentaId }).select('id', 'estado');
      expect(filasPagos.map((p) => p.id).sort()).toEqual(pagos.map((p) => p.id).sort());
      expect(new Set(filasPagos.map((p) => p.estado))).toEqual(new Set(['registrado']));
      // The PAC's own store: one stamp per invoice (by its unique folio) and one payment CFDI per paid invoice.
      const porId = new Map(leidas.map((f) => [f.id as string, f.uuid as string]));
      const pila = { db } as Pila;
      for (const [id, folio] of facturas)
        expect([folio, await timbresDelFolio(pila, folio)]).toEqual([folio, [porId.get(id)]]);
      for (const [i, p] of pagos.entries())
        expect(await timbresDePagosDe(pila, porId.get(p.factura)!)).toEqual([pagados[i]!.uuid]);

      // Every event of the account's subscribed types reached the receiver, at least once each.
      const eventos = (
        await db('eventos')
          .where({ cuenta_id: c.cuentaId })
          .whereIn('tipo', ['factura.timbrada', 'pago.creado'])
          .select('id', 'tipo')
      ).map((e: { id: string; tipo: string }) => e);
      expect(eventos.filter((e) => e.tipo === 'pago.creado')).toHaveLength(CADENAS_PPD);
      expect(eventos.filter((e) => e.tipo === 'factura.timbrada').length).toBeGreaterThanOrEqual(
        facturas.size,
      );
      const recibidos = () =>
        new Set(receptor.recibidas.map((r) => String(r.encabezados['x-facturacion-evento'])));
      // An event committed by the killed worker whose after-commit dispatch died with it waits in the outbox for
      // the reconciler's schedule (every minute, for events older than 10 s): triggered here as an operator can,
      // instead of waiting for its next minute.
      const reconciliador = temporalCliente.schedule.getHandle(idsProgramaciones().reconciliar);
      let disparado = 0;
      await esperar(async () => {
        if (eventos.every((e) => recibidos().has(e.id))) return true;
        if (Date.now() > muerte + 11_000 && Date.now() > disparado + 3000) {
          disparado = Date.now();
          await reconciliador.trigger();
        }
        return undefined;
      }, 60_000);
      const faltan = eventos.filter((e) => !recibidos().has(e.id));
      expect(faltan).toEqual([]);
      marcar('eventos');
      process.stderr.write(
        `\nescala: ${facturas.size} facturas, ${pagos.length} pagos, ${eventos.length} eventos ` +
          `(${receptor.recibidas.length} entregas recibidas), ${enVueloAlMatar} creaciones en curso al matar, ` +
          `${cuenta.reintentos} reintentos de los clientes\n`,
      );
    } catch (e) {
      process.stderr.write(['api2', 'worker2', 'pdf2', 'haproxy'].map((n) => servicio.cola(n)).join('\n'));
      throw e;
    } finally {
      await receptor.cerrar();
    }
  }, 240_000);
});
