import { d, esDecimal } from '../decimal';
import type { ReglaTasaOCuota } from './catalogos';
import {
  cumpleRegla,
  describirPermitidos,
  impuestoDeClave,
  reglasAplicables,
  type ClaseImpuesto,
} from './tasa-o-cuota';
import { violacion, type Violacion } from './tipos';

/** A traslado or retención as the API writes it: a concept's tax, or a row of a paid invoice. */
export interface LineaImpuestoEntrada {
  /** c_Impuesto: "001" ISR, "002" IVA, "003" IEPS. */
  impuesto: string;
  /** c_TipoFactor: "Tasa", "Cuota" or "Exento". */
  tipo_factor: string;
  /** Absent (or null) for Exento. */
  tasa_o_cuota?: string | null;
  /** Only lines whose profile has `montos`. */
  base?: string;
  importe?: string | null;
}

/** The SAT codes of one class of line; a check without a code here reports none. */
export interface CodigosSatLinea {
  impuesto: string;
  factor: string;
  /** Exento with a rate (traslado) or Exento at all (retención). */
  exento: string;
  base?: string;
  tasaRequerida?: string;
  tasaNoPermitida?: string;
}

/**
 * What differs between the documents that carry tax lines. Concepts: CFDI 4.0 codes, the rate written
 * exactly as c_TasaOCuota writes it and checked against it. Pagos 2.0 rows: CRP20 codes, up to 6 decimals,
 * no catalog at hand, and Base and Importe on the line.
 */
export interface PerfilLineaImpuesto {
  sat: Readonly<Record<ClaseImpuesto, CodigosSatLinea>>;
  decimalesTasa: 'exactamente6' | 'hasta6';
  /** When given, the rate must fit one of these c_TasaOCuota rows. */
  tasasPermitidas?: readonly ReglaTasaOCuota[];
  /** The line carries Base and Importe; an already prorated row needs its Importe. */
  montos?: { importeRequerido: boolean };
}

const TIPOS_FACTOR = ['Tasa', 'Cuota', 'Exento'];
const DECIMALES_MONTO = 6;

const FORMATOS_TASA = {
  // The SAT compares TasaOCuota against the catalog as written, always with 6 decimals ("0.160000").
  exactamente6: {
    patron: /^(0|[1-9]\d*)\.\d{6}$/,
    debeSer: 'con exactamente 6 decimales (por ejemplo "0.160000")',
    pista: '6 decimales, por ejemplo "0.160000"',
  },
  hasta6: {
    patron: /^\d{1,12}(\.\d{1,6})?$/,
    debeSer: 'con hasta 6 decimales',
    pista: 'por ejemplo "0.160000"',
  },
} as const;

/** The checks of one traslado or retención; `ruta` names the line in the request. */
export function validarLineaImpuesto(
  linea: LineaImpuestoEntrada,
  clase: ClaseImpuesto,
  ruta: string,
  perfil: PerfilLineaImpuesto,
): Violacion[] {
  const errores: Violacion[] = [];
  const sat = perfil.sat[clase];
  const impuesto = impuestoDeClave(linea.impuesto);
  if (!impuesto) {
    errores.push(
      violacion(
        'impuesto_invalido',
        `El impuesto "${linea.impuesto}" no existe en el catálogo c_Impuesto (001 ISR, 002 IVA, 003 IEPS).`,
        `${ruta}.impuesto`,
        sat.impuesto,
      ),
    );
  } else if (clase === 'traslado' && !impuesto.traslado) {
    // c_Impuesto marks ISR as withholding only; no matrix rule names this case by itself.
    errores.push(
      violacion(
        'impuesto_invalido',
        'El ISR (001) solo puede retenerse, no trasladarse.',
        `${ruta}.impuesto`,
      ),
    );
  }
  if (perfil.montos) errores.push(...validarBase(linea.base, sat, ruta));

  if (!TIPOS_FACTOR.includes(linea.tipo_factor)) {
    errores.push(
      violacion(
        'tipo_factor_invalido',
        `El tipo de factor "${linea.tipo_factor}" no es válido: debe ser Tasa, Cuota o Exento.`,
        `${ruta}.tipo_factor`,
        sat.factor,
      ),
    );
    return errores;
  }

  const tasa = linea.tasa_o_cuota ?? undefined;
  const importe = linea.importe ?? undefined;
  if (linea.tipo_factor === 'Exento') {
    const importeSobra = perfil.montos?.importeRequerido === true && importe !== undefined;
    if (clase === 'retencion') {
      errores.push(
        violacion(
          'exento_en_retencion',
          'Una retención no puede tener tipo de factor Exento.',
          `${ruta}.tipo_factor`,
          sat.exento,
        ),
      );
    } else if (tasa !== undefined || importeSobra) {
      errores.push(
        violacion(
          'exento_con_tasa',
          `Un traslado Exento no lleva tasa_o_cuota${perfil.montos ? ' ni importe' : ''}.`,
          `${ruta}.${tasa !== undefined ? 'tasa_o_cuota' : 'importe'}`,
          sat.exento,
        ),
      );
    }
    return errores;
  }

  const formato = FORMATOS_TASA[perfil.decimalesTasa];
  if (tasa === undefined || !formato.patron.test(tasa)) {
    errores.push(
      violacion(
        'tasa_invalida',
        tasa === undefined
          ? `Con tipo de factor ${linea.tipo_factor} se requiere tasa_o_cuota (${formato.pista}).`
          : `La tasa o cuota "${tasa}" no es válida: debe ser un decimal no negativo ${formato.debeSer}.`,
        `${ruta}.tasa_o_cuota`,
        tasa === undefined ? sat.tasaRequerida : undefined,
      ),
    );
  }
  if (perfil.montos) errores.push(...validarImporte(importe, perfil.montos.importeRequerido, linea, ruta));

  // Checking the value against an impuesto or a rate that is wrong already would only repeat the error.
  if (!perfil.tasasPermitidas || errores.length > 0 || !impuesto || tasa === undefined) return errores;
  const aplicables = reglasAplicables(perfil.tasasPermitidas, linea.impuesto, linea.tipo_factor, clase);
  const valor = d(tasa);
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
        `${ruta}.tasa_o_cuota`,
        sat.tasaNoPermitida,
      ),
    );
  }
  return errores;
}

function validarBase(base: unknown, sat: CodigosSatLinea, ruta: string): Violacion[] {
  if (!esDecimal(base, DECIMALES_MONTO)) {
    return [
      violacion(
        'base_invalida',
        `La base "${String(base)}" no es válida: debe ser un número decimal no negativo con hasta 6 decimales.`,
        `${ruta}.base`,
      ),
    ];
  }
  if (d(base).isZero()) {
    return [
      violacion('base_invalida', 'La base del impuesto debe ser mayor que cero.', `${ruta}.base`, sat.base),
    ];
  }
  return [];
}

function validarImporte(
  importe: string | undefined,
  requerido: boolean,
  linea: LineaImpuestoEntrada,
  ruta: string,
): Violacion[] {
  if (importe === undefined) {
    if (!requerido) return [];
    return [
      violacion(
        'importe_requerido',
        `Un impuesto ya prorrateado con tipo de factor ${linea.tipo_factor} requiere su importe.`,
        `${ruta}.importe`,
      ),
    ];
  }
  if (esDecimal(importe, DECIMALES_MONTO)) return [];
  return [
    violacion(
      'importe_invalido',
      `El importe "${importe}" no es válido: debe ser un número decimal no negativo con hasta 6 decimales.`,
      `${ruta}.importe`,
    ),
  ];
}
