/**
 * The kinds of operation that may be left waiting, as the pending view (`GET /v1/pendientes`) and the backlog
 * gauge name them: a stamping, a cancellation, a payment's ledger step, an email, a webhook delivery, and the
 * claim of a receipt in a global invoice not yet replaced (its reissue).
 */
export const TIPOS_PENDIENTE = [
  'timbrado',
  'cancelacion',
  'pago',
  'correo',
  'entrega',
  'reexpedicion',
] as const;
export type TipoPendiente = (typeof TIPOS_PENDIENTE)[number];

/** The id prefix of the resource each kind is about: the list's cursor walks them all by the id's time part. */
export const PREFIJO_PENDIENTE: Record<TipoPendiente, string> = {
  timbrado: 'fac',
  cancelacion: 'fac',
  pago: 'pago',
  correo: 'cor',
  entrega: 'ent',
  reexpedicion: 'rec',
};

/** `fac_01kb…` → `01kb…`: ids are time-ordered after their prefix, so kinds merge by this part. */
export const sinPrefijo = (id: string) => id.slice(id.indexOf('_') + 1);
