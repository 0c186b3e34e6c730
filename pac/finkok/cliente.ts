import { fechaCfdi } from '../../cfdi/fecha';
import { extraerTimbre } from '../../cfdi/timbre';
import { parsear } from '../../cfdi/xml/parsear';
import {
  ErrorPacConfiguracion,
  ErrorPacTransitorio,
  type ConsultaEstatusSat,
  type ConsultaTimbre,
  type EsCancelable,
  type EstatusCancelacion,
  type EstatusSat,
  type PuertoPac,
  type ResultadoCancelacion,
  type ResultadoTimbrado,
  type SolicitudCancelacion,
  type TimbreObtenido,
} from '../puerto';
import { FallaSoap, leerRespuesta, SobreInvalido, solicitudSoap } from '../soap/sobre';
import { hijoDe, hijosDe, textoDe, type ElementoXml } from '../soap/xml';
import { construirCancelacion, firmanteDe } from './cancelacion';
import {
  CODIGOS,
  CODIGOS_TRANSITORIOS,
  ESTATUS_UUID,
  MENSAJES,
  MENSAJES_ESTATUS_UUID,
  NS_DE,
  partirCodigo,
  RUTAS,
  type Servicio,
} from './protocolo';

/** The Finkok adapter of the PAC port: SOAP over HTTP with node's fetch. See protocolo.ts for the sources. */

export interface OpcionesFinkok {
  /** Base URL: https://facturacion.finkok.com, https://demo-facturacion.finkok.com or the sandbox PAC. */
  url: string;
  usuario: string;
  contrasena: string;
  /** Per call, until the whole answer has arrived. A timeout throws ErrorPacTransitorio. Default 20 s. */
  timeoutMs?: number;
  /** Status queries and cancellations can have their own bound (the SAT is slower). Default: timeoutMs. */
  timeoutCancelacionMs?: number;
  /** For tests; defaults to the global fetch. */
  fetch?: typeof fetch;
}

export interface Incidencia {
  codigo: string;
  mensaje: string;
}

export type ClaseIncidencia = 'previo' | 'configuracion' | 'transitoria' | 'no_encontrado' | 'rechazo';

/** What an Incidencia means for the caller. */
export function clasificarIncidencia(i: Incidencia): ClaseIncidencia {
  if (i.codigo === CODIGOS.timbrePrevio) return 'previo';
  if (i.codigo === CODIGOS.credenciales) return 'configuracion';
  if (CODIGOS_TRANSITORIOS.has(i.codigo)) return 'transitoria';
  if (i.codigo === CODIGOS.sinTimbrePrevio) return 'no_encontrado';
  return 'rechazo';
}

/** `Incidencias/Incidencia` of a stamp result, in order. */
export function leerIncidencias(resultado: ElementoXml): Incidencia[] {
  return hijosDe(hijoDe(resultado, 'Incidencias'), 'Incidencia').map((i) => {
    const codigo = textoDe(hijoDe(i, 'CodigoError')).trim();
    return { codigo, mensaje: textoDe(hijoDe(i, 'MensajeIncidencia')).trim() || MENSAJES[codigo] || codigo };
  });
}

const base64 = (texto: string) => Buffer.from(texto, 'utf8').toString('base64');

export class PacFinkok implements PuertoPac {
  private readonly timeoutMs: number;
  private readonly timeoutCancelacionMs: number;
  private readonly fetch: typeof fetch;

  constructor(private readonly op: OpcionesFinkok) {
    this.timeoutMs = op.timeoutMs ?? 20_000;
    this.timeoutCancelacionMs = op.timeoutCancelacionMs ?? this.timeoutMs;
    this.fetch = op.fetch ?? fetch;
  }

  async timbrar(xmlSellado: string): Promise<ResultadoTimbrado> {
    const r = await this.llamar('timbrado', 'stamp', [['xml', base64(xmlSellado)], ...this.credenciales()]);
    const incidencias = leerIncidencias(r);
    const xml = textoDe(hijoDe(r, 'xml'));
    const [primera] = incidencias;
    if (!primera) {
      if (!xml) throw new ErrorPacTransitorio('stamp respondió sin XML y sin incidencias');
      return timbreDesdeXml(xml, false);
    }
    switch (clasificarIncidencia(primera)) {
      case 'previo': {
        // Finkok may answer 307 with or without the earlier XML; without it, `stamped` recovers it.
        if (xml) return timbreDesdeXml(xml, true);
        const previo = await this.consultarTimbre(xmlSellado);
        if (previo.tipo === 'timbrado') return previo;
        throw new ErrorPacTransitorio('307: el CFDI ya tiene timbre, pero stamped todavía no lo devuelve');
      }
      case 'configuracion':
        throw new ErrorPacConfiguracion(`${primera.codigo}: ${primera.mensaje}`);
      case 'transitoria':
        throw new ErrorPacTransitorio(`${primera.codigo}: ${primera.mensaje}`);
      default:
        return { tipo: 'rechazado', codigo: primera.codigo, mensaje: primera.mensaje };
    }
  }

  async consultarTimbre(consulta: ConsultaTimbre): Promise<TimbreObtenido | { tipo: 'no_encontrado' }> {
    if (typeof consulta !== 'string' && 'uuid' in consulta) return this.consultarPorUuid(consulta.uuid);
    const xmlSellado = typeof consulta === 'string' ? consulta : consulta.xmlSellado;
    const r = await this.llamar('timbrado', 'stamped', [['xml', base64(xmlSellado)], ...this.credenciales()]);
    const [primera] = leerIncidencias(r);
    const xml = textoDe(hijoDe(r, 'xml'));
    if (!primera) return xml ? timbreDesdeXml(xml, true) : { tipo: 'no_encontrado' };
    const clase = clasificarIncidencia(primera);
    if (clase === 'configuracion') throw new ErrorPacConfiguracion(`${primera.codigo}: ${primera.mensaje}`);
    if (clase === 'transitoria') throw new ErrorPacTransitorio(`${primera.codigo}: ${primera.mensaje}`);
    // 603, or any objection to the XML: either way that document carries no stamp.
    return { tipo: 'no_encontrado' };
  }

  private async consultarPorUuid(uuid: string): Promise<TimbreObtenido | { tipo: 'no_encontrado' }> {
    const r = await this.llamar('timbrado', 'query_pending', [...this.credenciales(), ['uuid', uuid]]);
    const error = textoDe(hijoDe(r, 'error')).trim();
    if (error && partirCodigo(error).codigo === CODIGOS.credenciales) throw new ErrorPacConfiguracion(error);
    const xml = textoDe(hijoDe(r, 'xml'));
    return !error && xml ? timbreDesdeXml(xml, true) : { tipo: 'no_encontrado' };
  }

  async cancelar(s: SolicitudCancelacion): Promise<ResultadoCancelacion> {
    const uuid = s.uuid.toUpperCase();
    const xml = await construirCancelacion({
      rfcEmisor: s.rfcEmisor,
      // Local time of the request, as the SAT's cancellation service reads it.
      fecha: fechaCfdi(new Date(), 'Tiempo del Centro'),
      folios: [
        { uuid, motivo: s.motivo, ...(s.folioSustitucion ? { folioSustitucion: s.folioSustitucion } : {}) },
      ],
      firmante: firmanteDe(s.firma),
    });
    const r = await this.llamar('cancelacion', 'cancel_signature', [
      ['xml', base64(xml)],
      ...this.credenciales(),
      // Finkok's retry buffer stays off: a 708 must surface so the workflow decides when to retry.
      ['store_pending', 'false'],
    ]);
    const folios = hijosDe(hijoDe(r, 'Folios'), 'Folio').map((f) => ({
      uuid: textoDe(hijoDe(f, 'UUID')).trim().toUpperCase(),
      estatusUuid: textoDe(hijoDe(f, 'EstatusUUID')).trim(),
      estatusCancelacion: textoDe(hijoDe(f, 'EstatusCancelacion')).trim(),
    }));
    const folio = folios.find((f) => f.uuid === uuid) ?? folios[0];
    if (!folio) return respuestaSinFolios(textoDe(hijoDe(r, 'CodEstatus')).trim());
    const { estatusUuid } = folio;
    if (estatusUuid === ESTATUS_UUID.solicitada || estatusUuid === ESTATUS_UUID.solicitadaAntes) {
      return {
        tipo: 'solicitada',
        uuid,
        estatusUuid,
        estatusCancelacion: normalizarEstatusCancelacion(folio.estatusCancelacion),
        acuse: textoDe(hijoDe(r, 'Acuse')),
        fecha: textoDe(hijoDe(r, 'Fecha')).trim(),
      };
    }
    if (CODIGOS_TRANSITORIOS.has(estatusUuid)) {
      throw new ErrorPacTransitorio(
        `${estatusUuid}: ${MENSAJES[estatusUuid] ?? 'cancelación no presentada'}`,
      );
    }
    return {
      tipo: 'rechazada',
      codigo: estatusUuid,
      mensaje: MENSAJES_ESTATUS_UUID[estatusUuid] ?? MENSAJES[estatusUuid] ?? estatusUuid,
    };
  }

  async estatusSat(c: ConsultaEstatusSat): Promise<EstatusSat> {
    const r = await this.llamar('cancelacion', 'get_sat_status', [
      ...this.credenciales(),
      ['taxpayer_id', c.rfcEmisor],
      ['rtaxpayer_id', c.rfcReceptor],
      ['uuid', c.uuid.toUpperCase()],
      ['total', c.total],
    ]);
    const sat = hijoDe(r, 'sat');
    const error = textoDe(hijoDe(r, 'error')).trim();
    if (!sat) {
      if (error && partirCodigo(error).codigo === CODIGOS.credenciales)
        throw new ErrorPacConfiguracion(error);
      throw new ErrorPacTransitorio(`get_sat_status sin respuesta del SAT${error ? `: ${error}` : ''}`);
    }
    const estado = normalizarEstado(textoDe(hijoDe(sat, 'Estado')));
    const esCancelable = textoDe(hijoDe(sat, 'EsCancelable')).trim();
    return {
      estado,
      esCancelable: esCancelable === '' ? '' : normalizarEsCancelable(esCancelable),
      estatusCancelacion: normalizarEstatusCancelacion(textoDe(hijoDe(sat, 'EstatusCancelacion'))),
      codigoEstatus: textoDe(hijoDe(sat, 'CodigoEstatus')).trim(),
    };
  }

  private credenciales(): [string, string][] {
    return [
      ['username', this.op.usuario],
      ['password', this.op.contrasena],
    ];
  }

  /** One SOAP call; every way it can fail becomes a transient or a configuration error. */
  private async llamar(
    servicio: Servicio,
    operacion: string,
    parametros: readonly (readonly [string, string])[],
  ): Promise<ElementoXml> {
    // Relative to the base, so a base URL behind a path prefix (a proxy) keeps it.
    const url = new URL(
      RUTAS[servicio].slice(1),
      this.op.url.endsWith('/') ? this.op.url : `${this.op.url}/`,
    );
    const limite = servicio === 'cancelacion' ? this.timeoutCancelacionMs : this.timeoutMs;
    const senal = AbortSignal.timeout(limite);
    let estado: number;
    let cuerpo: string;
    try {
      const res = await this.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${operacion}"` },
        body: solicitudSoap(operacion, NS_DE[servicio], parametros),
        signal: senal,
      });
      estado = res.status;
      cuerpo = await res.text();
    } catch (e) {
      const porTiempo = senal.aborted;
      throw new ErrorPacTransitorio(
        porTiempo
          ? `${operacion}: el PAC no respondió en ${limite} ms`
          : `${operacion}: falla de transporte (${causaDe(e)})`,
        { cause: e },
      );
    }
    try {
      const resultado = leerRespuesta(cuerpo, operacion);
      if (estado >= 400) throw new SobreInvalido(`HTTP ${estado} con un resultado`);
      return resultado;
    } catch (e) {
      if (e instanceof FallaSoap) {
        // A Client fault blames the request itself: the same bytes will be refused again.
        if (e.delCliente) throw new ErrorPacConfiguracion(`${operacion}: ${e.message}`, { cause: e });
        throw new ErrorPacTransitorio(`${operacion}: HTTP ${estado}, ${e.message}`, { cause: e });
      }
      if (!(e instanceof SobreInvalido)) throw e;
      if (estado >= 500 || estado === 408 || estado === 429 || estado < 400) {
        throw new ErrorPacTransitorio(`${operacion}: HTTP ${estado}, respuesta inválida (${e.message})`, {
          cause: e,
        });
      }
      // 401, 403, 404…: wrong URL or credentials at the HTTP layer.
      throw new ErrorPacConfiguracion(`${operacion}: HTTP ${estado} en ${url.href}`, { cause: e });
    }
  }
}

export const crearPacFinkok = (op: OpcionesFinkok): PuertoPac => new PacFinkok(op);

function causaDe(e: unknown): string {
  const causa = (e as { cause?: { code?: string; message?: string } }).cause;
  return causa?.code ?? causa?.message ?? (e as Error).message ?? String(e);
}

/** Reads the TFD of a stamped XML: the document, not the envelope fields, is the source of truth. */
export function timbreDesdeXml(xml: string, previo: boolean): TimbreObtenido {
  let tfd;
  try {
    tfd = extraerTimbre(parsear(xml));
  } catch (e) {
    throw new ErrorPacTransitorio(`el PAC devolvió un XML ilegible: ${(e as Error).message}`, { cause: e });
  }
  const a = tfd?.atributos;
  if (!a?.['UUID'] || !a['FechaTimbrado'] || !a['NoCertificadoSAT'] || !a['SelloSAT']) {
    throw new ErrorPacTransitorio('el PAC devolvió un XML sin TimbreFiscalDigital completo');
  }
  return {
    tipo: 'timbrado',
    xml,
    uuid: a['UUID'],
    fechaTimbrado: a['FechaTimbrado'],
    noCertificadoSat: a['NoCertificadoSAT'],
    selloSat: a['SelloSAT'],
    previo,
  };
}

function respuestaSinFolios(codEstatus: string): ResultadoCancelacion {
  if (!codEstatus) throw new ErrorPacTransitorio('cancel_signature respondió sin folios ni CodEstatus');
  const { codigo, mensaje } = partirCodigo(codEstatus);
  if (codigo === CODIGOS.credenciales) throw new ErrorPacConfiguracion(codEstatus);
  if (CODIGOS_TRANSITORIOS.has(codigo)) throw new ErrorPacTransitorio(codEstatus);
  return { tipo: 'rechazada', codigo, mensaje };
}

/** Compares without accents or case: PACs are not consistent about either. */
const plano = (t: string) =>
  t
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase();

function normalizar<T extends string>(valor: string, opciones: readonly T[], que: string): T {
  const encontrado = opciones.find((o) => plano(o) === plano(valor));
  if (encontrado === undefined) throw new ErrorPacTransitorio(`${que} inesperado: "${valor}"`);
  return encontrado;
}

export const normalizarEstado = (v: string): EstatusSat['estado'] =>
  normalizar(v, ['Vigente', 'Cancelado', 'No Encontrado'] as const, 'Estado');

export const normalizarEsCancelable = (v: string): EsCancelable =>
  normalizar(
    v,
    ['Cancelable sin aceptación', 'Cancelable con aceptación', 'No cancelable'] as const,
    'EsCancelable',
  );

export const normalizarEstatusCancelacion = (v: string): EstatusCancelacion =>
  normalizar(
    v,
    [
      '',
      'En proceso',
      'Cancelado sin aceptación',
      'Cancelado con aceptación',
      'Plazo vencido',
      'Solicitud rechazada',
    ] as const,
    'EstatusCancelacion',
  );
