import type { SearchAttributePair } from '@temporalio/common';
import {
  allHandlersFinished,
  condition,
  defineUpdate,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Actividades } from '../activities';
import type { EntradaTimbrado, Paso } from '../activities/timbrado';
import { ATRIBUTOS } from './atributos';
import { colaPdf } from './pdf';
import {
  Abandonado,
  abandonarTimbrado,
  CANCELABLE,
  crearEsperas,
  definitiva,
  pasoAcotado,
  responderEspera,
  type Abandono,
  type Esperas,
  type SolicitudAbandono,
} from './pasos';
import { REINTENTO_PAC } from './reintentos';

export type ResultadoTimbrado = 'timbrada' | 'fallido';

/** The API's bounded wait: answers as soon as the invoice is stamped or rejected (before the PDF). */
export const esperarTimbrado = defineUpdate<ResultadoTimbrado>('esperarTimbrado');

const opcionesPasos = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
} as const;

/*
 * The patches below (pasos-locales, pasos-acotados, pdf-aparte) live only in timbrarConPasos and generarPdf,
 * run by the old types timbrarFactura and registrarPago, which nothing starts any more. They stay: a run of
 * those types started before any of them may still wait on the PAC (its retries have no end), and replaying it
 * needs the branch it took. Neither can be deprecated (that drops the old branch) nor removed (a history with a
 * marker then fails to replay) while such runs exist; the next version deletes both types with their patches
 * once the README's check (Ops, "Retiring old workflow code") finds none running.
 */

// Short database and CPU steps run as local activities: in the worker, without a round trip through the
// Temporal server per step (a stamping costs the server a few writes instead of dozens).
const locales = proxyLocalActivities<Actividades>(opcionesPasos);

// Stampings started before that change ran every step as a regular activity: their histories must still
// replay after a deployment, so they go on that way (see PARCHE_LOCALES).
const remotas = proxyActivities<Actividades>(opcionesPasos);
const PARCHE_LOCALES = 'pasos-locales';

// The PAC's usual answer takes well under a second: the first attempt is local too.
const pacRapido = proxyLocalActivities<Actividades>({
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 1 },
  summary: 'Timbrado con el PAC (primer intento)',
});

// When the first attempt fails, the PAC may be down for hours: a regular activity retries forever with
// backoff, each attempt visible in the history and the Temporal UI.
const pac = proxyActivities<Actividades>({
  startToCloseTimeout: '60 seconds',
  heartbeatTimeout: '5 seconds',
  retry: REINTENTO_PAC,
  summary: 'Timbrado con el PAC',
});

// Since PARCHE_ACOTADOS a local step runs a few times at most: while the database (or the PAC) stays down, a
// regular activity retries it with backoff, so the history does not grow per attempt (local retries past a
// minute each add a timer) and an operator's retry-now can cut the wait.
const PARCHE_ACOTADOS = 'pasos-acotados';
const localesAcotados = proxyLocalActivities<Actividades>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 3 },
});
const remotasCancelables = proxyActivities<Actividades>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '30 seconds' },
  ...CANCELABLE,
});
const pacCancelable = proxyActivities<Actividades>({
  startToCloseTimeout: '60 seconds',
  heartbeatTimeout: '5 seconds',
  retry: REINTENTO_PAC,
  summary: 'Timbrado con el PAC',
  ...CANCELABLE,
});

const pdf = proxyActivities<Actividades>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '5 minutes' },
});

/** Exactly once either way: enviarAlPac asks the PAC for a previous stamp before sending again. */
async function timbrar(e: EntradaTimbrado, conLocales: boolean) {
  if (!conLocales) return pac.enviarAlPac(e);
  try {
    return await pacRapido.enviarAlPac(e);
  } catch {
    return pac.enviarAlPac(e);
  }
}

// timbrarFacturaV3's first attempt: seal and stamp in one local activity (one activation and one marker fewer
// than two steps). Any failure falls back to the steps below, which find the seal and ask the PAC before sending.
const unaVez = proxyLocalActivities<Actividades>({
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 1 },
  summary: 'Sellado y timbrado con el PAC (primer intento)',
});

async function intentoUnico(e: EntradaTimbrado): Promise<Paso | undefined> {
  try {
    return await unaVez.timbrarDeUnaVez(e);
  } catch (err) {
    if (definitiva(err)) throw err;
    return undefined;
  }
}

/** What a bounded stamping writes together with others instead of in a visibility write of its own. */
export interface Diferidos {
  /** Since timbrarFacturaV3: seal and stamp first in one local step (`timbrarDeUnaVez`), the steps after a failure. */
  deUnaVez?: boolean;
  /**
   * Since timbrarFacturaV2 the references are written once, with the outcome (or with the first error, so a
   * waiting stamping is found by RFC), instead of once more after sealing. Earlier runs write them as they did.
   */
  referencias: boolean;
  /** Written with each error (registrarPagoV2: its CFDI's `FacturaId` and `timbrando`). */
  conElError?: SearchAttributePair[];
  /** Written with the outcome. */
  conElResultado?: SearchAttributePair[];
  /** An earlier step of the same run (the payment's ledger) already wrote an error: cleared once stamped. */
  fallaPrevia?: boolean;
}

/**
 * The bounded stamping steps (local first, then a regular activity an operator's retry-now restarts), as
 * timbrarFacturaV2 and registrarPagoV2 run them. Seal, pre-validate and stamp exactly once; a rejection is
 * recorded on the invoice with its event; `EstadoFactura` ends `timbrada` or `fallido`.
 */
export async function timbrarAcotado(
  e: EntradaTimbrado,
  esperas: Esperas,
  o: Diferidos = { referencias: false },
): Promise<ResultadoTimbrado> {
  let falla = o.fallaPrevia === true;
  let referencias: string[] = [];
  const referenciasDiferidas = () =>
    o.referencias && referencias.length ? [{ key: ATRIBUTOS.Referencias, value: referencias }] : [];
  const conElError = () => [...referenciasDiferidas(), ...(o.conElError ?? [])];
  const paso = async (nombre: string, f: 'prepararTimbrado' | 'enviarAlPac') => {
    const local = nombre === 'pac' ? pacRapido : localesAcotados;
    const remota = nombre === 'pac' ? pacCancelable : remotasCancelables;
    const r = await pasoAcotado(
      nombre,
      esperas,
      () => local[f](e),
      () => remota[f](e),
      conElError,
    );
    falla ||= r.falla;
    return r.valor;
  };
  const pasoAPaso = async () => {
    const preparado = await paso('preparacion', 'prepararTimbrado');
    // Found by RFC or serie-folio while it is still on its way.
    if (preparado.estado !== 'rechazado' && preparado.referencias?.length) {
      referencias = preparado.referencias;
      if (!o.referencias) upsertSearchAttributes([{ key: ATRIBUTOS.Referencias, value: referencias }]);
    }
    return preparado.estado === 'listo' ? await paso('pac', 'enviarAlPac') : preparado;
  };
  const primero = o.deUnaVez ? await intentoUnico(e) : undefined;
  if (primero?.referencias?.length) referencias = primero.referencias;
  const r = primero ?? (await pasoAPaso());
  if (r.estado === 'rechazado') {
    await pasoAcotado(
      'registro',
      esperas,
      () => localesAcotados.registrarRechazo(e, r.error),
      () => remotasCancelables.registrarRechazo(e, r.error),
      conElError,
    );
    upsertSearchAttributes([
      { key: ATRIBUTOS.EstadoFactura, value: 'fallido' },
      { key: ATRIBUTOS.ErrorTimbrado, value: [r.error.paso ?? 'pac', r.error.codigo] },
      ...referenciasDiferidas(),
      ...(o.conElResultado ?? []),
    ]);
    return 'fallido';
  }
  const finales = r.referencias?.length ? r.referencias : o.referencias ? referencias : [];
  upsertSearchAttributes([
    { key: ATRIBUTOS.EstadoFactura, value: 'timbrada' },
    ...(finales.length ? [{ key: ATRIBUTOS.Referencias, value: finales }] : []),
    ...(falla ? [{ key: ATRIBUTOS.ErrorTimbrado, value: [] as string[] }] : []),
    ...(o.conElResultado ?? []),
  ]);
  return 'timbrada';
}

/**
 * The stamping path of timbrarFactura and registrarPago (both kept only for the runs they already have):
 * each step as its run first took it. A rejection is recorded on the invoice with its event; the workflow's
 * `EstadoFactura` ends `timbrada` or `fallido`.
 */
export async function timbrarConPasos(e: EntradaTimbrado, esperas: Esperas): Promise<ResultadoTimbrado> {
  const conLocales = patched(PARCHE_LOCALES);
  if (conLocales && patched(PARCHE_ACOTADOS)) return timbrarAcotado(e, esperas);
  const pasos = conLocales ? locales : remotas;
  const preparado = await pasos.prepararTimbrado(e);
  const paso = preparado.estado === 'listo' ? await timbrar(e, conLocales) : preparado;
  let resultado: ResultadoTimbrado = 'timbrada';
  if (paso.estado === 'rechazado') {
    await pasos.registrarRechazo(e, paso.error);
    resultado = 'fallido';
  }
  upsertSearchAttributes([{ key: ATRIBUTOS.EstadoFactura, value: resultado }]);
  return resultado;
}

// Since this patch the PDF is rendered by its own workflow (`pdf:<factura>`, workflows/pdf.ts) on the PDF
// queue: the step that reports the CFDI stamped has already handed it over, so the stamping ends in the same
// workflow task and Chromium never slows a stamping. Earlier runs render it here, as they did.
const PARCHE_PDF_APARTE = 'pdf-aparte';

/** The PDF of a stamped CFDI, after the API's wait has its answer. */
export async function generarPdf(e: EntradaTimbrado): Promise<void> {
  if (!patched(PARCHE_PDF_APARTE)) await pdf.generarPdf(e);
}

/**
 * The stamping of invoices started before timbrarFacturaV2 (workflow id `timbrado:<factura>`): nothing starts
 * it any more; kept so running ones finish. Seal, pre-validate, stamp exactly once, render the PDF (or, since
 * `pdf-aparte`, leave it to its own workflow).
 */
export async function timbrarFactura(e: EntradaTimbrado): Promise<ResultadoTimbrado> {
  const esperas = crearEsperas();
  const fin = responderEspera(esperarTimbrado);
  const resultado = await timbrarConPasos(e, esperas);
  fin.resultado = resultado;
  if (resultado === 'timbrada') await generarPdf(e);
  await condition(allHandlersFinished);
  return resultado;
}

/**
 * The stamping of invoices started before timbrarFacturaV3 (workflow id `timbrado:<factura>`): nothing starts
 * it any more; kept so running ones finish. Seal, pre-validate and stamp exactly once; the step that
 * stores the stamp hands the PDF to its own workflow. A new workflow type instead of more patches: every
 * patched() call also writes the TemporalChangeVersion search attribute, one visibility write per patch per run,
 * and a stamping is mostly Temporal's cost. Its changes from here on go behind patched() as usual.
 */
export async function timbrarFacturaV2(e: EntradaTimbrado): Promise<ResultadoTimbrado> {
  const esperas = crearEsperas();
  const fin = responderEspera(esperarTimbrado);
  const resultado = await timbrarAcotado(e, esperas, { referencias: true });
  fin.resultado = resultado;
  await condition(allHandlersFinished);
  return resultado;
}

/**
 * The PDF as the stamping's last step: an activity on the PDF task queue, whose workers render a few at a time,
 * scheduled once the API's wait has its answer. One workflow per invoice instead of two (`pdf:<factura>` now
 * runs only when a read asks for a PDF not stored yet): the second workflow cost the Temporal server a start, a
 * visibility record and a workflow task per invoice.
 */
function pdfEnCola() {
  return proxyActivities<Actividades>({
    taskQueue: colaPdf(workflowInfo().taskQueue),
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: '30 seconds',
    retry: { initialInterval: '2 seconds', maximumInterval: '1 minute' },
    summary: 'PDF de la factura',
  });
}

export interface EntradaTimbradoV3 extends EntradaTimbrado {
  /**
   * Started to abandon (the stamping had no running workflow: terminated by an operator): no attempt is made, the
   * abandon is recorded at once.
   */
  abandono?: SolicitudAbandono;
}

// The abandon's step asks the PAC for the stamp of the sealed XML, so it retries while the PAC is down: the
// same policy as a stamping's PAC call. It is never cut short (nothing may run beside it).
const abandono = proxyActivities<Actividades>({
  startToCloseTimeout: '60 seconds',
  heartbeatTimeout: '5 seconds',
  retry: REINTENTO_PAC,
  summary: 'Abandono del timbrado',
});

/**
 * A run started after another was terminated may have that run's last PAC call still in flight (an activity
 * outlives its terminated workflow until its call returns): the abandon waits until the invoice has been quiet
 * for longer than such a call can last (a PAC call is bounded at 20 s, an attempt makes two). Within a run, the
 * abandon waited for its own attempt to end: nothing to wait for.
 */
const QUIETUD_TRAS_OTRA_EJECUCION_MS = 60_000;

/** Records the abandon (or the stamp the PAC already gave) and what ops see of it. */
async function registrarAbandono(e: EntradaTimbrado, s: SolicitudAbandono, quietudMs: number) {
  const r = await abandono.registrarAbandono({ ...e, pdfEnElFlujo: true }, s, quietudMs);
  const resultado: ResultadoTimbrado = r.estado === 'timbrada' ? 'timbrada' : 'fallido';
  upsertSearchAttributes([
    { key: ATRIBUTOS.EstadoFactura, value: resultado },
    {
      key: ATRIBUTOS.ErrorTimbrado,
      value: r.estado === 'rechazado' ? [r.error.paso ?? 'pac', r.error.codigo] : [],
    },
    ...(r.referencias?.length ? [{ key: ATRIBUTOS.Referencias, value: r.referencias }] : []),
  ]);
  return resultado;
}

/**
 * One per invoice (workflow id `timbrado:<factura>`): seal, pre-validate and stamp exactly once, answer the
 * API's wait, then render and store the PDF on the PDF queue. It stays open (`EstadoFactura` already
 * `timbrada`) while its PDF waits its turn.
 *
 * An operator may abandon it (`abandonarTimbrado`, the API's `…/timbrado/abandonar`) while it waits on a fault
 * retrying cannot fix: the attempt in progress ends first (its activity is cancelled and waited for), then the PAC
 * is asked for the stamp of the sealed XML, as every retry does: stamped, the stamp is recorded; otherwise the
 * invoice ends `fallido` (`timbrado_abandonado`). No patch: a run that never receives the update, and every run
 * started before it existed, takes exactly the steps it took before (the recorded histories replay).
 */
export async function timbrarFacturaV3(e: EntradaTimbradoV3): Promise<ResultadoTimbrado> {
  const pedido: Abandono = {};
  const esperas = crearEsperas(pedido);
  const fin = responderEspera(esperarTimbrado);
  setHandler(abandonarTimbrado, async (s) => {
    if (fin.resultado === undefined) {
      pedido.pedido ??= s;
      esperas.cortar();
    }
    await condition(() => fin.resultado !== undefined);
    return fin.resultado!;
  });
  let resultado: ResultadoTimbrado;
  if (e.abandono) {
    pedido.pedido ??= e.abandono;
    resultado = await registrarAbandono(e, pedido.pedido, QUIETUD_TRAS_OTRA_EJECUCION_MS);
  } else {
    try {
      resultado = await timbrarAcotado({ ...e, pdfEnElFlujo: true }, esperas, {
        referencias: true,
        deUnaVez: true,
      });
    } catch (err) {
      if (!(err instanceof Abandonado)) throw err;
      resultado = await registrarAbandono(e, pedido.pedido!, 0);
    }
  }
  fin.resultado = resultado;
  if (resultado === 'timbrada') await pdfEnCola().generarPdf(e);
  await condition(allHandlersFinished);
  return resultado;
}
