import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { asegurarProgramaciones, idsProgramaciones } from '../../temporal/programaciones';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { iniciarMariadbPrivada, type MariadbPrivada } from '../support/mariadb-privada';
import { iniciarPila, type Pila } from '../support/pila';

type Cuenta = Awaited<ReturnType<typeof cuentaLista>>;

const folio = (prefijo: string, i: number) => `${prefijo}${Date.now() % 1e8}${i}`;
const dormir = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A webhook receiver on loopback: the event ids it was sent, repeats included. */
async function receptor() {
  const eventos: string[] = [];
  const servidor: Server = createServer((req, res) => {
    eventos.push(String(req.headers['x-facturacion-evento']));
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((r) => servidor.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(servidor.address() as AddressInfo).port}/hook`,
    eventos,
    cerrar: () => new Promise<void>((r) => servidor.close(() => r())),
  };
}

/**
 * MariaDB killed (SIGKILL) and restarted under load: a private server, so the machine's shared one is never
 * touched. Pass = every request answered 2xx or a clean 503, every accepted invoice stamped exactly once with
 * its `factura.timbrada` event, no duplicate UUID, nothing left pending.
 */
describe('reinicio de MariaDB a mitad de solicitudes y de actividades', () => {
  let mariadb: MariadbPrivada;
  let pila: Pila;
  let c: Cuenta;
  let webhook: Awaited<ReturnType<typeof receptor>>;
  const prefijoProgramaciones = `reinicios-${Date.now()}`;

  beforeAll(async () => {
    mariadb = await iniciarMariadbPrivada();
    pila = await iniciarPila({
      databaseUrl: mariadb.url,
      timbradoEsperaMs: 3000,
      programaEntregasS: [0, 1, 2, 3, 4],
      graciaDespachoMs: 0,
    });
    c = await cuentaLista(pila);
    webhook = await receptor();
    const w = await c.http.post('/v1/webhooks', {
      url: webhook.url,
      eventos_suscritos: ['factura.timbrada'],
    });
    expect(w.status).toBe(201);
    // The outbox's safety net, as the worker process creates it: events whose after-commit dispatch died with
    // the database are taken from the outbox by this schedule (triggered by hand below instead of every minute).
    await asegurarProgramaciones(pila.cliente, {
      taskQueue: pila.taskQueue,
      prefijo: prefijoProgramaciones,
      solo: ['reconciliar'],
    });
  }, 120_000);
  afterAll(async () => {
    for (const id of Object.values(idsProgramaciones(prefijoProgramaciones))) {
      await pila?.cliente.schedule
        .getHandle(id)
        .delete()
        .catch(() => undefined);
    }
    await webhook?.cerrar();
    await pila?.detener();
    await mariadb?.detener();
    process.stderr.write(`\narranques de la MariaDB privada (ms): ${mariadb?.arranquesMs.join(', ')}\n`);
  });

  /** Every invoice of the account ends stamped: none stays pending or failed after the database is back. */
  async function todasTimbradas(ids: string[]) {
    return esperar(async () => {
      const filas = await pila
        .db('facturas')
        .where({ cuenta_id: c.cuentaId })
        .whereIn('id', ids)
        .select('id', 'estado', 'timbrado_estado', 'uuid', 'documento');
      return filas.length === ids.length && filas.every((f) => f.timbrado_estado !== 'pendiente')
        ? filas
        : undefined;
    }, 120_000);
  }

  /** The consistency promised at the end: one UUID each, one stamp at the PAC each, one event each. */
  async function comprobarConsistencia(ids: string[], folios: Map<string, string>) {
    const filas = await todasTimbradas(ids);
    for (const f of filas)
      expect({ id: f.id, estado: f.estado, uuid: Boolean(f.uuid) }).toEqual({
        id: f.id,
        estado: 'timbrada',
        uuid: true,
      });
    const uuids = filas.map((f) => String(f.uuid).toUpperCase());
    expect(new Set(uuids).size).toBe(ids.length);
    // The PAC (its own database, untouched by the restart) holds exactly one stamp per invoice, the one we kept.
    for (const f of filas) {
      const timbres = await pila
        .dbPac('pac_sandbox_timbres')
        .where('xml_timbrado', 'like', `%Folio="${folios.get(f.id)}"%`)
        .select('uuid');
      expect(timbres.map((t) => String(t.uuid).toUpperCase())).toEqual([String(f.uuid).toUpperCase()]);
    }
    const eventos = await pila
      .db('eventos')
      .where({ cuenta_id: c.cuentaId, tipo: 'factura.timbrada' })
      .select(pila.db.raw(`JSON_VALUE(datos, '$.id') as factura`));
    const porFactura = new Map<string, number>();
    for (const e of eventos) porFactura.set(e.factura, (porFactura.get(e.factura) ?? 0) + 1);
    for (const id of ids) expect([id, porFactura.get(id)]).toEqual([id, 1]);
    // Every event leaves the outbox: the reconciler (every minute in production) takes what the fast path lost.
    await pila.cliente.schedule.getHandle(idsProgramaciones(prefijoProgramaciones).reconciliar).trigger();
    await esperar(async () => {
      const pendientes = await pila
        .db('eventos_por_despachar')
        .join('eventos', 'eventos.id', 'eventos_por_despachar.evento_id')
        .where('eventos.cuenta_id', c.cuentaId)
        .count({ n: '*' });
      return Number(pendientes[0]!.n) === 0 ? true : undefined;
    }, 60_000);
    // ... and each `factura.timbrada` is delivered to the webhook: one delivery each, `entregada`.
    const idsEventos = (
      await pila
        .db('eventos')
        .where({ cuenta_id: c.cuentaId, tipo: 'factura.timbrada' })
        .whereRaw(`JSON_VALUE(datos, '$.id') in (${ids.map(() => '?').join(',')})`, ids)
        .select('id')
    ).map((e) => e.id as string);
    const entregas = await esperar(async () => {
      const filas = await pila.db('entregas').whereIn('evento_id', idsEventos).select('evento_id', 'estado');
      return filas.length === idsEventos.length && filas.every((f) => f.estado === 'entregada')
        ? filas
        : undefined;
    }, 60_000);
    expect(new Set(entregas.map((e) => e.evento_id)).size).toBe(idsEventos.length);
    for (const id of idsEventos) expect(webhook.eventos).toContain(id);
  }

  it('SIGKILL de MariaDB durante una ráfaga de POST /v1/facturas: cada respuesta es 2xx o un 503 limpio; lo aceptado se timbra una vez', async () => {
    const prefijo = 'R';
    const total = 40;
    const respuestas: { i: number; status: number; body: any; folio: string }[] = [];
    let siguiente = 0;
    const cliente = async () => {
      while (siguiente < total) {
        const i = siguiente++;
        const f = folio(prefijo, i);
        // Raw HTTP: the contract-checking client would throw on an undocumented 500 before we could count it.
        const r = await fetch(`${pila.url}/v1/facturas`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${c.secreto}:`).toString('base64')}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify(facturaNueva(c, { folio: f })),
        });
        const texto = await r.text();
        let body: any = texto;
        try {
          body = JSON.parse(texto);
        } catch {
          // Kept as text: the assertion below shows it.
        }
        respuestas.push({ i, status: r.status, body, folio: f });
      }
    };
    const clientes = Promise.all(Array.from({ length: 6 }, cliente));
    // Kill it once the burst is well under way, keep it down while requests keep arriving, then bring it back.
    await esperar(async () => (respuestas.length >= 8 ? true : undefined), 60_000);
    await mariadb.matar();
    await dormir(2000);
    const reinicioMs = await mariadb.arrancar();
    await clientes;
    process.stderr.write(`\nMariaDB privada de vuelta en ${reinicioMs} ms tras SIGKILL\n`);

    const porStatus = new Map<number, number>();
    for (const r of respuestas) porStatus.set(r.status, (porStatus.get(r.status) ?? 0) + 1);
    process.stderr.write(`respuestas por status: ${JSON.stringify([...porStatus])}\n`);
    expect(respuestas).toHaveLength(total);
    const raras = respuestas.filter((r) => ![201, 202, 503].includes(r.status));
    expect(raras.map((r) => ({ status: r.status, body: r.body }))).toEqual([]);
    for (const r of respuestas.filter((x) => x.status === 503)) {
      expect(r.body.error).toMatchObject({
        tipo: 'servicio_no_disponible',
        codigo: 'base_de_datos_no_disponible',
      });
      expect(JSON.stringify(r.body)).not.toMatch(/ECONNREFUSED|PROTOCOL|at \w+ \(|knex|mysql/i);
    }
    // The outage was seen: this is a test of a restart, not of a quiet database.
    expect(porStatus.get(503) ?? 0).toBeGreaterThan(0);

    // Accepted invoices, and any the database holds (a 503 after the commit), all end stamped exactly once.
    const aceptadas = respuestas.filter((r) => r.status === 201 || r.status === 202);
    const guardadas = (await pila.db('facturas').where({ cuenta_id: c.cuentaId }).select('id')).map(
      (g) => g.id as string,
    );
    for (const r of aceptadas) expect(guardadas).toContain(r.body.id);
    process.stderr.write(`facturas aceptadas ${aceptadas.length}, guardadas ${guardadas.length}\n`);
    const folios = new Map<string, string>();
    for (const id of guardadas) folios.set(id, (await c.http.get(`/v1/facturas/${id}`)).body.folio);
    await comprobarConsistencia(guardadas, folios);
  }, 240_000);

  it('SIGKILL de MariaDB mientras las actividades de timbrado esperan al PAC y escriben: todas timbradas una vez, sin eventos perdidos', async () => {
    const prefijo = 'L';
    const folios = new Map<string, string>();
    // A slow PAC: the activities are holding their calls when the database dies, and write when it is down or back.
    // The API waits 3 s and answers 202; the PAC answers at 6 s, while the database is down.
    await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const f = folio(prefijo, i);
        const r = await c.http.post(
          '/v1/facturas',
          facturaNueva(c, { folio: f, serie: 'SANDBOX:LATENCIA=6000' }),
        );
        expect(r.status).toBe(202);
        folios.set(r.body.id, f);
      }),
    );
    await mariadb.matar();
    await dormir(5000);
    const reinicioMs = await mariadb.arrancar();
    process.stderr.write(`\nMariaDB privada de vuelta en ${reinicioMs} ms tras SIGKILL (actividades)\n`);
    await comprobarConsistencia([...folios.keys()], folios);
  }, 240_000);
});
