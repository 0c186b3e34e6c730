/**
 * The SAT-matrix engine names fields by their place in the CFDI (`Comprobante.Conceptos.Concepto[0].Descuento`);
 * a refusal at creation names them as the request did (`conceptos[0].descuento`). Computed amounts (Importe,
 * Base, SubTotal, Total) have no field of their own: the nearest one the integrator sent is named instead.
 */

// TasaOCuota → tasa_o_cuota: a capital followed by a capitalised word starts a word too.
const snake = (x: string) =>
  x
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();

const DEL_COMPROBANTE = new Set([
  'forma_pago',
  'metodo_pago',
  'moneda',
  'tipo_cambio',
  'lugar_expedicion',
  'exportacion',
  'serie',
  'folio',
]);
const DEL_CONCEPTO = new Set([
  'cantidad',
  'clave_prod_serv',
  'clave_unidad',
  'unidad',
  'no_identificacion',
  'descripcion',
  'valor_unitario',
  'descuento',
  'objeto_imp',
]);
const DE_LA_LINEA = new Set(['impuesto', 'tipo_factor', 'tasa_o_cuota']);

const campo = (base: string, atributo: string | undefined, permitidos: Set<string>) => {
  const a = atributo === undefined ? undefined : snake(atributo);
  return a !== undefined && permitidos.has(a) ? `${base}.${a}` : base;
};

/**
 * Whether a violation is about the issuer's or the receiver's stored data rather than the request itself
 * (InformacionGlobal is demanded by the receiver being the general public).
 */
export const esDeLasPartes = (rutaCfdi: string) =>
  /^Comprobante\.(Emisor|Receptor|InformacionGlobal)\b/.test(rutaCfdi);

export function parametroDeSolicitud(rutaCfdi: string): string {
  let m = /^Comprobante\.Conceptos\.Concepto\[(\d+)\](.*)$/.exec(rutaCfdi);
  if (m) {
    const concepto = `conceptos[${m[1]}]`;
    const linea = /^\.Impuestos\.(Traslados\.Traslado|Retenciones\.Retencion)\[(\d+)\](?:\.(\w+))?/.exec(
      m[2]!,
    );
    if (linea) {
      const clase = linea[1]!.startsWith('Traslados') ? 'traslados' : 'retenciones';
      return campo(`${concepto}.impuestos.${clase}[${linea[2]}]`, linea[3], DE_LA_LINEA);
    }
    if (m[2]!.startsWith('.Impuestos')) return `${concepto}.impuestos`;
    return campo(concepto, /^\.(\w+)$/.exec(m[2]!)?.[1], DEL_CONCEPTO);
  }
  m = /^Comprobante\.CfdiRelacionados\[(\d+)\](?:\.(\w+))?/.exec(rutaCfdi);
  if (m) return campo(`relaciones[${m[1]}]`, m[2], new Set(['tipo_relacion']));
  m = /^Comprobante\.(\w+)$/.exec(rutaCfdi);
  if (m) {
    if (m[1] === 'CondicionesDePago') return 'condiciones_pago';
    const a = snake(m[1]!);
    if (DEL_COMPROBANTE.has(a)) return a;
  }
  // The global tax summary and the document totals are sums of the concepts.
  return 'conceptos';
}
