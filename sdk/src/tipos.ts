import type { components, operations } from './openapi';

/** The contract's schemas, by name: regenerating src/openapi.ts updates every type below. */
export type Esquemas = components['schemas'];

/**
 * A request body schema as callers write it. The contract declares no `default` in request schemas (it states
 * them in each description), so the generated types already leave those properties optional.
 */
export type Entrada<N extends keyof Esquemas> = Esquemas[N];

// Resources (answers).
export type Factura = Esquemas['Factura'];
export type EstadoSat = Esquemas['EstadoSat'];
export type Cliente = Esquemas['Cliente'];
export type Producto = Esquemas['Producto'];
export type Organizacion = Esquemas['Organizacion'];
export type Certificado = Esquemas['Certificado'];
export type Pago = Esquemas['Pago'];
export type Webhook = Esquemas['Webhook'];
export type WebhookCreado = Esquemas['WebhookCreado'];
export type Entrega = Esquemas['Entrega'];
export type Correo = Esquemas['Correo'];
export type Pendiente = Esquemas['Pendiente'];
export type EstadoDeCuenta = Esquemas['EstadoDeCuenta'];
export type ResumenFacturacion = Esquemas['ResumenFacturacion'];
export type Historia = Esquemas['Historia'];
export type CorreoNuevo = Esquemas['CorreoNuevo'];
export type Recibo = Esquemas['Recibo'];
export type EstadoRecibo = Esquemas['EstadoRecibo'];
export type Evento = Esquemas['Evento'];
export type TipoEvento = Esquemas['TipoEvento'];
export type Cuenta = Esquemas['Cuenta'];
export type LlaveApi = Esquemas['LlaveApi'];
export type LlaveApiCreada = Esquemas['LlaveApiCreada'];
export type Eliminado = Esquemas['Eliminado'];
export type LogoOrganizacion = Esquemas['LogoOrganizacion'];
export type Paginacion = Esquemas['Paginacion'];

// Request bodies.
export type FacturaNueva = Entrada<'FacturaNueva'>;
export type CancelacionNueva = Entrada<'CancelacionNueva'>;
export type ClienteNuevo = Entrada<'ClienteNuevo'>;
export type ClienteCambios = Entrada<'ClienteCambios'>;
export type ProductoNuevo = Entrada<'ProductoNuevo'>;
export type ProductoCambios = Entrada<'ProductoCambios'>;
export type OrganizacionNueva = Entrada<'OrganizacionNueva'>;
export type OrganizacionCambios = Entrada<'OrganizacionCambios'>;
export type CertificadoCambios = Entrada<'CertificadoCambios'>;
export type PagoNuevo = Entrada<'PagoNuevo'>;
export type ReciboNuevo = Entrada<'ReciboNuevo'>;
export type FacturacionRecibo = Entrada<'FacturacionRecibo'>;
export type FacturaGlobalNueva = Entrada<'FacturaGlobalNueva'>;
export type WebhookNuevo = Entrada<'WebhookNuevo'>;
export type WebhookCambios = Entrada<'WebhookCambios'>;
export type ReenvioEvento = Entrada<'ReenvioEvento'>;
export type CuentaOnboarding = Entrada<'CuentaOnboarding'>;
export type CuentaCambios = Entrada<'CuentaCambios'>;
export type LlaveApiNueva = Entrada<'LlaveApiNueva'>;

/** A file for a multipart upload: raw bytes (a Node Buffer is a Uint8Array) or a Blob. */
export type Archivo = Uint8Array | ArrayBuffer | Blob;

/** `POST /v1/certificados` as multipart: the `.cer` and `.key` files and the key's password. */
export type CertificadoNuevo = Omit<Esquemas['CertificadoNuevoMultipart'], 'cer' | 'llave'> & {
  cer: Archivo;
  llave: Archivo;
};

/** A page of a collection, as every list answers. */
export interface Lista<T> {
  objeto: 'lista';
  datos: T[];
  paginacion: Paginacion;
}

type Consulta<O extends keyof operations> = operations[O]['parameters'] extends { query?: infer Q }
  ? NonNullable<Q>
  : never;

/**
 * The filters of a list operation as the contract declares them, with the pagination parameters under friendlier
 * names: `limite` (page size) and `cursor` (where to start).
 */
export type FiltrosLista<O extends keyof operations> = Omit<
  Consulta<O>,
  'paginacion.limite' | 'paginacion.cursor_inicio'
> & {
  limite?: number;
  cursor?: string;
};

/** The query of a non-paginated operation (the catalogs), as declared. */
export type ConsultaDe<O extends keyof operations> = Consulta<O>;

/** The JSON answer of an operation for a status. */
export type RespuestaJson<O extends keyof operations, S extends number> = operations[O]['responses'] extends {
  [K in S]: { content: { 'application/json': infer R } };
}
  ? R
  : never;
