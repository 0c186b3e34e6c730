import type { KeyObject } from 'node:crypto';

/**
 * The PAC port: what the rest of the system (stamping and cancellation activities) asks of a PAC.
 * One adapter speaks Finkok's SOAP protocol (pac/finkok); the sandbox PAC (pac/sandbox) speaks the same
 * protocol, so test mode runs the production adapter.
 *
 * Contract on failures:
 * - A definitive answer of the PAC or the SAT (matrix codes CFDI40xxx, seal, certificate, date…) is a
 *   *result* (`rechazado` / `rechazada`), never an exception: retrying cannot change it.
 * - Anything that may succeed on a retry (network error, timeout, HTTP 5xx, PAC saying the SAT is
 *   unreachable) throws `ErrorPacTransitorio`, so Temporal retries the activity with backoff.
 * - Wrong credentials, wrong URL or a PAC that is not configured throw `ErrorPacConfiguracion`: retrying
 *   does not help until someone fixes the configuration (list it in nonRetryableErrorTypes).
 */
export interface PuertoPac {
  /** Stamps a sealed CFDI. A repeated stamp of the same XML answers the original stamp with `previo: true`. */
  timbrar(xmlSellado: string): Promise<ResultadoTimbrado>;
  /**
   * The stamp the PAC already gave to that exact sealed XML (Finkok `stamped`), or to a UUID (Finkok
   * `query_pending`). This is how a retry after a lost answer recovers the original UUID instead of
   * stamping twice.
   */
  consultarTimbre(consulta: ConsultaTimbre): Promise<TimbreObtenido | { tipo: 'no_encontrado' }>;
  /** Sends the cancellation request signed with the issuer's CSD. */
  cancelar(solicitud: SolicitudCancelacion): Promise<ResultadoCancelacion>;
  /** The SAT status of a CFDI (what the SAT's ConsultaCFDIService answers, through the PAC). */
  estatusSat(consulta: ConsultaEstatusSat): Promise<EstatusSat>;
}

export interface TimbreObtenido {
  tipo: 'timbrado';
  /** The stamped CFDI exactly as the PAC returned it: store it verbatim. */
  xml: string;
  /** UUID of the TimbreFiscalDigital, uppercase as the PAC wrote it. */
  uuid: string;
  /** TFD FechaTimbrado, `YYYY-MM-DDThh:mm:ss` (local time of the PAC). */
  fechaTimbrado: string;
  noCertificadoSat: string;
  selloSat: string;
  /** The stamp already existed (Finkok 307 or `stamped`): this call did not create it. */
  previo: boolean;
}

export interface RechazoPac {
  tipo: 'rechazado';
  /** The PAC's or the SAT's code: `CFDI40145`, `CFDI40102`, `401`, `303`… */
  codigo: string;
  mensaje: string;
}

export type ResultadoTimbrado = TimbreObtenido | RechazoPac;

/** The sealed XML, or the UUID of a stamp (a UUID alone cannot find a stamp whose answer was lost). */
export type ConsultaTimbre = string | { xmlSellado: string } | { uuid: string };

export type MotivoCancelacion = '01' | '02' | '03' | '04';

/**
 * Signs the cancellation request with the issuer's CSD. Either the certificate and its private key, or a
 * signer that keeps the key elsewhere (a vault, an HSM) and only hands out signatures.
 */
export type FirmaCsd =
  | { cer: Buffer; llave: KeyObject }
  | {
      /** The CSD certificate, DER. */
      certificado: Buffer;
      /** RSA PKCS#1 v1.5 signature of `datos` with `algoritmo`, by the CSD's private key. */
      firmar(datos: Buffer, algoritmo: 'sha1' | 'sha256'): Buffer | Promise<Buffer>;
    };

export interface SolicitudCancelacion {
  rfcEmisor: string;
  uuid: string;
  motivo: MotivoCancelacion;
  /** UUID of the stamped replacement: required by the SAT when `motivo` is 01. */
  folioSustitucion?: string;
  /** Not sent by Finkok's cancel_signature (the SAT reads them from the stamp); kept for other PACs. */
  total: string;
  rfcReceptor: string;
  firma: FirmaCsd;
}

export type EsCancelable = 'Cancelable sin aceptación' | 'Cancelable con aceptación' | 'No cancelable';

export type EstatusCancelacion =
  | ''
  | 'En proceso'
  | 'Cancelado sin aceptación'
  | 'Cancelado con aceptación'
  | 'Plazo vencido'
  | 'Solicitud rechazada';

export type ResultadoCancelacion =
  | {
      /** The SAT took the request: 201 (new) or 202 (requested before). Not yet proof of cancellation. */
      tipo: 'solicitada';
      uuid: string;
      estatusUuid: '201' | '202';
      /** Where the cancellation stands right after the request: cancelled at once, or `En proceso`. */
      estatusCancelacion: EstatusCancelacion;
      /** The SAT's acknowledgment as the PAC returned it (keep it: it is the issuer's evidence). */
      acuse: string;
      fecha: string;
    }
  | {
      /**
       * The request was refused for this UUID: 203 (RFC does not match), 205 (UUID unknown to the SAT —
       * also answered for a CFDI stamped moments ago, before it propagates), `no_cancelable` (it has
       * live related documents), or a request-level code (signature, certificate, motivo 01 without
       * FolioSustitucion…).
       */
      tipo: 'rechazada';
      codigo: string;
      mensaje: string;
    };

export interface ConsultaEstatusSat {
  rfcEmisor: string;
  rfcReceptor: string;
  /** Total as written in the CFDI. */
  total: string;
  uuid: string;
}

export interface EstatusSat {
  estado: 'Vigente' | 'Cancelado' | 'No Encontrado';
  /** Empty when the SAT does not know the CFDI. */
  esCancelable: EsCancelable | '';
  estatusCancelacion: EstatusCancelacion;
  /** The SAT's own status line ("S - Comprobante obtenido satisfactoriamente."), for logs. */
  codigoEstatus: string;
}

/** Base class of the PAC's exceptions. `reintentable` tells a retry policy what to do with it. */
export class ErrorPac extends Error {
  constructor(
    mensaje: string,
    readonly reintentable: boolean,
    opciones?: { cause?: unknown },
  ) {
    super(mensaje, opciones);
    this.name = 'ErrorPac';
  }
}

/** Transport failure, timeout, HTTP 5xx, SAT unreachable: the same call may succeed later. */
export class ErrorPacTransitorio extends ErrorPac {
  constructor(mensaje: string, opciones?: { cause?: unknown }) {
    super(mensaje, true, opciones);
    this.name = 'ErrorPacTransitorio';
  }
}

/** Credentials, URL or request format rejected: nothing changes until the configuration is fixed. */
export class ErrorPacConfiguracion extends ErrorPac {
  constructor(mensaje: string, opciones?: { cause?: unknown }) {
    super(mensaje, false, opciones);
    this.name = 'ErrorPacConfiguracion';
  }
}

/** Live mode without PAC credentials: the API answers it as a 503. */
export class ErrorPacNoConfigurado extends ErrorPacConfiguracion {
  readonly estadoHttp = 503;
  constructor(mensaje = 'El PAC de producción no está configurado (PAC_LIVE_URL, usuario y contraseña).') {
    super(mensaje);
    this.name = 'ErrorPacNoConfigurado';
  }
}
