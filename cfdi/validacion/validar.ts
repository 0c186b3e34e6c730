import type { Violacion } from '../reglas/tipos';
import type { Nodo } from '../xml/nodo';
import {
  reglasCatalogosComprobante,
  reglasFecha,
  reglasFormaYMetodoPago,
  reglasTipoCambio,
} from './comprobante';
import { reglasConceptos } from './conceptos';
import { Contexto, type CatalogosValidacion, type OpcionesValidacion } from './contexto';
import { reglasImpuestos } from './impuestos';
import { reglasPago } from './pago';
import { reglasEmisor, reglasInformacionGlobal, reglasReceptor, reglasRelacionados } from './partes';
import { reglasTotales } from './totales';

/** Rule groups in document order. Each reads the context; none walks the tree again. */
const REGLAS: readonly ((ctx: Contexto) => void)[] = [
  reglasFecha,
  reglasCatalogosComprobante,
  reglasFormaYMetodoPago,
  reglasTipoCambio,
  reglasInformacionGlobal,
  reglasRelacionados,
  reglasEmisor,
  reglasReceptor,
  // Fills ctx.acumulados: must run before the global taxes and the totals.
  reglasConceptos,
  reglasImpuestos,
  reglasTotales,
  reglasPago,
];

/**
 * Every rule of the SAT's CFDI 4.0 error matrix that the document and the catalogs decide (see
 * `MATRIZ` for the ones only a PAC can check). An empty list means the PAC has no local reason to reject.
 */
export function validarComprobante(
  comprobante: Nodo,
  catalogos: CatalogosValidacion,
  opciones: OpcionesValidacion = {},
): Violacion[] {
  const ctx = new Contexto(comprobante, catalogos, opciones.ahora ?? new Date());
  for (const regla of REGLAS) regla(ctx);
  return ctx.violaciones;
}
