import type { ConsultaCatalogos } from './catalogos';
import { validarLineaImpuesto, type CodigosSatLinea, type PerfilLineaImpuesto } from './linea-impuesto';
import type { ClaseImpuesto } from './tasa-o-cuota';
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

// Rules written in the matrix for 01–03; 04–08 came later and carry no rule on the Impuestos node here.
const OBJETOS_IMP = /^0[1-8]$/;
const OBJETOS_SIN_IMPUESTOS = ['01', '03'];

/** CFDI 4.0 codes of a concept's tax lines (the matrix words a missing rate for traslados only). */
export const SAT_LINEA_CONCEPTO: Readonly<Record<ClaseImpuesto, CodigosSatLinea>> = {
  traslado: {
    impuesto: 'CFDI40175',
    factor: 'CFDI40176',
    exento: 'CFDI40177',
    tasaRequerida: 'CFDI40178',
    tasaNoPermitida: 'CFDI40179',
  },
  retencion: {
    impuesto: 'CFDI40182',
    factor: 'CFDI40183',
    exento: 'CFDI40184',
    tasaNoPermitida: 'CFDI40185',
  },
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

  const perfil: PerfilLineaImpuesto = {
    sat: SAT_LINEA_CONCEPTO,
    decimalesTasa: 'exactamente6',
    tasasPermitidas: catalogos.reglasTasaOCuota(),
  };
  traslados.forEach((linea, i) =>
    errores.push(...validarLineaImpuesto(linea, 'traslado', `${parametroBase}.traslados[${i}]`, perfil)),
  );
  retenciones.forEach((linea, i) =>
    errores.push(...validarLineaImpuesto(linea, 'retencion', `${parametroBase}.retenciones[${i}]`, perfil)),
  );
  errores.push(
    ...repetidas(traslados, `${parametroBase}.traslados`),
    ...repetidas(retenciones, `${parametroBase}.retenciones`),
  );
  return errores;
}

/**
 * One line per tax and factor type in a concept: a second IVA line would be added on top of the first (a 16 %
 * tax charged twice), which the SAT's matrix does not catch because each line is valid on its own.
 */
function repetidas(lineas: LineaImpuesto[], parametro: string): Violacion[] {
  const vistas = new Map<string, number>();
  const errores: Violacion[] = [];
  lineas.forEach((l, i) => {
    const clave = `${l.impuesto}|${l.tipo_factor}`;
    const primera = vistas.get(clave);
    if (primera === undefined) {
      vistas.set(clave, i);
      return;
    }
    errores.push(
      violacion(
        'impuesto_repetido',
        `${parametro}[${i}] repite el impuesto ${l.impuesto} con tipo_factor ${l.tipo_factor} de ` +
          `${parametro}[${primera}]: cada impuesto va una sola vez por concepto (se sumaría dos veces).`,
        `${parametro}[${i}]`,
      ),
    );
  });
  return errores;
}
