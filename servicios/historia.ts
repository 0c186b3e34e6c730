import type { RepositorioUsuarios } from '../db/repositorios/usuarios';
import { esUsuario } from '../dominio/usuario';
import type { Esquema } from '../contrato';
import type { FilaCorreo, RepositorioCorreos } from '../db/repositorios/correos';
import type { FilaEntregaConUrl, RepositorioEntregas } from '../db/repositorios/entregas';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import type { FilaFactura, RepositorioFacturas } from '../db/repositorios/facturas';
import type { RepositorioLlaves } from '../db/repositorios/llaves';
import type { FilaPago, RepositorioPagos } from '../db/repositorios/pagos';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio, noEncontrado } from '../dominio/errores';
import { dtoEvento, type Evento } from '../presentacion/evento';
import { fechaEnZona } from '../cfdi/fecha';
import { iso } from '../presentacion/fechas';
import { saldosParcialidad } from '../presentacion/importes';
import { fallaDelPac, hora, veces, zonaDe } from '../presentacion/textos';

/** One activity of a run as a series of tries: a local one (its marker), or a regular one retried N times. */
export interface SerieIntentos {
  actividad: string;
  local: boolean;
  /** When the first try was scheduled. */
  desde: Date;
  /** When the last try started (or, of a local one, ended). */
  hasta: Date;
  /** Tries made; null when the history does not say (a retrying activity cancelled in its backoff). */
  intentos: number | null;
  fallidos: number | null;
  /** The last failure's message (the activity's own error). */
  ultimaFalla: string | null;
  resultado: 'completada' | 'fallida' | 'cancelada' | 'agotada' | 'en_curso';
  fin?: Date;
}

/** A run of a workflow as the history reads it (temporal/historias.ts `resumirHistoria`). */
export interface ResumenFlujo {
  workflowId: string;
  runId: string;
  tipo: string;
  estado: string;
  inicio: Date;
  /** The API request that started it (its input's `origen`), if one did. */
  origen: { solicitudId: string; llaveId: string } | null;
  /** A run started only to record an abandon. */
  soloAbandono: boolean;
  series: SerieIntentos[];
  actualizaciones: { nombre: string; en: Date }[];
}

/** The port to Temporal: the runs of these workflow ids (scope-checked), each summarised. */
export interface LectorPasosFlujo {
  /** Throws `temporal_no_disponible` when Temporal does not answer in time. */
  resumenes(a: Alcance, workflowIds: string[]): Promise<ResumenFlujo[]>;
}

export interface DepsHistoria {
  facturas: Pick<RepositorioFacturas, 'obtener'>;
  pagos: Pick<RepositorioPagos, 'deFactura'>;
  eventos: Pick<RepositorioEventos, 'listar'>;
  entregas: Pick<RepositorioEntregas, 'deEventos'>;
  correos: Pick<RepositorioCorreos, 'deFacturas'>;
  llaves: Pick<RepositorioLlaves, 'obtener'>;
  usuarios: Pick<RepositorioUsuarios, 'obtener'>;
  flujos: LectorPasosFlujo;
  ahora?: () => Date;
}

export type Historia = Esquema<'Historia'>;
type Paso = Historia['pasos'][number];
type Actor = NonNullable<Paso['actor']>;

const PAGINA_EVENTOS = 100;
const PAC = new Set(['timbrarDeUnaVez', 'enviarAlPac']);
const CANCELACION = new Set(['solicitarCancelacion', 'consultarCancelacion']);

/** `YYYY-MM-DDThh:mm:ss` of a zone (the CFDI's Fecha) as an instant: the zone's offset at that moment. */
function desdeLocal(fecha: string, huso: string | undefined): Date {
  const supuesto = new Date(`${fecha}Z`);
  const local = new Date(`${fechaEnZona(supuesto, zonaDe(huso))}Z`);
  return new Date(supuesto.getTime() - (local.getTime() - supuesto.getTime()));
}

/**
 * An invoice's story in plain Spanish (`GET /v1/facturas/{id}/historia`, and `historia.json` of its audit
 * package): created by whom, sealed, each PAC attempt with its cause and time (repeated failures as one step),
 * stamped with its UUID, emailed, each payment with the balance after it, cancellation asked and answered, webhook
 * deliveries with the HTTP status they got. Built from the events, the ledger, the email and delivery logs (MySQL)
 * and the Temporal histories of its stamping and cancellation; without Temporal, the rest, and it says so.
 */
export function crearServicioHistoria(deps: DepsHistoria) {
  const ahora = deps.ahora ?? (() => new Date());

  async function eventosDe(a: Alcance, facturaId: string): Promise<Evento[]> {
    const todos: Evento[] = [];
    let despuesDe: string | undefined;
    for (;;) {
      const t = await deps.eventos.listar(a, { facturaId }, { limite: PAGINA_EVENTOS, despuesDe });
      todos.push(...t.datos.map(dtoEvento));
      if (!t.hayMas || !t.datos.length) return todos.reverse();
      despuesDe = t.datos[t.datos.length - 1]!.id;
    }
  }

  /** Who acted: a key with its name while the account has it, or a console user with their email. */
  function actores(a: Alcance) {
    const nombres = new Map<string, Promise<string | null>>();
    const nombre = (id: string) => {
      if (!nombres.has(id))
        nombres.set(
          id,
          esUsuario(id)
            ? deps.usuarios.obtener(a.cuentaId, id).then((u) => u?.correo ?? null)
            : deps.llaves.obtener(a.cuentaId, id, ['test', 'live']).then((l) => l?.nombre ?? null),
        );
      return nombres.get(id)!;
    };
    return async (id: string | null | undefined): Promise<Actor> =>
      id
        ? { tipo: esUsuario(id) ? 'usuario' : 'llave', id, nombre: await nombre(id) }
        : { tipo: 'sistema', id: null, nombre: null };
  }

  const quien = (x: Actor) =>
    x.tipo === 'usuario'
      ? `${x.nombre ?? x.id} desde la consola`
      : x.tipo === 'llave'
        ? `la llave ${x.nombre ? `«${x.nombre}» (${x.id})` : x.id}`
        : 'el servicio';

  async function armar(a: Alcance, f: FilaFactura): Promise<Historia> {
    const t = ahora();
    const huso = f.documento.huso_horario;
    const h = (d: Date) => hora(d, huso, t);
    const actor = actores(a);
    const pasos: (Paso & { orden: number })[] = [];
    const paso = (p: Paso) => pasos.push({ ...p, orden: pasos.length });

    const pagoPropio = f.documento.pago?.id;
    const ids = [`timbrado:${f.id}`, `cancelacion:${f.id}`, ...(pagoPropio ? [`pago:${pagoPropio}`] : [])];
    const [eventos, pagos, correos, flujos] = await Promise.all([
      eventosDe(a, f.id),
      deps.pagos.deFactura(a, f.id),
      (async () => deps.correos.deFacturas(a, [f.id]))(),
      deps.flujos.resumenes(a, ids).then(
        (r) => ({ r, error: null as string | null }),
        (err: unknown) => ({
          r: [] as ResumenFlujo[],
          error:
            err instanceof ErrorNegocio
              ? err.message
              : 'No se pudieron leer las historias de Temporal: se muestra lo que registra MySQL.',
        }),
      ),
    ]);
    const entregas = await deps.entregas.deEventos(
      a,
      eventos.map((e) => e.id),
    );
    const propios = eventos.filter((e) => (e.datos as { id?: string }).id === f.id);
    const timbrados = flujos.r.filter(
      (r) => r.workflowId.startsWith('timbrado:') || r.workflowId.startsWith('pago:'),
    );

    // Created: by the request that created it (a draft's event), or that started its first stamping.
    const creada = propios.find((e) => e.tipo === 'factura.creada');
    const llaveCreadora =
      creada?.actor?.id ??
      timbrados[0]?.origen?.llaveId ??
      propios.find((e) => e.solicitud)?.solicitud?.llave;
    const creador = await actor(llaveCreadora);
    const e = f.documento.entrada;
    const serieFolio = [e.serie, e.folio].filter(Boolean).join('-');
    paso({
      en: iso(f.creado_en),
      tipo: 'creada',
      texto: `${pagoPropio ? `CFDI del pago ${pagoPropio}` : `Factura ${serieFolio || f.id}`} creada por ${quien(creador)}: ${f.documento.importes.total} ${e.moneda ?? 'MXN'} a ${f.documento.cliente.rfc}.`,
      actor: creador,
      detalle: {
        serie: e.serie ?? null,
        folio: e.folio ?? null,
        total: f.documento.importes.total,
        cliente: f.documento.cliente.rfc,
      },
    });

    if (f.no_certificado && e.fecha) {
      // The Fecha has whole seconds: never before the creation it follows.
      const sellada = Math.max(desdeLocal(e.fecha, huso).getTime(), f.creado_en.getTime());
      paso({
        en: iso(new Date(sellada)),
        tipo: 'sellada',
        texto: `Sellada con el certificado ${f.no_certificado} (Fecha del CFDI ${e.fecha}).`,
        actor: await actor(null),
        detalle: { no_certificado: f.no_certificado, fecha: e.fecha },
      });
    }

    // The PAC's tries, run after run: consecutive failures read as one step.
    let contados = 0;
    /** The failed sends MySQL counted that no series of the history did (at most one such group is filled). */
    const sinContar = () => {
      const n = f.timbrado_intentos - (f.uuid ? 1 : 0) - contados;
      return n >= 1 ? n : null;
    };
    for (const r of flujos.r) {
      const cancelacion = r.workflowId.startsWith('cancelacion:');
      if (cancelacion) {
        const solicitante = await actor(r.origen?.llaveId);
        paso({
          en: iso(r.inicio),
          tipo: 'cancelacion_solicitada',
          texto: `Cancelación solicitada por ${quien(solicitante)}${f.cancelacion ? ` (motivo ${f.cancelacion.motivo})` : ''}.`,
          actor: solicitante,
          detalle: { workflow: r.workflowId, run: r.runId },
        });
      }
      interface Grupo {
        desde: Date;
        hasta: Date;
        n: number | null;
        falla: string | null;
      }
      let grupo: Grupo | null = null;
      const cerrar = () => {
        if (!grupo) return;
        const causa = cancelacion
          ? `el PAC no respondió a la cancelación (${fallaDelPac(grupo.falla)})`
          : `el PAC no respondió (${fallaDelPac(grupo.falla)})`;
        // A retrying activity cut short in its backoff leaves no count in the history: MySQL counted the sends.
        const n = grupo.n ?? (cancelacion ? null : sinContar());
        const lapso =
          h(grupo.desde) === h(grupo.hasta)
            ? `a las ${h(grupo.desde)}`
            : `entre las ${h(grupo.desde)} y las ${h(grupo.hasta)}`;
        const cuando =
          n === 1
            ? `Intento fallido a las ${h(grupo.desde)}`
            : n === null
              ? `Intentos fallidos ${lapso}`
              : `${n} intentos fallidos ${lapso}`;
        if (!cancelacion && n !== null) contados += n;
        paso({
          en: iso(grupo.desde),
          tipo: cancelacion ? 'intentos_cancelacion' : 'intentos_pac',
          texto: `${cuando}: ${causa}.`,
          actor: null,
          detalle: {
            intentos: n,
            desde: iso(grupo.desde),
            hasta: iso(grupo.hasta),
            ultima_falla: grupo.falla,
            workflow: r.workflowId,
          },
        });
        grupo = null;
      };
      for (const s of r.series) {
        const deLaOperacion = cancelacion ? CANCELACION.has(s.actividad) : PAC.has(s.actividad);
        if (deLaOperacion && s.fallidos !== 0) {
          const g: Grupo = grupo ?? { desde: s.desde, hasta: s.hasta, n: 0, falla: null };
          g.hasta = s.hasta;
          g.n = g.n === null || s.fallidos === null ? null : g.n + s.fallidos;
          g.falla = s.ultimaFalla ?? g.falla;
          grupo = g;
        }
        if (s.actividad === 'prepararTimbrado' && s.fallidos) {
          paso({
            en: iso(s.desde),
            tipo: 'intentos_preparacion',
            texto: `${veces(s.fallidos, 'intento fallido', 'intentos fallidos')} al preparar el timbrado (la base de datos no respondió: ${(s.ultimaFalla ?? 'sin detalle').slice(0, 160)}).`,
            actor: null,
            detalle: { intentos: s.fallidos, ultima_falla: s.ultimaFalla, workflow: r.workflowId },
          });
        }
        if (deLaOperacion && (s.resultado === 'completada' || s.resultado === 'en_curso')) cerrar();
        if (s.actividad === 'generarPdf' && s.resultado === 'completada' && s.fin) {
          paso({
            en: iso(s.fin),
            tipo: 'pdf_generado',
            texto: 'Se generó su PDF.',
            actor: null,
            detalle: { workflow: r.workflowId },
          });
        }
      }
      cerrar();
      for (const u of r.actualizaciones.filter((x) => x.nombre === 'reintentarAhora')) {
        paso({
          en: iso(u.en),
          tipo: 'reintento_pedido',
          texto: `Se pidió reintentar ahora, sin esperar el siguiente intento programado.`,
          actor: null,
          detalle: { workflow: r.workflowId },
        });
      }
      if (r.estado === 'RUNNING' && r.series.some((s) => !s.local && s.resultado === 'en_curso')) {
        const s = r.series.find((x) => !x.local && x.resultado === 'en_curso')!;
        paso({
          en: iso(s.hasta),
          tipo: cancelacion ? 'cancelacion_en_espera' : 'timbrado_en_espera',
          texto: `Sigue intentando${s.intentos ? ` (intento ${s.intentos})` : ''}${s.ultimaFalla ? `; la última falla: ${fallaDelPac(s.ultimaFalla)}` : ''}.`,
          actor: null,
          detalle: { intento: s.intentos, ultima_falla: s.ultimaFalla, workflow: r.workflowId },
        });
      }
      if (['TERMINATED', 'CANCELLED', 'TIMED_OUT'].includes(r.estado)) {
        paso({
          en: iso(r.series.at(-1)?.hasta ?? r.inicio),
          tipo: 'flujo_detenido',
          texto: `Su workflow ${r.workflowId} se detuvo (${r.estado === 'TERMINATED' ? 'terminado por un operador' : r.estado === 'CANCELLED' ? 'cancelado' : 'agotado'}) antes de terminar.`,
          actor: null,
          detalle: { workflow: r.workflowId, run: r.runId, estado: r.estado },
        });
      }
    }

    for (const ev of eventos) {
      const datos = ev.datos as {
        id?: string;
        uuid?: string | null;
        fecha_timbrado?: string | null;
        timbrado?: { ultimo_error?: { codigo: string; mensaje: string } | null; intentos?: number };
        cancelacion?: { motivo?: string; error?: { codigo: string; mensaje: string } } | null;
      };
      const quienEv = await actor(ev.actor?.id);
      const base = { en: ev.creado_en, actor: quienEv, detalle: { evento: ev.id, tipo_evento: ev.tipo } };
      const propio = datos.id === f.id;
      switch (ev.tipo) {
        case 'factura.timbrada':
          paso({
            ...base,
            tipo: propio ? 'timbrada' : 'evento',
            texto: propio
              ? `Timbrada por el PAC con UUID ${datos.uuid}${datos.timbrado?.intentos ? ` (${veces(datos.timbrado.intentos, 'envío', 'envíos')} al PAC)` : ''}, a petición de ${quien(quienEv)}.`
              : `CFDI de pago ${datos.id} timbrado con UUID ${datos.uuid}.`,
            detalle: {
              ...base.detalle,
              uuid: datos.uuid ?? null,
              fecha_timbrado: datos.fecha_timbrado ?? null,
            },
          });
          break;
        case 'factura.timbrado_fallido': {
          const err = datos.timbrado?.ultimo_error;
          const abandonado = err?.codigo === 'timbrado_abandonado';
          paso({
            ...base,
            tipo: abandonado ? 'timbrado_abandonado' : 'timbrado_fallido',
            texto: abandonado
              ? `Timbrado abandonado por ${quien(quienEv)}: el PAC no lo había timbrado; queda en borrador.`
              : `El timbrado falló en definitiva: ${err?.codigo ?? ''} ${err?.mensaje ?? ''}`.trim(),
            detalle: { ...base.detalle, error: err ?? null },
          });
          break;
        }
        case 'factura.cancelada':
          paso({
            ...base,
            tipo: propio ? 'cancelada' : 'evento',
            texto: propio
              ? `Cancelada: el SAT aceptó la cancelación${datos.cancelacion?.motivo ? ` (motivo ${datos.cancelacion.motivo})` : ''}.`
              : `CFDI de pago ${datos.id} cancelado: su pago deja de contar en el saldo.`,
          });
          break;
        case 'factura.cancelacion_fallida': {
          const err = datos.cancelacion?.error;
          paso({
            ...base,
            tipo: 'cancelacion_fallida',
            texto: `La cancelación no procedió${err ? `: ${err.mensaje}` : ''}; la factura sigue timbrada.`,
            detalle: { ...base.detalle, error: err ?? null },
          });
          break;
        }
        case 'factura.creada':
        case 'pago.creado':
        case 'correo.enviado':
        case 'correo.fallido':
          // Told by their own step (creation, the ledger, the email log).
          break;
        default:
          paso({ ...base, tipo: 'evento', texto: `Evento ${ev.tipo}.` });
      }
    }

    if (f.cancelacion && !flujos.r.some((r) => r.workflowId.startsWith('cancelacion:'))) {
      // Without Temporal: the request as the invoice records it (the last one).
      paso({
        en: f.cancelacion.solicitada_en,
        tipo: 'cancelacion_solicitada',
        texto: `Cancelación solicitada (motivo ${f.cancelacion.motivo}).`,
        actor: null,
        detalle: { estado: f.cancelacion.estado },
      });
    }
    if (f.cancelacion?.estado === 'en_proceso') {
      paso({
        en: f.cancelacion.actualizada_en,
        tipo: 'cancelacion_en_espera',
        texto: 'El receptor debe aceptar o rechazar la cancelación; el SAT se consulta periódicamente.',
        actor: null,
        detalle: { estado: 'en_proceso' },
      });
    }

    for (const p of pagos) await pasosDePago(p);
    for (const c of correos) pasoDeCorreo(c);
    for (const en of entregas) pasoDeEntrega(en);

    async function pasosDePago(p: FilaPago) {
      const renglon = p.parcialidades.find((x) => x.factura === f.id);
      if (!renglon) return;
      const s = saldosParcialidad(renglon, renglon.decimales);
      const evento = eventos.find(
        (x) => x.tipo === 'pago.creado' && (x.datos as { id?: string }).id === p.id,
      );
      const quienPago = await actor(evento?.actor?.id);
      paso({
        en: evento?.creado_en ?? iso(p.creado_en),
        tipo: 'pago',
        texto: `Pago ${p.id} de ${s.imp_pagado} ${renglon.moneda} (parcialidad ${renglon.num_parcialidad}), registrado por ${quien(quienPago)}: saldo insoluto ${s.imp_saldo_insoluto}${renglon.vigente ? '' : '; ya no cuenta (su CFDI de pago se canceló o el PAC lo rechazó)'}.`,
        actor: quienPago,
        detalle: {
          pago: p.id,
          parcialidad: renglon.num_parcialidad,
          imp_pagado: s.imp_pagado,
          imp_saldo_anterior: s.imp_saldo_anterior,
          imp_saldo_insoluto: s.imp_saldo_insoluto,
          vigente: renglon.vigente,
          factura_pago: p.factura_pago_id,
        },
      });
    }

    function pasoDeCorreo(c: FilaCorreo) {
      const a = c.destinatarios.join(', ');
      const detalle = {
        correo: c.id,
        motivo: c.motivo,
        intentos: c.intentos,
        respuesta_smtp: c.respuesta_smtp,
      };
      if (c.estado === 'enviado')
        paso({
          en: iso(c.enviado_en ?? c.creado_en),
          tipo: 'correo_enviado',
          texto: `Enviada por correo a ${a}${c.motivo === 'cancelacion' ? ' (la cancelación, con su acuse)' : ''}.`,
          actor: null,
          detalle,
        });
      else if (c.estado === 'fallido')
        paso({
          en: iso(c.ultimo_intento_en ?? c.creado_en),
          tipo: 'correo_fallido',
          texto: `El correo a ${a} no se pudo enviar: ${c.error?.mensaje ?? c.respuesta_smtp ?? 'sin detalle'}.`,
          actor: null,
          detalle,
        });
      else
        paso({
          en: iso(c.ultimo_intento_en ?? c.creado_en),
          tipo: 'correo_pendiente',
          texto: `El correo a ${a} sigue pendiente${c.intentos ? ` tras ${veces(c.intentos, 'intento')} (último: ${c.respuesta_smtp ?? 'sin respuesta'})` : ''}.`,
          actor: null,
          detalle,
        });
    }

    function pasoDeEntrega(x: FilaEntregaConUrl) {
      const ultimo = x.intentos.at(-1);
      const status = (i: (typeof x.intentos)[number]) =>
        i.status_http !== null ? `HTTP ${i.status_http}` : (i.error?.mensaje ?? 'sin respuesta');
      const detalle = {
        entrega: x.id,
        evento: x.evento_id,
        tipo_evento: x.tipo_evento,
        webhook: x.webhook_id,
        url: x.webhook_url,
        intentos: x.intentos.length,
        status_http: ultimo?.status_http ?? null,
      };
      const que = `El webhook de ${x.tipo_evento} a ${x.webhook_url}`;
      if (x.estado === 'entregada')
        paso({
          en: iso(ultimo?.iniciado_en ?? x.actualizado_en),
          tipo: 'webhook_entregado',
          texto: `${que} se entregó (${ultimo ? status(ultimo) : 'sin intentos'}${x.intentos.length > 1 ? `, en el intento ${x.intentos.length}` : ''}).`,
          actor: null,
          detalle,
        });
      else if (x.estado === 'pendiente')
        paso({
          en: iso(ultimo?.iniciado_en ?? x.creado_en),
          tipo: 'webhook_fallando',
          texto: ultimo
            ? `${que} está fallando: ${status(ultimo)} en ${veces(x.intentos.length, 'intento')}${x.proximo_intento_en ? `; el siguiente a las ${h(x.proximo_intento_en)}` : ''}.`
            : `${que} aún no hace su primer intento.`,
          actor: null,
          detalle,
        });
      else
        paso({
          en: iso(ultimo?.iniciado_en ?? x.actualizado_en),
          tipo: x.estado === 'fallida' ? 'webhook_fallido' : 'webhook_cancelado',
          texto:
            x.estado === 'fallida'
              ? `${que} no se entregó: ${veces(x.intentos.length, 'intento fallido', 'intentos fallidos')}${ultimo ? ` (el último, ${status(ultimo)})` : ''}.`
              : `${que} se canceló: el webhook se desactivó o eliminó.`,
          actor: null,
          detalle,
        });
    }

    pasos.sort((x, y) => (x.en === y.en ? x.orden - y.orden : x.en < y.en ? -1 : 1));
    return {
      objeto: 'historia',
      factura: f.id,
      modo: f.modo,
      generada_en: iso(t),
      temporal: { leido: flujos.error === null, error: flujos.error },
      pasos: pasos.map(({ orden: _o, ...p }) => p),
    };
  }

  return {
    async historia(a: Alcance, id: string): Promise<Historia> {
      const f = await deps.facturas.obtener(a, id);
      if (!f) throw noEncontrado('factura_no_encontrada', `La factura ${id} no existe.`);
      return armar(a, f);
    },
  };
}

export type ServicioHistoria = ReturnType<typeof crearServicioHistoria>;
