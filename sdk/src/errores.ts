import type { components } from './openapi';

type CuerpoErrorContrato = components['schemas']['Error']['error'];

/** The envelope's `tipo`, from the contract. */
export type TipoError = CuerpoErrorContrato['tipo'];

/**
 * The envelope's `codigo`, from the contract. New codes may appear within v1 (see «Versionado»), so any other
 * string is accepted too; the `string & {}` keeps the known ones offered by editors once the contract lists them.
 */
export type CodigoError = CuerpoErrorContrato['codigo'] | (string & {});

/** The `error` object of an answer, as received. */
export type CuerpoError = Omit<CuerpoErrorContrato, 'codigo'> & { codigo: CodigoError };

/** Base of every error the SDK throws. */
export class ErrorCfdi extends Error {
  constructor(mensaje: string, opciones?: { cause?: unknown }) {
    super(mensaje, opciones);
    this.name = new.target.name;
  }
}

/** What a non-2xx answer carries besides its envelope. */
export interface DatosRespuestaError {
  estado: number;
  idSolicitud: string | null;
  /** `Retry-After` in milliseconds, when the answer had one. */
  reintentarEnMs: number | null;
}

/** An error answer of the API: `{ error: { tipo, codigo, mensaje, parametro? } }` plus the HTTP status. */
export class ErrorApi extends ErrorCfdi {
  readonly tipo: TipoError;
  readonly codigo: CodigoError;
  readonly parametro: string | undefined;
  /** HTTP status. */
  readonly estado: number;
  /** The answer's `X-Request-Id`: quote it when asking for support. */
  readonly idSolicitud: string | null;
  /** Id of the invoice concerned, when the error happened after creating it (422 `timbrado_rechazado`…). */
  readonly factura: string | undefined;
  /** Id of the payment concerned (422 `timbrado_rechazado` of `POST /v1/pagos`). */
  readonly pago: string | undefined;
  readonly reintentarEnMs: number | null;
  /** The envelope as received (fields this version does not know included). */
  readonly cuerpo: CuerpoError;

  constructor(cuerpo: CuerpoError, datos: DatosRespuestaError) {
    super(cuerpo.mensaje);
    this.cuerpo = cuerpo;
    this.tipo = cuerpo.tipo;
    this.codigo = cuerpo.codigo;
    this.parametro = cuerpo.parametro;
    this.factura = cuerpo.factura;
    this.pago = cuerpo.pago;
    this.estado = datos.estado;
    this.idSolicitud = datos.idSolicitud;
    this.reintentarEnMs = datos.reintentarEnMs;
  }
}

export class ErrorSolicitudInvalida extends ErrorApi {}
export class ErrorAutenticacion extends ErrorApi {}
export class ErrorPermiso extends ErrorApi {}
export class ErrorNoEncontrado extends ErrorApi {}
export class ErrorMetodoNoPermitido extends ErrorApi {}
export class ErrorConflicto extends ErrorApi {}
export class ErrorCargaDemasiadoGrande extends ErrorApi {}
export class ErrorTipoDeContenido extends ErrorApi {}
export class ErrorReglaDeNegocio extends ErrorApi {}
export class ErrorLimiteDeSolicitudes extends ErrorApi {}
export class ErrorInterno extends ErrorApi {}
export class ErrorServicioNoDisponible extends ErrorApi {}

type ClaseErrorApi = new (cuerpo: CuerpoError, datos: DatosRespuestaError) => ErrorApi;

/** One class per `tipo` of the contract: a `tipo` added to the contract fails the build until it is mapped here. */
export const CLASES_POR_TIPO: { readonly [T in TipoError]: ClaseErrorApi } = {
  solicitud_invalida: ErrorSolicitudInvalida,
  autenticacion: ErrorAutenticacion,
  permiso: ErrorPermiso,
  no_encontrado: ErrorNoEncontrado,
  metodo_no_permitido: ErrorMetodoNoPermitido,
  conflicto: ErrorConflicto,
  carga_demasiado_grande: ErrorCargaDemasiadoGrande,
  tipo_de_contenido: ErrorTipoDeContenido,
  regla_de_negocio: ErrorReglaDeNegocio,
  limite_de_solicitudes: ErrorLimiteDeSolicitudes,
  interno: ErrorInterno,
  servicio_no_disponible: ErrorServicioNoDisponible,
};

/** The contract's status of each `tipo`: names an answer that came without an envelope (a proxy's 502…). */
const TIPO_POR_ESTADO: Record<number, TipoError> = {
  400: 'solicitud_invalida',
  401: 'autenticacion',
  403: 'permiso',
  404: 'no_encontrado',
  405: 'metodo_no_permitido',
  409: 'conflicto',
  413: 'carga_demasiado_grande',
  415: 'tipo_de_contenido',
  422: 'regla_de_negocio',
  429: 'limite_de_solicitudes',
  500: 'interno',
  502: 'servicio_no_disponible',
  503: 'servicio_no_disponible',
  504: 'servicio_no_disponible',
};

const esObjeto = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The typed error of an answer's status and body text (the envelope when there is one). */
export function errorDeRespuesta(texto: string, datos: DatosRespuestaError): ErrorApi {
  let cuerpo: CuerpoError | undefined;
  try {
    const json: unknown = JSON.parse(texto);
    const e = esObjeto(json) ? json.error : undefined;
    if (esObjeto(e) && typeof e.tipo === 'string' && typeof e.codigo === 'string') {
      cuerpo = { ...e, mensaje: typeof e.mensaje === 'string' ? e.mensaje : '' } as CuerpoError;
    }
  } catch {
    // Not JSON: described below from the status.
  }
  cuerpo ??= {
    tipo: TIPO_POR_ESTADO[datos.estado] ?? (datos.estado >= 500 ? 'interno' : 'solicitud_invalida'),
    codigo: `http_${datos.estado}`,
    mensaje: `Respuesta HTTP ${datos.estado} sin sobre de error${texto ? `: ${texto.slice(0, 200)}` : ''}.`,
  };
  const Clase = (CLASES_POR_TIPO as Record<string, ClaseErrorApi | undefined>)[cuerpo.tipo] ?? ErrorApi;
  return new Clase(cuerpo, datos);
}

/** The request never got an HTTP answer (connection refused or cut, DNS, timeout). */
export class ErrorRed extends ErrorCfdi {
  constructor(
    mensaje: string,
    /** The underlying error of fetch. */
    readonly causa: unknown,
  ) {
    super(mensaje, { cause: causa });
  }
}

/** Why a webhook delivery was refused. */
export type MotivoFirmaInvalida =
  | 'firma_ausente'
  | 'encabezado_mal_formado'
  | 'fuera_de_tolerancia'
  | 'firma_invalida'
  | 'cuerpo_invalido';

/** A webhook delivery whose signature or timestamp does not check out: answer it with 400 and drop it. */
export class ErrorFirmaWebhook extends ErrorCfdi {
  constructor(
    readonly motivo: MotivoFirmaInvalida,
    mensaje: string,
  ) {
    super(mensaje);
  }
}

/** An `esperar…` helper ran out of time; `ultimo` is the resource as last read. */
export class ErrorTiempoAgotado<T = unknown> extends ErrorCfdi {
  constructor(
    mensaje: string,
    readonly ultimo: T | undefined,
  ) {
    super(mensaje);
  }
}
