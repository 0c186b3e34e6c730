/** The error kinds of the API, each with its HTTP status. */
export const TIPOS = {
  solicitud_invalida: 400,
  autenticacion: 401,
  permiso: 403,
  no_encontrado: 404,
  metodo_no_permitido: 405,
  conflicto: 409,
  carga_demasiado_grande: 413,
  tipo_de_contenido: 415,
  regla_de_negocio: 422,
  limite_de_solicitudes: 429,
  interno: 500,
  servicio_no_disponible: 503,
} as const;

export type TipoError = keyof typeof TIPOS;

/** The only error a handler throws on purpose; the central handler turns it into the envelope. */
export class ApiError extends Error {
  /** The invoice a stamping error is about, so integrators can fetch it. */
  factura?: string;
  /** The payment a rejected payment CFDI belongs to. */
  pago?: string;

  constructor(
    readonly tipo: TipoError,
    readonly codigo: string,
    mensaje: string,
    readonly parametro?: string,
    readonly encabezados: Record<string, string> = {},
  ) {
    super(mensaje);
  }

  get status(): number {
    return TIPOS[this.tipo];
  }

  toJSON() {
    return {
      error: {
        tipo: this.tipo,
        codigo: this.codigo,
        mensaje: this.message,
        ...(this.parametro ? { parametro: this.parametro } : {}),
        ...(this.factura ? { factura: this.factura } : {}),
        ...(this.pago ? { pago: this.pago } : {}),
      },
    };
  }
}
