import type { Nodo } from '../xml/nodo';
import { campos, emitir, tablaDeNombres } from './campos';

/**
 * Templates of the SAT's Pagos20.xslt (complemento para recepción de pagos 2.0), one function per
 * `xsl:template match="pago20:…"`, in the same order of fields and children.
 */

const LOCALES = [
  'Pagos',
  'Totales',
  'Pago',
  'DoctoRelacionado',
  'ImpuestosDR',
  'RetencionesDR',
  'RetencionDR',
  'TrasladosDR',
  'TrasladoDR',
  'ImpuestosP',
  'RetencionesP',
  'RetencionP',
  'TrasladosP',
  'TrasladoP',
] as const;

export type NombresPagos20 = Readonly<Record<(typeof LOCALES)[number], string>>;
export const nombresPagos20 = tablaDeNombres(LOCALES);

const CAMPOS = {
  Pagos: campos('Version'),
  Totales: campos(`TotalRetencionesIVA? TotalRetencionesISR? TotalRetencionesIEPS? TotalTrasladosBaseIVA16?
    TotalTrasladosImpuestoIVA16? TotalTrasladosBaseIVA8? TotalTrasladosImpuestoIVA8? TotalTrasladosBaseIVA0?
    TotalTrasladosImpuestoIVA0? TotalTrasladosBaseIVAExento? MontoTotalPagos`),
  Pago: campos(`FechaPago FormaDePagoP MonedaP TipoCambioP? Monto NumOperacion? RfcEmisorCtaOrd? NomBancoOrdExt?
    CtaOrdenante? RfcEmisorCtaBen? CtaBeneficiario? TipoCadPago? CertPago? CadPago? SelloPago?`),
  DoctoRelacionado: campos(
    'IdDocumento Serie? Folio? MonedaDR EquivalenciaDR? NumParcialidad ImpSaldoAnt ImpPagado ImpSaldoInsoluto ObjetoImpDR',
  ),
  RetencionDR: campos('BaseDR ImpuestoDR TipoFactorDR TasaOCuotaDR ImporteDR'),
  TrasladoDR: campos('BaseDR ImpuestoDR TipoFactorDR TasaOCuotaDR? ImporteDR?'),
  RetencionP: campos('ImpuestoP ImporteP'),
  TrasladoP: campos('BaseP ImpuestoP TipoFactorP TasaOCuotaP? ImporteP?'),
};

type PlantillaPagos = (nodo: Nodo, n: NombresPagos20, salida: string[]) => void;

function pagos(nodo: Nodo, n: NombresPagos20, salida: string[]): void {
  emitir(salida, nodo, CAMPOS.Pagos);
  for (const h of nodo.hijos) if (h.nombre === n.Totales) totales(h, n, salida);
  for (const h of nodo.hijos) if (h.nombre === n.Pago) pago(h, n, salida);
}

function totales(nodo: Nodo, _n: NombresPagos20, salida: string[]): void {
  emitir(salida, nodo, CAMPOS.Totales);
}

function pago(nodo: Nodo, n: NombresPagos20, salida: string[]): void {
  emitir(salida, nodo, CAMPOS.Pago);
  for (const h of nodo.hijos) if (h.nombre === n.DoctoRelacionado) doctoRelacionado(h, n, salida);
  for (const h of nodo.hijos) if (h.nombre === n.ImpuestosP) impuestosP(h, n, salida);
}

function doctoRelacionado(nodo: Nodo, n: NombresPagos20, salida: string[]): void {
  emitir(salida, nodo, CAMPOS.DoctoRelacionado);
  // ./ImpuestosDR/RetencionesDR/RetencionDR, then ./ImpuestosDR/TrasladosDR/TrasladoDR (retenciones first).
  for (const imp of nodo.hijos) {
    if (imp.nombre !== n.ImpuestosDR) continue;
    for (const grupo of imp.hijos) {
      if (grupo.nombre !== n.RetencionesDR) continue;
      for (const r of grupo.hijos) if (r.nombre === n.RetencionDR) emitir(salida, r, CAMPOS.RetencionDR);
    }
  }
  for (const imp of nodo.hijos) {
    if (imp.nombre !== n.ImpuestosDR) continue;
    for (const grupo of imp.hijos) {
      if (grupo.nombre !== n.TrasladosDR) continue;
      for (const t of grupo.hijos) if (t.nombre === n.TrasladoDR) emitir(salida, t, CAMPOS.TrasladoDR);
    }
  }
}

function impuestosP(nodo: Nodo, n: NombresPagos20, salida: string[]): void {
  for (const h of nodo.hijos) if (h.nombre === n.RetencionesP) retencionesP(h, n, salida);
  for (const h of nodo.hijos) if (h.nombre === n.TrasladosP) trasladosP(h, n, salida);
}

function retencionesP(nodo: Nodo, n: NombresPagos20, salida: string[]): void {
  for (const h of nodo.hijos) if (h.nombre === n.RetencionP) retencionP(h, n, salida);
}

function trasladosP(nodo: Nodo, n: NombresPagos20, salida: string[]): void {
  for (const h of nodo.hijos) if (h.nombre === n.TrasladoP) trasladoP(h, n, salida);
}

function retencionP(nodo: Nodo, _n: NombresPagos20, salida: string[]): void {
  emitir(salida, nodo, CAMPOS.RetencionP);
}

function trasladoP(nodo: Nodo, _n: NombresPagos20, salida: string[]): void {
  emitir(salida, nodo, CAMPOS.TrasladoP);
}

/** The `match` templates by local name; other pago20 elements fall to XSLT's built-in rule. */
export const PLANTILLAS_PAGOS20: ReadonlyMap<string, PlantillaPagos> = new Map([
  ['Pagos', pagos],
  ['Totales', totales],
  ['Pago', pago],
  ['DoctoRelacionado', doctoRelacionado],
  ['ImpuestosP', impuestosP],
  ['RetencionesP', retencionesP],
  ['TrasladosP', trasladosP],
  ['RetencionP', retencionP],
  ['TrasladoP', trasladoP],
]);
