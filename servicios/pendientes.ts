import type { Esquema } from '../contrato';
import type { FilaPendiente, RepositorioPendientes } from '../db/repositorios/pendientes';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio } from '../dominio/errores';
import type { Pagina, Tramo } from '../dominio/paginacion';
import type { TipoPendiente } from '../dominio/pendiente';
import { iso, isoONulo } from '../presentacion/fechas';
import { fallaDelPac, hora, veces } from '../presentacion/textos';
import type { ServicioOrganizaciones } from './organizaciones';

/** A workflow as the pending view reads it from Temporal: its status and its pending activity, if any. */
export interface EstadoFlujo {
  estado:
    | 'en_curso'
    | 'completado'
    | 'fallido'
    | 'cancelado'
    | 'terminado'
    | 'agotado'
    | 'continuado'
    | 'inexistente'
    | 'desconocido';
  actividad: {
    nombre: string;
    intento: number;
    ultimaFalla: string | null;
    siguienteIntento: Date | null;
  } | null;
}

/** The port to Temporal (temporal/flujos.ts): each operation's workflow id, and a bounded describe of several. */
export interface LectorFlujos {
  idFlujo(f: FilaPendiente): string;
  /** Never throws: an id Temporal did not describe within `plazoMs` maps to an `error` saying so. */
  describir(ids: string[], plazoMs: number): Promise<Map<string, EstadoFlujo | { error: string }>>;
}

export interface DepsPendientes {
  pendientes: RepositorioPendientes;
  organizaciones: Pick<ServicioOrganizaciones, 'idDeFiltro'>;
  flujos: LectorFlujos;
  /** How long a page may wait on Temporal for the enrichment (default 1.5 s); past it, MySQL's view alone. */
  plazoTemporalMs?: number;
  ahora?: () => Date;
}

export type Pendiente = Esquema<'Pendiente'>;
type Accion = Pendiente['acciones'][number];
type Causa = NonNullable<Pendiente['ultima_causa']>;

const PLAZO_TEMPORAL_MS = 1500;

/** What a status means in the sentence: a run that is not running leaves the operation to nobody. */
const DETENIDO: Partial<Record<EstadoFlujo['estado'], string>> = {
  terminado: 'terminado por un operador',
  cancelado: 'cancelado',
  fallido: 'fallido',
  agotado: 'agotado por tiempo',
  completado: 'terminado',
  inexistente: 'sin iniciar',
};

const accion = (a: Accion['accion'], ruta: string, descripcion: string): Accion => ({
  accion: a,
  metodo: 'POST',
  ruta,
  descripcion,
});

/**
 * The pending view (`GET /v1/pendientes`): every operation not final, of every kind, from MySQL (the system of
 * record), each with its age, step, attempts, last cause in words and what may be done about it; enriched from
 * Temporal (the workflow's status, the pending activity's attempt and last failure) within a bounded wait, so a
 * slow or absent Temporal never fails the list: the item says so.
 */
export function crearServicioPendientes(deps: DepsPendientes) {
  const ahora = deps.ahora ?? (() => new Date());
  const plazo = deps.plazoTemporalMs ?? PLAZO_TEMPORAL_MS;

  function armar(
    a: Alcance,
    f: FilaPendiente,
    flujo: EstadoFlujo | { error: string } | undefined,
    t: Date,
  ): Pendiente {
    const leido = flujo && 'estado' in flujo ? flujo : undefined;
    const h = (d: Date) => hora(d, f.huso_horario, t);
    const detenido = leido && leido.estado !== 'en_curso' ? DETENIDO[leido.estado] : undefined;
    const act = leido?.actividad ?? null;
    const desdeTexto = `desde las ${h(f.desde)}`;
    let paso: Pendiente['paso'];
    let causa: Causa | null = null;
    const acciones: Accion[] = [];

    switch (f.tipo) {
      case 'timbrado': {
        paso = f.error?.paso === 'pac' || f.intentos! > 0 ? 'pac' : 'preparacion';
        if (act?.nombre === 'prepararTimbrado') paso = 'preparacion';
        // The sends MySQL counted (Temporal's attempt counter also counts tries that never reached the PAC).
        const n = f.intentos ?? 0;
        if (f.error) {
          const que =
            f.error.codigo === 'pac_no_disponible'
              ? `El PAC no respondió (${fallaDelPac(act?.ultimaFalla ?? f.error.mensaje)})`
              : f.error.codigo === 'base_de_datos_no_disponible'
                ? 'La base de datos no respondió al preparar el timbrado'
                : f.error.mensaje;
          causa = { codigo: f.error.codigo, mensaje: `${que} — ${veces(n, 'intento')} ${desdeTexto}` };
        } else if (act?.ultimaFalla) {
          causa = {
            codigo: paso === 'pac' ? 'pac_no_disponible' : 'base_de_datos_no_disponible',
            mensaje: `${paso === 'pac' ? 'El PAC no respondió' : 'No se pudo preparar el timbrado'} (${fallaDelPac(act.ultimaFalla)}) — ${veces(n, 'intento')} ${desdeTexto}`,
          };
        }
        const ruta = `/v1/facturas/${f.id}/timbrado`;
        acciones.push(
          accion(
            'reintentar',
            `${ruta}/reintentar`,
            detenido
              ? 'Inicia de nuevo el timbrado: pregunta primero al PAC por el timbre del mismo XML sellado.'
              : 'Corta la espera y envía al PAC ahora (exactamente una vez: antes pregunta por el timbre previo).',
          ),
        );
        // A payment CFDI belongs to its payment: retried, never abandoned on its own.
        if (!f.pago_id)
          acciones.push(
            accion(
              'abandonar',
              `${ruta}/abandonar`,
              'Detiene el timbrado y deja la factura fallida (timbrado_abandonado), salvo que el PAC ya la haya timbrado: entonces guarda ese timbre.',
            ),
          );
        break;
      }
      case 'cancelacion': {
        const c = f.cancelacion!;
        paso = c.estado === 'en_proceso' ? 'respuesta_receptor' : 'solicitud';
        if (act?.ultimaFalla) {
          causa = {
            codigo: 'pac_no_disponible',
            mensaje: `El PAC no respondió a la ${paso === 'solicitud' ? 'solicitud de cancelación' : 'consulta del estado en el SAT'} (${fallaDelPac(act.ultimaFalla)}) — ${veces(act.intento, 'intento')} ${desdeTexto}`,
          };
        } else if (paso === 'respuesta_receptor') {
          causa = {
            codigo: 'esperando_receptor',
            mensaje: `El receptor debe aceptar o rechazar la cancelación (motivo ${c.motivo}); el SAT se consulta periódicamente ${desdeTexto}`,
          };
        } else {
          causa = {
            codigo: 'esperando_pac',
            mensaje: `La solicitud de cancelación espera la primera respuesta del PAC ${desdeTexto}`,
          };
        }
        acciones.push(
          accion(
            'reintentar',
            `/v1/facturas/${f.id}/cancelacion/reintentar`,
            paso === 'solicitud'
              ? 'Corta la espera y pide la cancelación al PAC ahora (uno que ya la recibió responde su estado).'
              : 'Consulta ahora al SAT el estado de la cancelación, sin esperar la siguiente consulta.',
          ),
        );
        break;
      }
      case 'pago': {
        paso = 'registro';
        causa = act?.ultimaFalla
          ? {
              codigo: 'base_de_datos_no_disponible',
              mensaje: `No se pudo registrar el pago en el libro (${act.ultimaFalla.slice(0, 160)}) — ${veces(act.intento, 'intento')} ${desdeTexto}`,
            }
          : { codigo: 'registrando', mensaje: `El pago se está registrando en el libro ${desdeTexto}` };
        break;
      }
      case 'correo': {
        paso = 'envio';
        const n = f.intentos ?? 0;
        causa = f.error
          ? {
              codigo: f.error.codigo,
              mensaje: `El servidor de correo no aceptó el mensaje (${f.error.mensaje.slice(0, 160)}) — ${veces(n, 'intento')} ${desdeTexto}`,
            }
          : { codigo: 'por_enviar', mensaje: `El correo aún no sale ${desdeTexto}` };
        break;
      }
      case 'entrega': {
        const n = f.intentos ?? 0;
        paso = n > 0 ? 'espera_reintento' : 'envio';
        if (n > 0) {
          const que =
            f.status_http !== null
              ? `El webhook respondió HTTP ${f.status_http}`
              : `El webhook no respondió (${f.error?.mensaje.slice(0, 160) ?? 'sin detalle'})`;
          const siguiente = f.proximo_intento_en ? `; el siguiente a las ${h(f.proximo_intento_en)}` : '';
          causa = {
            codigo: f.error?.codigo ?? 'status_http',
            mensaje: `${que} — ${veces(n, 'intento')} ${desdeTexto}${siguiente}`,
          };
        } else {
          causa = {
            codigo: 'por_enviar',
            mensaje: `La entrega aún no hace su primer intento (${desdeTexto})`,
          };
        }
        acciones.push(
          accion(
            'reintentar',
            `/v1/entregas/${f.id}/reintentar`,
            'Hace ahora el siguiente intento de esta misma entrega (no crea otra).',
          ),
        );
        break;
      }
      case 'reexpedicion': {
        paso = f.estado_factura === 'pendiente' ? 'timbrado_comprador' : 'reexpedicion';
        causa =
          paso === 'timbrado_comprador'
            ? {
                codigo: 'timbrado_comprador',
                mensaje: `Se espera el timbrado de la factura del comprador ${f.factura_id} para reexpedir la global ${f.factura_global_id} ${desdeTexto}`,
              }
            : {
                codigo: 'reexpedicion',
                mensaje: `La global ${f.factura_global_id} se reexpide sin este recibo y se cancela con motivo 04 ${desdeTexto}`,
              };
        break;
      }
    }
    // A run that is not running leaves the operation to nobody: that is the cause to act on.
    if (detenido) {
      causa = {
        codigo: 'flujo_detenido',
        mensaje: `Su workflow está ${detenido} y la operación sigue pendiente ${desdeTexto}${
          causa ? ` (última causa: ${causa.mensaje})` : ''
        }; el reanudador la inicia de nuevo en unos minutos${acciones.length ? ', o «reintentar» ahora' : ''}.`,
      };
    }
    const reintento = act?.siguienteIntento ?? (f.tipo === 'entrega' ? f.proximo_intento_en : null) ?? null;
    return {
      id: f.id,
      objeto: 'pendiente',
      modo: a.modo,
      tipo: f.tipo,
      organizacion: f.organizacion_id,
      recursos: {
        factura: f.factura_id,
        pago: f.pago_id,
        correo: f.tipo === 'correo' ? f.id : null,
        entrega: f.tipo === 'entrega' ? f.id : null,
        evento: f.evento_id,
        webhook: f.webhook_id,
        recibo: f.tipo === 'reexpedicion' ? f.id : null,
        factura_global: f.factura_global_id,
      },
      desde: iso(f.desde),
      antiguedad_s: Math.max(0, Math.floor((t.getTime() - f.desde.getTime()) / 1000)),
      paso,
      intentos: f.intentos,
      ultima_causa: causa,
      proximo_intento_en: isoONulo(reintento),
      flujo: {
        id: deps.flujos.idFlujo(f),
        estado: leido?.estado ?? null,
        actividad: act && {
          nombre: act.nombre,
          intento: act.intento,
          ultima_falla: act.ultimaFalla,
          siguiente_intento: isoONulo(act.siguienteIntento),
        },
        error: flujo && 'error' in flujo ? flujo.error : null,
      },
      acciones,
    };
  }

  return {
    async listar(
      a: Alcance,
      filtros: { tipo?: TipoPendiente; organizacion?: string; antes_de?: string },
      pagina: Pagina,
    ): Promise<Tramo<Pendiente>> {
      const organizacionId = await deps.organizaciones.idDeFiltro(a, filtros.organizacion);
      const antesDe = filtros.antes_de ? new Date(filtros.antes_de) : undefined;
      if (antesDe && Number.isNaN(antesDe.getTime())) {
        throw new ErrorNegocio(
          'solicitud_invalida',
          'parametro_invalido',
          'antes_de debe ser una fecha y hora ISO 8601 con zona (2026-11-27T10:42:00Z).',
          'antes_de',
        );
      }
      const t = await deps.pendientes.listar(a, { tipo: filtros.tipo, organizacionId, antesDe }, pagina);
      const ids = t.datos.map((f) => deps.flujos.idFlujo(f));
      const flujos = ids.length ? await deps.flujos.describir(ids, plazo) : new Map();
      const momento = ahora();
      return {
        datos: t.datos.map((f, i) => armar(a, f, flujos.get(ids[i]!), momento)),
        hayMas: t.hayMas,
      };
    },

    /** How many operations are pending, up to `hasta` (the console's panel): MySQL alone, no Temporal call. */
    async contar(a: Alcance, hasta = 100): Promise<{ total: number; hayMas: boolean }> {
      const t = await deps.pendientes.listar(a, {}, { limite: hasta });
      return { total: t.datos.length, hayMas: t.hayMas };
    },
  };
}

export type ServicioPendientes = ReturnType<typeof crearServicioPendientes>;
