import { validarRegimen, validarRegimenRfcGenerico } from '../reglas/regimen';
import { esRfcGenerico, RFC_EXTRANJERO, RFC_PUBLICO_EN_GENERAL, validarRfc } from '../reglas/rfc';
import { validarCodigoPostal } from '../reglas/codigo-postal';
import { advertenciasUsoCfdi, validarUsoCfdi } from '../reglas/uso-cfdi';
import type { Contexto } from './contexto';

const PUBLICO_EN_GENERAL = 'PUBLICO EN GENERAL';
// c_Periodicidad and c_Meses: fixed lists (the catalog store has no lookup for them).
const PERIODICIDADES = new Set(['01', '02', '03', '04', '05']);
const BIMESTRAL = '05';
const mes = (m: string) => /^(0[1-9]|1[0-8])$/.test(m);
const mesSimple = (m: string) => /^(0[1-9]|1[0-2])$/.test(m);

const esPublicoEnGeneral = (ctx: Contexto) =>
  ctx.receptor?.atributos.Rfc === RFC_PUBLICO_EN_GENERAL &&
  ctx.receptor.atributos.Nombre === PUBLICO_EN_GENERAL;

/** Factura global: InformacionGlobal exactly when the receiver is "público en general" (CFDI40130–40136). */
export function reglasInformacionGlobal(ctx: Contexto): void {
  const ig = ctx.informacionGlobal;
  const R = 'Comprobante.InformacionGlobal';
  const publico = esPublicoEnGeneral(ctx);
  if (!ig) {
    if (publico) {
      ctx.error(
        'informacion_global_requerida',
        `Un comprobante a ${RFC_PUBLICO_EN_GENERAL} "${PUBLICO_EN_GENERAL}" requiere el nodo InformacionGlobal.`,
        R,
        'CFDI40130',
      );
    }
    return;
  }
  if (!publico) {
    ctx.error(
      'informacion_global_no_aplica',
      `InformacionGlobal solo aplica cuando el receptor es ${RFC_PUBLICO_EN_GENERAL} con Nombre ` +
        `"${PUBLICO_EN_GENERAL}" (el receptor es ${ctx.receptor?.atributos.Rfc ?? '—'} ` +
        `"${ctx.receptor?.atributos.Nombre ?? ''}").`,
      R,
      'CFDI40130',
    );
  }
  const { Periodicidad: periodicidad, Meses: meses, Año: anio } = ig.atributos;
  const periodicidadValida = periodicidad !== undefined && PERIODICIDADES.has(periodicidad);
  if (periodicidad !== undefined && !periodicidadValida) {
    ctx.error(
      'periodicidad_invalida',
      `Periodicidad="${periodicidad}" no existe en el catálogo c_Periodicidad (01 a 05).`,
      `${R}.Periodicidad`,
      'CFDI40131',
    );
  }
  const regimen = ctx.emisor?.atributos.RegimenFiscal;
  if (periodicidad === BIMESTRAL && regimen !== '621') {
    ctx.error(
      'periodicidad_regimen',
      `La periodicidad bimestral (05) solo aplica al régimen 621 (Incorporación Fiscal); el emisor tiene ` +
        `${regimen ?? 'ninguno'}.`,
      `${R}.Periodicidad`,
      'CFDI40132',
    );
  }
  if (meses !== undefined) {
    if (!mes(meses)) {
      ctx.error(
        'meses_invalido',
        `Meses="${meses}" no existe en el catálogo c_Meses (01 a 18).`,
        `${R}.Meses`,
        'CFDI40133',
      );
    } else if (periodicidadValida && periodicidad !== BIMESTRAL && !mesSimple(meses)) {
      ctx.error(
        'meses_periodicidad',
        `Con Periodicidad="${periodicidad}" Meses debe ser un mes de 01 a 12 (tiene "${meses}").`,
        `${R}.Meses`,
        'CFDI40134',
      );
    } else if (periodicidad === BIMESTRAL && mesSimple(meses)) {
      ctx.error(
        'meses_bimestral',
        `Con Periodicidad="05" (bimestral) Meses debe ser un bimestre de 13 a 18 (tiene "${meses}").`,
        `${R}.Meses`,
        'CFDI40135',
      );
    }
  }
  if (anio !== undefined) {
    const actual = Number(ctx.ahoraLocal.slice(0, 4));
    if (anio !== String(actual) && anio !== String(actual - 1)) {
      ctx.error(
        'anio_invalido',
        `Año="${anio}" debe ser el año en curso (${actual}) o el inmediato anterior (${actual - 1}).`,
        `${R}.Año`,
        'CFDI40136',
      );
    }
  }
}

export function reglasRelacionados(ctx: Contexto): void {
  ctx.relacionados.forEach((r, i) => {
    const tipo = r.atributos.TipoRelacion;
    if (tipo === undefined || ctx.catalogos.tipoRelacion(tipo)) return;
    ctx.error(
      'tipo_relacion_invalido',
      `TipoRelacion="${tipo}" no existe o no está vigente en el catálogo c_TipoRelacion.`,
      `Comprobante.CfdiRelacionados[${i}].TipoRelacion`,
      'CFDI40137',
    );
  });
}

export function reglasEmisor(ctx: Contexto): void {
  const e = ctx.emisor?.atributos;
  if (!e?.Rfc) return;
  const R = 'Comprobante.Emisor';
  ctx.agregar(validarRfc(e.Rfc, `${R}.Rfc`));
  if (e.RegimenFiscal !== undefined) {
    ctx.agregar(validarRegimen(e.RegimenFiscal, e.Rfc, ctx.catalogos, `${R}.RegimenFiscal`, 'emisor'));
  }
}

export function reglasReceptor(ctx: Contexto): void {
  const r = ctx.receptor?.atributos;
  if (!r?.Rfc) return;
  const R = 'Comprobante.Receptor';
  const rfc = r.Rfc;
  ctx.agregar(validarRfc(rfc, `${R}.Rfc`));

  if (r.RegimenFiscalReceptor !== undefined) {
    const regimen = validarRegimen(
      r.RegimenFiscalReceptor,
      rfc,
      ctx.catalogos,
      `${R}.RegimenFiscalReceptor`,
      'receptor',
    );
    ctx.agregar(regimen);
    // As for clients: one wrong regime gives one error.
    if (regimen.length === 0) {
      ctx.agregar(validarRegimenRfcGenerico(r.RegimenFiscalReceptor, rfc, `${R}.RegimenFiscalReceptor`));
    }
  }
  if (r.UsoCFDI !== undefined) {
    const uso = validarUsoCfdi(r.UsoCFDI, ctx.catalogos, `${R}.UsoCFDI`);
    ctx.agregar(uso);
    // For a client this is a warning; a document that breaks it must not be stamped.
    if (uso.length === 0 && r.RegimenFiscalReceptor !== undefined) {
      ctx.agregar(
        advertenciasUsoCfdi(r.UsoCFDI, r.RegimenFiscalReceptor, rfc, ctx.catalogos, `${R}.UsoCFDI`),
      );
    }
  }

  const domicilio = r.DomicilioFiscalReceptor;
  if (domicilio !== undefined) {
    ctx.agregar(validarCodigoPostal(domicilio, ctx.catalogos, `${R}.DomicilioFiscalReceptor`, 'receptor'));
    if (esRfcGenerico(rfc) && domicilio !== ctx.a.LugarExpedicion) {
      ctx.error(
        'domicilio_fiscal_rfc_generico',
        `Con el RFC genérico ${rfc} el DomicilioFiscalReceptor debe ser el LugarExpedicion ` +
          `(${ctx.a.LugarExpedicion ?? '—'}), no ${domicilio}.`,
        `${R}.DomicilioFiscalReceptor`,
        'CFDI40149',
      );
    }
  }
  if (r.Nombre === PUBLICO_EN_GENERAL && rfc !== RFC_PUBLICO_EN_GENERAL) {
    ctx.error(
      'publico_en_general_rfc',
      `Con Nombre "${PUBLICO_EN_GENERAL}" el RFC del receptor debe ser ${RFC_PUBLICO_EN_GENERAL}, no ${rfc}.`,
      `${R}.Rfc`,
      'CFDI40146',
    );
  }
  reglasExtranjero(ctx, rfc === RFC_EXTRANJERO);
}

/** What only the foreign generic RFC may carry. */
const SOLO_EXTRANJERO = [
  { atributo: 'ResidenciaFiscal', codigo: 'residencia_fiscal_no_permitida', sat: 'CFDI40151' },
  { atributo: 'NumRegIdTrib', codigo: 'num_reg_id_trib_no_permitido', sat: 'CFDI40154' },
] as const;

/** ResidenciaFiscal and NumRegIdTrib: only for the foreign generic RFC (CFDI40150–40156). */
function reglasExtranjero(ctx: Contexto, extranjero: boolean): void {
  const r = ctx.receptor!.atributos;
  const R = 'Comprobante.Receptor';
  const { ResidenciaFiscal: residencia, NumRegIdTrib: numRegId } = r;
  const cce = ctx.conComercioExterior;

  if (!extranjero) {
    for (const { atributo, codigo, sat } of SOLO_EXTRANJERO) {
      const valor = r[atributo];
      if (valor === undefined) continue;
      ctx.error(
        codigo,
        `${atributo}="${valor}" solo se registra con el RFC genérico extranjero ${RFC_EXTRANJERO}; ` +
          `el receptor es ${r.Rfc}.`,
        `${R}.${atributo}`,
        sat,
      );
    }
    return;
  }

  const pais =
    residencia === undefined || residencia === 'MEX' ? undefined : ctx.catalogos.pais?.(residencia);
  if (residencia === 'MEX') {
    ctx.error(
      'residencia_fiscal_mex',
      'La ResidenciaFiscal de un receptor extranjero no puede ser MEX.',
      `${R}.ResidenciaFiscal`,
      'CFDI40152',
    );
  } else if (residencia !== undefined && ctx.catalogos.pais && !pais) {
    ctx.error(
      'residencia_fiscal_invalida',
      `ResidenciaFiscal="${residencia}" no existe en el catálogo c_Pais.`,
      `${R}.ResidenciaFiscal`,
      'CFDI40150',
    );
  }
  if (residencia === undefined && (cce || numRegId !== undefined)) {
    ctx.error(
      'residencia_fiscal_requerida',
      `Se requiere ResidenciaFiscal (c_Pais) cuando el receptor ${RFC_EXTRANJERO} ` +
        (numRegId !== undefined
          ? `tiene NumRegIdTrib="${numRegId}".`
          : 'y hay complemento de Comercio Exterior.'),
      `${R}.ResidenciaFiscal`,
      'CFDI40153',
    );
  }
  if (numRegId === undefined && cce) {
    ctx.error(
      'num_reg_id_trib_requerido',
      `Con el complemento de Comercio Exterior el receptor ${RFC_EXTRANJERO} requiere NumRegIdTrib.`,
      `${R}.NumRegIdTrib`,
      'CFDI40155',
    );
  }
  const patron = pais?.patron_identidad_tributaria;
  if (numRegId !== undefined && patron && !coincideCompleto(patron, numRegId)) {
    ctx.error(
      'num_reg_id_trib_formato',
      `NumRegIdTrib="${numRegId}" no cumple el formato del país ${residencia} en c_Pais (${patron}).`,
      `${R}.NumRegIdTrib`,
      'CFDI40156',
    );
  }
}

// Country patterns are few and fixed: compile each once per process.
const patrones = new Map<string, RegExp | null>();

function coincideCompleto(patron: string, valor: string): boolean {
  let re = patrones.get(patron);
  if (re === undefined) {
    try {
      re = new RegExp(`^(?:${patron})$`);
    } catch {
      re = null; // a pattern the catalog wrote wrong cannot reject anybody
    }
    patrones.set(patron, re);
  }
  return re === null || re.test(valor);
}
