import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { RepositorioSondas } from '../../db/repositorios/sondas';
import { colaPdf } from '../../temporal/pdf';

export type EstadoComponente = 'ok' | 'error';

export interface Componente {
  estado: EstadoComponente;
  latencia_ms: number;
  detalle?: string;
  version?: string;
}

export interface Salud {
  estado: 'ok' | 'degradado';
  componentes: {
    mysql: Componente;
    temporal: Componente;
    pac: Componente;
    worker: Componente;
    worker_pdf: Componente;
    chromium: Componente;
  };
}

export interface DepsSalud {
  sondas: RepositorioSondas;
  temporal: Client;
  taskQueue: string;
  pacUrl: string;
  timeoutMs: number;
}

function conLimite<T>(p: Promise<T>, ms: number, que: string): Promise<T> {
  let t: NodeJS.Timeout;
  const limite = new Promise<never>((_, rej) => {
    t = setTimeout(() => rej(new Error(`${que}: sin respuesta en ${ms} ms`)), ms);
  });
  return Promise.race([p, limite]).finally(() => clearTimeout(t));
}

async function medir(fn: () => Promise<string | void>, ms: number, que: string): Promise<Componente> {
  const inicio = Date.now();
  try {
    const version = await conLimite(fn(), ms, que);
    return { estado: 'ok', latencia_ms: Date.now() - inicio, ...(version ? { version } : {}) };
  } catch (e) {
    return { estado: 'error', latencia_ms: Date.now() - inicio, detalle: (e as Error).message };
  }
}

/**
 * Checks every component. The workers and Chromium are proved by a real round trip: a probe workflow whose
 * activities write a MySQL row each that we read back, the PDF worker's after launching (or reusing) its Chromium.
 */
export async function verificarSalud(d: DepsSalud): Promise<Salud> {
  const sondaId = `sonda-salud:${randomUUID()}`;
  const inicioSonda = Date.now();
  // Whatever the workflow ended with (a worker missing times it out), the rows say which part answered.
  const sonda = conLimite(
    d.temporal.workflow.execute('sondaSalud', {
      workflowId: sondaId,
      taskQueue: d.taskQueue,
      args: [sondaId],
      workflowExecutionTimeout: d.timeoutMs,
    }),
    d.timeoutMs,
    'worker',
  ).then(
    () => undefined,
    (e: Error) => e.message,
  );
  const filas = sonda.then(async (error) => ({
    error,
    f: await d.sondas.obtener(sondaId),
    pdf: await d.sondas.obtener(`${sondaId}:pdf`),
  }));

  const [mysql, temporal, pac, fila] = await Promise.all([
    medir(() => d.sondas.versionServidor(), d.timeoutMs, 'mysql'),
    medir(
      async () => {
        const info = await d.temporal.workflowService.getSystemInfo({});
        return info.serverVersion ?? undefined;
      },
      d.timeoutMs,
      'temporal',
    ),
    medir(
      async () => {
        const r = await fetch(new URL('/salud', d.pacUrl), { signal: AbortSignal.timeout(d.timeoutMs) });
        // The PAC is healthy only if it can stamp: the sandbox answers 503 (and says why) under an outage.
        const cuerpo = (await r.json().catch(() => ({}))) as {
          estado?: string;
          version?: string;
          fallas?: string;
        };
        if (!r.ok || cuerpo.estado !== 'ok') {
          const porque = cuerpo.fallas && cuerpo.fallas !== 'normal' ? ` (falla: ${cuerpo.fallas})` : '';
          throw new Error(`el PAC respondió ${r.status}${porque}`);
        }
        return cuerpo.version;
      },
      d.timeoutMs,
      'pac',
    ),
    filas.catch((e: Error) => ({ error: e.message, f: undefined, pdf: undefined })),
  ]);
  const latenciaSonda = Date.now() - inicioSonda;

  const worker: Componente = fila.f
    ? { estado: 'ok', latencia_ms: latenciaSonda, detalle: String(fila.f.worker) }
    : { estado: 'error', latencia_ms: latenciaSonda, detalle: fila.error ?? 'la sonda no escribió en MySQL' };
  const workerPdf: Componente = fila.pdf
    ? { estado: 'ok', latencia_ms: latenciaSonda, detalle: String(fila.pdf.worker) }
    : {
        estado: 'error',
        latencia_ms: latenciaSonda,
        detalle: `el worker de PDF (cola ${colaPdf(d.taskQueue)}) no respondió: los PDF esperan en su cola`,
      };
  const chromium: Componente = fila.pdf?.chromium
    ? { estado: 'ok', latencia_ms: latenciaSonda, version: String(fila.pdf.chromium) }
    : {
        estado: 'error',
        latencia_ms: latenciaSonda,
        detalle: fila.pdf?.chromium_error ?? 'no verificado: el worker de PDF no respondió',
      };

  const componentes = { mysql, temporal, pac, worker, worker_pdf: workerPdf, chromium };
  const estado = Object.values(componentes).every((c) => c.estado === 'ok') ? 'ok' : 'degradado';
  return { estado, componentes };
}

/**
 * The probe behind the public `GET /salud`: anyone may call it and each check starts a workflow, so callers
 * at the same time share one check and its result is reused for `reutilizarMs`.
 */
export function verificadorCompartido(d: DepsSalud, reutilizarMs = 2000, reloj: () => number = Date.now) {
  let enCurso: Promise<Salud> | undefined;
  let ultima: { t: number; salud: Salud } | undefined;
  return (): Promise<Salud> => {
    if (ultima && reloj() - ultima.t < reutilizarMs) return Promise.resolve(ultima.salud);
    enCurso ??= verificarSalud(d)
      .then((salud) => {
        ultima = { t: reloj(), salud };
        return salud;
      })
      .finally(() => {
        enCurso = undefined;
      });
    return enCurso;
  };
}
