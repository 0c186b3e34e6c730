/**
 * Finkok's SOAP web services, as far as this system uses them. Shared by the adapter (cliente.ts) and the
 * sandbox PAC (pac/sandbox), which answers on the same paths with the same shapes.
 *
 * Sources read (names only; nothing copied):
 * - phpcfdi/finkok: README, docs/Servicios.md, docs/ListadoDeServicios.md, docs/Cancelación.md,
 *   docs/issues/StampServiceDobleEstampado.md (307 with or without the previous XML; `stamped` lag and
 *   its old 603 answer), docs/issues/CancelSignatureServiceCancelarRecienCreado.md (captured
 *   cancel_signature request and response: POST /servicios/soap/cancel, SOAPAction, ns1 request
 *   namespace, senv/tns/s0 response namespaces, Folios/Folio UUID EstatusUUID EstatusCancelacion, Acuse,
 *   Fecha, RfcEmisor), src/Definitions/Services.php (service paths), src/Services/Stamping/*
 *   (stamp, quick_stamp, stamped, query_pending; stampResult fields xml UUID Fecha CodEstatus SatSeal
 *   NoCertificadoSAT Incidencias/Incidencia CodigoError MensajeIncidencia), src/Services/Cancel/*
 *   (cancel_signature with xml and store_pending; get_sat_status with taxpayer_id rtaxpayer_id uuid total
 *   and result sat/CodigoEstatus Estado EsCancelable EstatusCancelacion), tests/_files/*.json.
 * - phpcfdi/xml-cancelacion: Capsules/Cancellation.php and Signers/DOMSigner.php (the signed Cancelacion
 *   document: Folios/Folio UUID Motivo FolioSustitucion, enveloped XMLDSig with inclusive C14N and
 *   RSA-SHA1, KeyInfo with X509IssuerSerial, X509Certificate and RSAKeyValue).
 * - SAT-CFDI/python-satcfdi satcfdi/pacs/finkok.py (namespaces stamp/cancel/apps, operation elements,
 *   username and password as parameters of each operation).
 * - Finkok error codes as listed by several integrations (300–308, 401–403, 603, 70x).
 */

export const NS_TIMBRADO = 'http://facturacion.finkok.com/stamp';
export const NS_CANCELACION = 'http://facturacion.finkok.com/cancel';
/** Namespace of the fields inside every `…Result` (Finkok's server prefixes it `s0`). */
export const NS_CAMPOS = 'apps.services.soap.core.views';

/** Where the SOAP calls go (the WSDL's soap:address); the `.wsdl` URL answers POSTs as well. */
export const RUTAS = {
  timbrado: '/servicios/soap/stamp',
  cancelacion: '/servicios/soap/cancel',
} as const;

export type Servicio = keyof typeof RUTAS;

export const NS_DE: Record<Servicio, string> = { timbrado: NS_TIMBRADO, cancelacion: NS_CANCELACION };

export const OPERACIONES = {
  timbrado: ['stamp', 'quick_stamp', 'stamped', 'query_pending'],
  cancelacion: ['cancel_signature', 'get_sat_status'],
} as const satisfies Record<Servicio, readonly string[]>;

/** Incidencia codes (CodigoError) with their usual messages. SAT matrix codes (CFDI40xxx) come as they are. */
export const CODIGOS = {
  credenciales: '300',
  xmlMalFormado: '301',
  selloMalFormado: '302',
  selloNoCorresponde: '303',
  certificadoRevocado: '304',
  fueraDeVigencia: '305',
  noEsCsd: '306',
  timbrePrevio: '307',
  noExpedidoPorSat: '308',
  fechaFueraDeRango: '401',
  sinTimbrePrevio: '603',
  timbreExistente: '707',
  satNoDisponible: '708',
  selloSatNoCreado: '709',
  certificadoCancelacion: '711',
} as const;

export const MENSAJES: Readonly<Record<string, string>> = {
  '300': 'Usuario y contraseña inválidos',
  '301': 'XML mal formado',
  '302': 'Sello mal formado o inválido',
  '303': 'Sello no corresponde a emisor',
  '304': 'Certificado revocado o caduco',
  '305': 'La fecha de emisión no está dentro de la vigencia del CSD del emisor',
  '306': 'El certificado no es de tipo CSD',
  '307': 'El CFDI contiene un timbre previo',
  '308': 'Certificado no expedido por el SAT',
  '401': 'Fecha y hora de generación fuera de rango',
  '603': 'El CFDI no contiene un timbre previo',
  '707': 'El XML ya contiene un nodo TimbreFiscalDigital',
  '708': 'No se pudo conectar al SAT',
  '709': 'El SelloSAT no pudo ser creado',
  '711': 'Error con el certificado al cancelar',
};

/** Codes that describe a passing condition on the PAC's side: the same request may succeed later. */
export const CODIGOS_TRANSITORIOS: ReadonlySet<string> = new Set([
  CODIGOS.satNoDisponible,
  CODIGOS.selloSatNoCreado,
]);

/** CodEstatus of a successful stamp. */
export const TIMBRADO_CORRECTO = 'Comprobante timbrado satisfactoriamente';

/** EstatusUUID of each folio in a cancel_signature answer. */
export const ESTATUS_UUID = {
  solicitada: '201',
  solicitadaAntes: '202',
  rfcNoCorresponde: '203',
  noEncontrado: '205',
  noCancelable: 'no_cancelable',
} as const;

export const MENSAJES_ESTATUS_UUID: Readonly<Record<string, string>> = {
  '201': 'Petición de cancelación realizada exitosamente',
  '202': 'Petición de cancelación realizada previamente',
  '203': 'No corresponde el RFC del emisor y de quien solicita la cancelación',
  '205': 'UUID no encontrado',
  no_cancelable: 'El UUID contiene CFDI relacionados',
};

/** CodigoEstatus of get_sat_status, as the SAT's ConsultaCFDIService writes it. */
export const CODIGO_ESTATUS_SAT = {
  encontrado: 'S - Comprobante obtenido satisfactoriamente.',
  noEncontrado: 'N - 602: Comprobante no encontrado.',
} as const;

/** Splits a CodEstatus such as "708 - No se pudo conectar al SAT" into its code and message. */
export function partirCodigo(texto: string): { codigo: string; mensaje: string } {
  const m = /^\s*([A-Za-z0-9_]+)\s*(?:[-:]\s*(.*))?$/s.exec(texto);
  if (!m) return { codigo: texto.trim(), mensaje: texto.trim() };
  const codigo = m[1] as string;
  return { codigo, mensaje: m[2]?.trim() || MENSAJES[codigo] || texto.trim() };
}
