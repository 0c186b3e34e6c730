import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Pila } from './pila';

/**
 * The real worker process (dist/worker/main.js) on the stack's task queue, PAC and database, for tests that
 * kill it with SIGKILL. Resolves once it logs `worker listo`; the caller kills what it started.
 */
export async function lanzarWorkerProceso(
  pila: Pila,
  env: Record<string, string> = {},
): Promise<ChildProcess> {
  const hijo = spawn(process.execPath, ['dist/worker/main.js'], {
    env: {
      ...process.env,
      TEMPORAL_TASK_QUEUE: pila.taskQueue,
      PAC_SANDBOX_URL: pila.pacUrl,
      LOG_LEVEL: 'info',
      // Any free port: several workers (and a running `make up`) would fight over the default.
      WORKER_METRICAS: '127.0.0.1:0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('el worker no arrancó')), 60_000);
    createInterface({ input: hijo.stdout! }).on('line', (l) => {
      if (l.includes('worker listo')) {
        clearTimeout(t);
        resolve();
      }
    });
    hijo.once('exit', (code) => reject(new Error(`el worker terminó (${code})`)));
  });
  return hijo;
}

/** The sandbox PAC's outage switch (`POST /sandbox/fallas`). */
export async function fallasPac(pila: Pila, modo: 'normal' | 'caido'): Promise<void> {
  const r = await fetch(`${pila.pacUrl}/sandbox/fallas`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ modo }),
  });
  if (!r.ok) throw new Error(`POST /sandbox/fallas ${modo}: ${r.status}`);
}

/** Any runtime fault of the sandbox PAC (`POST /sandbox/fallas`), e.g. `{ modo: 'reinicio', veces: 3 }`. */
export async function fallaPac(
  pila: Pila,
  cambio: {
    modo: 'normal' | 'caido' | 'error_500' | 'reinicio' | 'sin_respuesta';
    veces?: number;
    duracion_ms?: number;
  },
): Promise<void> {
  const r = await fetch(`${pila.pacUrl}/sandbox/fallas`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(cambio),
  });
  if (!r.ok) throw new Error(`POST /sandbox/fallas ${JSON.stringify(cambio)}: ${r.status}`);
}

/** The SOAP calls the sandbox PAC has seen, per operation (`GET /sandbox/llamadas`). */
export async function llamadasPac(
  pila: Pila,
): Promise<Record<string, { recibidas: number; en_curso: number }>> {
  const r = await fetch(`${pila.pacUrl}/sandbox/llamadas`);
  if (!r.ok) throw new Error(`GET /sandbox/llamadas: ${r.status}`);
  return (await r.json()) as Record<string, { recibidas: number; en_curso: number }>;
}

/** SIGKILL, resolved once the process is gone. */
export async function matar(hijo: ChildProcess): Promise<void> {
  if (hijo.exitCode !== null || hijo.signalCode !== null) return;
  const fin = new Promise((r) => hijo.once('exit', r));
  hijo.kill('SIGKILL');
  await fin;
}

/**
 * Holds the row lock of one row (`SELECT … FOR UPDATE` in a transaction of the test) until `soltar`: a worker's
 * next write or lock of that row waits, and `esperando` tells when it does (information_schema's lock waits
 * blocked by this transaction). How a test stops a worker at an exact step before killing it.
 */
export async function bloquearFila(
  pila: Pila,
  tabla: string,
  id: string,
): Promise<{ esperando: () => Promise<boolean>; soltar: () => Promise<void> }> {
  const tx = await pila.db.transaction();
  await tx(tabla).where({ id }).forUpdate().select('id');
  const [yo] = (await tx('information_schema.innodb_trx')
    .whereRaw('trx_mysql_thread_id = CONNECTION_ID()')
    .select('trx_id')) as { trx_id: string }[];
  if (!yo) throw new Error('la transacción de prueba no aparece en innodb_trx');
  return {
    async esperando() {
      const filas = (await pila
        .db('information_schema.innodb_lock_waits')
        .where('blocking_trx_id', yo.trx_id)
        .select('requesting_trx_id')) as unknown[];
      return filas.length > 0;
    },
    soltar: async () => void (await tx.rollback().catch(() => undefined)),
  };
}

/**
 * An invoice of a fault-matrix case and how it must end. Its stamps at the PAC are found by its unique
 * Folio, or, for a payment CFDI, by the UUID of the invoice it pays (`pagaA`).
 */
export interface FacturaEsperada {
  id: string;
  folio?: string;
  pagaA?: string;
  final: 'timbrada' | 'fallido';
}

/** What a fault-matrix case leaves behind, counted in MariaDB and in the sandbox PAC's own store of stamps. */
export interface Balance {
  /** Invoices, stamps or events that should exist and do not. */
  perdidas: number;
  /** Extra invoices, UUIDs or events. */
  duplicados: number;
  /** Per invoice, its event types in order. */
  eventos: string[][];
  /** `timbrado.intentos` per invoice. */
  intentos: number[];
  uuids: string[];
}

// An invoice created with stamping (the default) emits no `factura.creada` (openapi.yaml: only a draft
// created with `auto_timbrar: false` does): its first event is the stamping's outcome.
const EVENTOS_ESPERADOS = {
  timbrada: ['factura.timbrada'],
  fallido: ['factura.timbrado_fallido'],
};

/**
 * The UUIDs the sandbox PAC holds for an invoice, found by its unique Folio (payment CFDIs are left out: their
 * DoctoRelacionado repeats the Folio of the invoice they pay).
 */
export const timbresDelFolio = async (pila: Pila, folio: string): Promise<string[]> =>
  (
    await pila
      .db('pac_sandbox_timbres')
      .whereNot('tipo_comprobante', 'P')
      .andWhere('xml_timbrado', 'like', `%Folio="${folio}"%`)
      .select('uuid')
  ).map((f: { uuid: string }) => String(f.uuid).toUpperCase());

/** The UUIDs the sandbox PAC holds for payment CFDIs of an invoice: they name its UUID as IdDocumento. */
export const timbresDePagosDe = async (pila: Pila, uuidFactura: string): Promise<string[]> =>
  (
    await pila
      .db('pac_sandbox_timbres')
      .where('tipo_comprobante', 'P')
      .andWhere('xml_timbrado', 'like', `%IdDocumento="${uuidFactura}"%`)
      .select('uuid')
  ).map((f: { uuid: string }) => String(f.uuid).toUpperCase());

/**
 * Counts, for a whole account, what was lost and what was duplicated against the invoices it should hold:
 * each one in its final state, one UUID at the PAC for a stamped one (none for a rejected one), and exactly
 * one `factura.timbrada` (or `factura.timbrado_fallido`) in `eventos`.
 */
export async function balanceDeCuenta(
  pila: Pila,
  cuentaId: string,
  esperadas: FacturaEsperada[],
): Promise<Balance> {
  const b: Balance = { perdidas: 0, duplicados: 0, eventos: [], intentos: [], uuids: [] };
  const filas = (await pila
    .db('facturas')
    .where({ cuenta_id: cuentaId })
    .select('id', 'estado', 'uuid', 'timbrado_estado', 'timbrado_intentos')) as {
    id: string;
    estado: string;
    uuid: string | null;
    timbrado_estado: string;
    timbrado_intentos: number;
  }[];
  b.duplicados += filas.filter((f) => !esperadas.some((e) => e.id === f.id)).length;
  for (const e of esperadas) {
    const f = filas.find((x) => x.id === e.id);
    const timbres = e.pagaA
      ? await timbresDePagosDe(pila, e.pagaA)
      : await timbresDelFolio(pila, e.folio ?? '');
    const eventos = (
      await pila
        .db('eventos')
        .where({ cuenta_id: cuentaId })
        .whereRaw("JSON_VALUE(datos, '$.id') = ?", [e.id])
        .orderBy('id')
        .select('tipo')
    ).map((x: { tipo: string }) => x.tipo);
    b.eventos.push(eventos);
    b.intentos.push(f?.timbrado_intentos ?? 0);
    const esperados = EVENTOS_ESPERADOS[e.final];
    b.perdidas += esperados.filter((t) => !eventos.includes(t)).length;
    b.duplicados += eventos.length - new Set(eventos).size;
    b.duplicados += eventos.filter((t) => !esperados.includes(t)).length;
    if (!f) {
      b.perdidas++;
      continue;
    }
    if (e.final === 'timbrada') {
      // A stamp the PAC issued that the invoice does not carry is lost; a second one is a duplicate.
      if (f.estado !== 'timbrada' || !f.uuid || !timbres.includes(f.uuid.toUpperCase())) b.perdidas++;
      b.duplicados += Math.max(0, timbres.length - 1);
      if (f.uuid) b.uuids.push(f.uuid.toUpperCase());
    } else {
      if (f.timbrado_estado !== 'fallido' || f.uuid) b.perdidas++;
      b.duplicados += timbres.length;
    }
  }
  return b;
}

/** One line per case for the campaign report (RELIABILITY.md quotes them). */
export function reportarCaso(caso: string, datos: Record<string, string | number>): void {
  const campos = Object.entries(datos).map(([k, v]) => `${k}=${String(v).replace(/\s+/g, '_')}`);
  process.stdout.write(`matriz caso=${caso} ${campos.join(' ')}\n`);
}
