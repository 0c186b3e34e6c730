import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { fallasPac } from '../support/fallas';
import { iniciarPila, type Pila } from '../support/pila';
import { iniciarTemporalPrivado, type TemporalPrivado } from '../support/temporal-privado';

type Cuenta = Awaited<ReturnType<typeof cuentaLista>>;

const dormir = (ms: number) => new Promise((r) => setTimeout(r, ms));
const folio = (prefijo: string, i: number) => `${prefijo}${Date.now() % 1e8}${i}`;

/** A webhook receiver that fails the first `fallos` requests of each event, then answers 200. */
async function receptorQueFalla(fallos: number) {
  const porEvento = new Map<string, number[]>();
  const servidor: Server = createServer((req, res) => {
    const evento = String(req.headers['x-facturacion-evento']);
    const vistos = porEvento.get(evento) ?? [];
    const status = vistos.length < fallos ? 500 : 200;
    vistos.push(status);
    porEvento.set(evento, vistos);
    req.resume();
    req.on('end', () => res.writeHead(status).end(`respuesta ${status}`));
  });
  await new Promise<void>((r) => servidor.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(servidor.address() as AddressInfo).port}/hook`,
    porEvento,
    cerrar: () => new Promise<void>((r) => servidor.close(() => r())),
  };
}

/**
 * The Temporal server killed (SIGKILL) and restarted on the same SQLite file and ports while workflows wait on
 * durable timers: a private server, so the suite's shared one is never touched. The API's client and the worker
 * keep their connections: they must reconnect by themselves. Pass = every workflow resumes and ends once.
 */
describe('reinicio del servidor Temporal con workflows esperando temporizadores', () => {
  let temporal: TemporalPrivado;
  let pila: Pila;

  beforeAll(async () => {
    temporal = await iniciarTemporalPrivado();
    pila = await iniciarPila({
      temporalAddress: temporal.address,
      timbradoEsperaMs: 10_000,
      cancelacionSondeoMs: 1000,
      programaEntregasS: [0, 4, 8, 12, 16],
      graciaDespachoMs: 0,
    });
  }, 120_000);
  afterAll(async () => {
    await pila?.detener();
    await temporal?.detener();
    process.stderr.write(`\narranques del Temporal privado (ms): ${temporal?.arranquesMs.join(', ')}\n`);
  });

  /** SIGKILL, `abajoMs` down (while `mientras` runs), then the same file and ports again. */
  async function reiniciarTemporal(abajoMs: number, mientras: () => Promise<void> = async () => {}) {
    await temporal.matar();
    await Promise.all([dormir(abajoMs), mientras()]);
    const ms = await temporal.arrancar();
    process.stderr.write(`\nTemporal privado de vuelta en ${ms} ms tras SIGKILL\n`);
  }

  const eventosDe = async (c: Cuenta, tipo: string, facturaId: string) =>
    pila
      .db('eventos')
      .where({ cuenta_id: c.cuentaId, tipo })
      .whereRaw(`JSON_VALUE(datos, '$.id') = ?`, [facturaId])
      .select('id');

  it('cancelaciones que esperan al receptor (sondeo del SAT con temporizador): el receptor acepta con el servidor caído y cada una termina cancelada una vez', async () => {
    const c = await cuentaLista(pila);
    const facturas: { id: string; uuid: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await c.http.post(
        '/v1/facturas',
        facturaNueva(c, { condiciones_pago: 'SANDBOX:CON_ACEPTACION' }),
      );
      expect(r.status).toBe(201);
      facturas.push(r.body);
    }
    for (const f of facturas) {
      const r = await c.http.post(`/v1/facturas/${f.id}/cancelar`, { motivo: '02' });
      expect(r.status).toBe(202);
      expect(r.body).toMatchObject({ estado: 'timbrada', cancelacion: { estado: 'en_proceso' } });
    }
    // The workflows are now between two SAT status checks (a 1 s durable timer each).
    await dormir(1500);
    await reiniciarTemporal(3000, async () => {
      for (const f of facturas) {
        const r = await fetch(`${pila.pacUrl}/sandbox/cancelaciones/${f.uuid}/aceptar`, { method: 'POST' });
        expect(r.ok).toBe(true);
      }
    });
    for (const f of facturas) {
      const fin = await esperar(async () => {
        const r = await c.http.get(`/v1/facturas/${f.id}`);
        return r.body.estado === 'cancelada' ? r.body : undefined;
      }, 90_000);
      expect(fin).toMatchObject({ estado: 'cancelada', cancelacion: { estado: 'aceptada' } });
      expect(await eventosDe(c, 'factura.cancelada', f.id)).toHaveLength(1);
      expect(await eventosDe(c, 'factura.cancelacion_fallida', f.id)).toHaveLength(0);
    }
  }, 180_000);

  it('entregas de webhook esperando entre intentos: el servidor se reinicia durante la espera y cada una termina entregada una vez', async () => {
    const receptor = await receptorQueFalla(2);
    try {
      const c = await cuentaLista(pila);
      const w = await c.http.post('/v1/webhooks', {
        url: receptor.url,
        eventos_suscritos: ['factura.creada'],
      });
      expect(w.status).toBe(201);
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
        expect(r.status).toBe(201);
        ids.push(r.body.id);
      }
      const eventos = (
        await pila.db('eventos').where({ cuenta_id: c.cuentaId, tipo: 'factura.creada' }).select('id')
      ).map((e) => e.id as string);
      expect(eventos).toHaveLength(ids.length);
      // Every delivery failed its first attempt and waits (a 4 s timer) for the second.
      await esperar(
        async () => (eventos.every((e) => receptor.porEvento.get(e)?.length) ? true : undefined),
        30_000,
      );
      await reiniciarTemporal(3000);
      const entregas = await esperar(async () => {
        const filas = await pila
          .db('entregas')
          .whereIn('evento_id', eventos)
          .select('evento_id', 'estado', 'intentos');
        return filas.length === eventos.length && filas.every((f) => f.estado === 'entregada')
          ? filas
          : undefined;
      }, 90_000);
      expect(new Set(entregas.map((e) => e.evento_id)).size).toBe(eventos.length);
      for (const e of eventos) {
        // Two failures, then one success: no attempt lost, none repeated after the 200.
        expect([e, receptor.porEvento.get(e)]).toEqual([e, [500, 500, 200]]);
      }
      for (const e of entregas) expect(e.intentos).toBe(3);
    } finally {
      await receptor.cerrar();
    }
  }, 180_000);

  it('timbrado esperando el backoff del PAC caído: el servidor se reinicia durante la espera y se timbra una vez', async () => {
    const c = await cuentaLista(pila);
    const folios = Array.from({ length: 3 }, (_, i) => folio('T', i));
    await fallasPac(pila, 'caido');
    const folioDe = new Map<string, string>();
    try {
      await Promise.all(
        folios.map(async (f) => {
          const r = await c.http.post('/v1/facturas', facturaNueva(c, { folio: f }));
          expect(r.status).toBe(202);
          folioDe.set(r.body.id, f);
        }),
      );
      // The API waited 10 s: attempts at 0, 2 and 6 s failed; the next waits for an 8 s backoff timer on the server.
      await reiniciarTemporal(3000, () => fallasPac(pila, 'normal'));
    } finally {
      await fallasPac(pila, 'normal');
    }
    for (const [id, f] of folioDe) {
      const fin = await esperar(async () => {
        const r = await c.http.get(`/v1/facturas/${id}`);
        return r.body.timbrado.estado === 'pendiente' ? undefined : r.body;
      }, 90_000);
      expect(fin).toMatchObject({ estado: 'timbrada', timbrado: { estado: 'timbrada' } });
      const timbres = await pila
        .dbPac('pac_sandbox_timbres')
        .where('xml_timbrado', 'like', `%Folio="${f}"%`)
        .select('uuid');
      expect(timbres.map((t) => String(t.uuid).toUpperCase())).toEqual([String(fin.uuid).toUpperCase()]);
      expect(await eventosDe(c, 'factura.timbrada', id)).toHaveLength(1);
    }
  }, 180_000);
});
