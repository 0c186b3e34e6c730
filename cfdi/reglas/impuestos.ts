import { Decimal } from 'decimal.js';
import type { ConsultaCatalogos, ReglaTasaOCuota } from './catalogos';
import { violacion, type Violacion } from './tipos';

/** A tax of a product's impuestos_default or of an invoice concept. */
export interface LineaImpuesto {
  /** c_Impuesto: "001" ISR, "002" IVA, "003" IEPS. */
  impuesto: string;
  /** c_TipoFactor: "Tasa", "Cuota" or "Exento". */
  tipo_factor: string;
  /** Rate or fixed amount with exactly 6 decimals; absent (or null) for Exento. */
  tasa_o_cuota?: string | null;
}

export interface DesgloseImpuestos {
  traslados?: LineaImpuesto[] | null;
  retenciones?: LineaImpuesto[] | null;
}

type Clase = 'traslado' | 'retencion';

// c_Impuesto has three rows that have not changed since CFDI 3.3; ISR is only ever withheld.
const IMPUESTOS: ReadonlyMap<string, { nombre: string; traslado: boolean }> = new Map([
  ['001', { nombre: 'ISR', traslado: false }],
  ['002', { nombre: 'IVA', traslado: true }],
  ['003', { nombre: 'IEPS', traslado: true }],
]);
const TIPOS_FACTOR = ['Tasa', 'Cuota', 'Exento'];
// Rules written in the matrix for 01–03; 04–08 came later and carry no rule on the Impuestos node here.
const OBJETOS_IMP = /^0[1-8]$/;
const OBJETOS_SIN_IMPUESTOS = ['01', '03'];

// The SAT compares TasaOCuota against the catalog as written, always with 6 decimals ("0.160000").
const PATRON_TASA = /^(0|[1-9]\d*)\.\d{6}$/;

const SAT: Record<Clase, { impuesto: string; factor: string; tasa: string }> = {
  traslado: { impuesto: 'CFDI40175', factor: 'CFDI40176', tasa: 'CFDI40179' },
  retencion: { impuesto: 'CFDI40182', factor: 'CFDI40183', tasa: 'CFDI40185' },
};

/**
 * objeto_imp and the taxes that go with it (CFDI40170–40185 for a concept). `parametroBase` names the tax
 * object in the request ("impuestos_default", "conceptos[2].impuestos"); items are reported under it.
 */
export function validarImpuestos(
  objetoImp: string,
  impuestos: DesgloseImpuestos | null | undefined,
  catalogos: ConsultaCatalogos,
  parametroBase = 'impuestos_default',
  parametroObjetoImp = 'objeto_imp',
): Violacion[] {
  const errores: Violacion[] = [];
  const traslados = impuestos?.traslados ?? [];
  const retenciones = impuestos?.retenciones ?? [];
  const cuantos = traslados.length + retenciones.length;

  if (!OBJETOS_IMP.test(objetoImp) || !catalogos.objetoImp(objetoImp)) {
    errores.push(
      violacion(
        'objeto_imp_invalido',
        `El objeto de impuesto "${objetoImp}" no existe o no está vigente en el catálogo c_ObjetoImp (01 a 08).`,
        parametroObjetoImp,
        'CFDI40170',
      ),
    );
  } else if (objetoImp === '02' && cuantos === 0) {
    errores.push(
      violacion(
        'impuestos_requeridos',
        'Con objeto de impuesto 02 (sí objeto de impuesto) se requiere al menos un traslado o una retención.',
        parametroBase,
        'CFDI40171',
      ),
    );
  } else if (OBJETOS_SIN_IMPUESTOS.includes(objetoImp) && cuantos > 0) {
    errores.push(
      violacion(
        'impuestos_no_permitidos',
        `Con objeto de impuesto ${objetoImp} no se permiten traslados ni retenciones.`,
        parametroBase,
        'CFDI40172',
      ),
    );
  }

  const reglas = catalogos.reglasTasaOCuota();
  traslados.forEach((linea, i) =>
    errores.push(...validarLinea(linea, 'traslado', reglas, `${parametroBase}.traslados[${i}]`)),
  );
  retenciones.forEach((linea, i) =>
    errores.push(...validarLinea(linea, 'retencion', reglas, `${parametroBase}.retenciones[${i}]`)),
  );
  return errores;
}

function validarLinea(
  linea: LineaImpuesto,
  clase: Clase,
  reglas: readonly ReglaTasaOCuota[],
  base: string,
): Violacion[] {
  const errores: Violacion[] = [];
  const impuesto = IMPUESTOS.get(linea.impuesto);
  if (!impuesto) {
    errores.push(
      violacion(
        'impuesto_invalido',
        `El impuesto "${linea.impuesto}" no existe en el catálogo c_Impuesto (001 ISR, 002 IVA, 003 IEPS).`,
        `${base}.impuesto`,
        SAT[clase].impuesto,
      ),
    );
  } else if (clase === 'traslado' && !impuesto.traslado) {
    // c_Impuesto marks ISR as withholding only; no matrix rule names this case by itself.
    errores.push(
      violacion(
        'impuesto_invalido',
        'El ISR (001) solo puede retenerse, no trasladarse.',
        `${base}.impuesto`,
      ),
    );
  }

  if (!TIPOS_FACTOR.includes(linea.tipo_factor)) {
    errores.push(
      violacion(
        'tipo_factor_invalido',
        `El tipo de factor "${linea.tipo_factor}" no es válido: debe ser Tasa, Cuota o Exento.`,
        `${base}.tipo_factor`,
        SAT[clase].factor,
      ),
    );
    return errores;
  }

  const tasa = linea.tasa_o_cuota;
  const tieneTasa = tasa !== undefined && tasa !== null;
  if (linea.tipo_factor === 'Exento') {
    if (clase === 'retencion') {
      errores.push(
        violacion(
          'exento_en_retencion',
          'Una retención no puede tener tipo de factor Exento.',
          `${base}.tipo_factor`,
          'CFDI40184',
        ),
      );
    } else if (tieneTasa) {
      errores.push(
        violacion(
          'exento_con_tasa',
          'Un traslado Exento no lleva tasa_o_cuota.',
          `${base}.tasa_o_cuota`,
          'CFDI40177',
        ),
      );
    }
    return errores;
  }

  if (!tieneTasa || !PATRON_TASA.test(tasa)) {
    errores.push(
      violacion(
        'tasa_invalida',
        tieneTasa
          ? `La tasa o cuota "${tasa}" no es válida: debe ser un decimal no negativo con exactamente 6 decimales ` +
              '(por ejemplo "0.160000").'
          : `Con tipo de factor ${linea.tipo_factor} se requiere tasa_o_cuota (6 decimales, por ejemplo "0.160000").`,
        `${base}.tasa_o_cuota`,
        // The matrix only words the missing value for traslados; in retenciones the XSD requires it.
        !tieneTasa && clase === 'traslado' ? 'CFDI40178' : undefined,
      ),
    );
    return errores;
  }

  // Checking the value against an impuesto that is wrong already would only repeat the error.
  if (errores.length > 0 || !impuesto) return errores;
  const aplicables = reglas.filter(
    (r) => claveImpuestoDeRegla(r.impuesto) === linea.impuesto && r.factor === linea.tipo_factor && r[clase],
  );
  const valor = new Decimal(tasa);
  if (!aplicables.some((r) => cumpleRegla(r, valor))) {
    const que = `${impuesto.nombre} (${linea.impuesto}) con tipo de factor ${linea.tipo_factor}`;
    const donde = clase === 'traslado' ? 'traslados' : 'retenciones';
    errores.push(
      violacion(
        'tasa_no_permitida',
        aplicables.length === 0
          ? `El catálogo c_TasaOCuota no permite ${que} en ${donde}.`
          : `La tasa o cuota ${tasa} no está permitida para ${que} en ${donde}; ` +
              `valores permitidos: ${describirPermitidos(aplicables)}.`,
        `${base}.tasa_o_cuota`,
        SAT[clase].tasa,
      ),
    );
  }
  return errores;
}

/**
 * c_TasaOCuota names taxes by text, and the 8 % border IVA is written "IVA Crédito aplicado del 50%":
 * map that text to the c_Impuesto code. Codes are accepted as-is, in case a store already translated them.
 */
export function claveImpuestoDeRegla(impuesto: string): string | undefined {
  if (IMPUESTOS.has(impuesto)) return impuesto;
  const nombre = impuesto.trim().toUpperCase();
  if (nombre.startsWith('ISR')) return '001';
  if (nombre.startsWith('IVA')) return '002';
  if (nombre.startsWith('IEPS')) return '003';
  return undefined;
}

/** Fijo: equal to `valor`; Rango: `minimo` (0 when empty) ≤ value ≤ `valor`, bounds included. */
export function cumpleRegla(regla: ReglaTasaOCuota, valor: Decimal): boolean {
  if (regla.tipo === 'Fijo') return valor.equals(regla.valor);
  return valor.greaterThanOrEqualTo(regla.minimo ?? 0) && valor.lessThanOrEqualTo(regla.valor);
}

function describirPermitidos(reglas: readonly ReglaTasaOCuota[]): string {
  const fijos = reglas
    .filter((r) => r.tipo === 'Fijo')
    .map((r) => new Decimal(r.valor))
    .sort((a, b) => a.comparedTo(b))
    .map((d) => d.toFixed(6));
  const rangos = reglas
    .filter((r) => r.tipo === 'Rango')
    .map((r) => `de ${normalizarTasa(r.minimo ?? '0')} a ${normalizarTasa(r.valor)}`);
  return [...new Set(fijos), ...rangos].join(', ');
}

/** "0.16" → "0.160000": the 6-decimal form outputs use. Throws on anything but a non-negative decimal. */
export function normalizarTasa(valor: string): string {
  if (!/^\d+(\.\d+)?$/.test(valor)) throw new Error(`Tasa o cuota inválida: "${valor}"`);
  const decimal = new Decimal(valor);
  if (decimal.decimalPlaces() > 6) throw new Error(`Tasa o cuota con más de 6 decimales: "${valor}"`);
  return decimal.toFixed(6);
}
