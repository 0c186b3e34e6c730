/**
 * The kinds of refusal the business layer knows. They say what went wrong, not how a protocol shows it:
 * `api/` alone turns each kind into an HTTP status and headers.
 */
export type TipoErrorNegocio =
  | 'solicitud_invalida'
  | 'autenticacion'
  | 'permiso'
  | 'no_encontrado'
  | 'conflicto'
  | 'regla_de_negocio'
  | 'servicio_no_disponible';

export interface DetalleError {
  /** The invoice the refusal is about, so integrators can fetch it (a rejected stamping). */
  factura?: string;
  /** The payment it is about (a payment registered whose CFDI the PAC rejected). */
  pago?: string;
  /** When trying again may succeed, and how soon. */
  reintentarEnSegundos?: number;
}

/** The only error services throw on purpose. */
export class ErrorNegocio extends Error {
  constructor(
    readonly tipo: TipoErrorNegocio,
    readonly codigo: string,
    mensaje: string,
    readonly parametro?: string,
    readonly detalle: DetalleError = {},
  ) {
    super(mensaje);
    this.name = 'ErrorNegocio';
  }
}

/** `codigo` 404 of a resource, with its message ("La factura fac_… no existe."). */
export const noEncontrado = (codigo: string, mensaje: string, parametro = 'id') =>
  new ErrorNegocio('no_encontrado', codigo, mensaje, parametro);

/** A repository's unique key refused the write; the service decides what it means to the caller. */
export class RegistroDuplicado extends Error {
  constructor(readonly causa: unknown) {
    super('registro duplicado');
    this.name = 'RegistroDuplicado';
  }
}
