import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { construirComprobante } from '../../cfdi/comprobante/construir';
import type { ComprobanteEntrada, ConceptoEntrada, ImpuestoConcepto } from '../../cfdi/comprobante/tipos';
import { MATRIZ, validarComprobante, type CatalogosValidacion } from '../../cfdi/validacion';
import { nodo, type Nodo } from '../../cfdi/xml/nodo';
import { convertirFilas } from '../../db/catalogos/cargar';
import { DEFINICIONES, directorioDatos } from '../../db/catalogos/definiciones';
import { catalogosCsv } from '../support/catalogos-csv';
import { directorioSat } from '../../config/rutas';

// ---------------------------------------------------------------------------------------------------------
// Catalogs and clock pinned: the same answers every day.

/** The CSV catalogs plus c_Pais, which CatalogosEnMemoria does not offer yet (CFDI40150/40156). */
function catalogosConPaises(fecha: string): CatalogosValidacion {
  const def = DEFINICIONES.find((d) => d.catalogo === 'pais')!;
  const filas = convertirFilas(def, readFileSync(join(directorioDatos(), def.archivo), 'utf8'));
  const paises = new Map(
    filas.map((f) => [
      String(f['id']),
      {
        clave: String(f['id']),
        patron_identidad_tributaria:
          typeof f['patron_identidad_tributaria'] === 'string' ? f['patron_identidad_tributaria'] : null,
      },
    ]),
  );
  return { ...catalogosCsv(fecha), pais: (clave: string) => paises.get(clave) };
}

const catalogos = catalogosConPaises('2026-06-01');
/** 12:00 in Mexico City (UTC−6, no daylight saving since 2022). */
const AHORA = new Date('2026-06-01T18:00:00Z');
const validar = (n: Nodo) => validarComprobante(n, catalogos, { ahora: AHORA });

// ---------------------------------------------------------------------------------------------------------
// Valid documents, built by the real builder.

const IVA16: ImpuestoConcepto = { impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' };
const IVA_EXENTO: ImpuestoConcepto = { impuesto: '002', tipo_factor: 'Exento' };
const ISR10: ImpuestoConcepto = { impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' };

const concepto = (c: Partial<ConceptoEntrada> = {}): ConceptoEntrada => ({
  clave_prod_serv: '80111600',
  cantidad: '1',
  clave_unidad: 'E48',
  unidad: 'Servicio',
  descripcion: 'Servicio de consultoría',
  valor_unitario: '1500',
  objeto_imp: '02',
  impuestos: { traslados: [IVA16] },
  ...c,
});

const sinImpuestos = (c: Partial<ConceptoEntrada> = {}) =>
  concepto({ objeto_imp: '01', impuestos: undefined, ...c });

const EMISOR = { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601' };
const RECEPTOR = {
  rfc: 'MASO451221PM4',
  nombre: 'MARIA OLIVIA MARTINEZ SAGAZ',
  domicilio_fiscal: '80290',
  regimen_fiscal: '612',
  uso_cfdi: 'G03',
};

/** Ingreso of 1500.00 + IVA 16 % = 1740.00, PUE, MXN; override what a test needs. */
const entrada = (c: Partial<ComprobanteEntrada> = {}): ComprobanteEntrada => ({
  tipo: 'I',
  fecha: '2026-06-01T10:00:00',
  forma_pago: '03',
  metodo_pago: 'PUE',
  moneda: 'MXN',
  decimales_moneda: 2,
  exportacion: '01',
  lugar_expedicion: '42501',
  emisor: EMISOR,
  receptor: RECEPTOR,
  conceptos: [concepto()],
  no_certificado: '30001000000500003416',
  ...c,
});

const ingreso = (c: Partial<ComprobanteEntrada> = {}): Nodo => construirComprobante(entrada(c)).nodo;

/** IVA 16 % plus ISR 10 % withheld: SubTotal 1500.00, traslados 240.00, retenidos 150.00, Total 1590.00. */
const conRetencion = () =>
  ingreso({ conceptos: [concepto({ impuestos: { traslados: [IVA16], retenciones: [ISR10] } })] });

/** Only an exempt IVA line: the global row carries Base, Impuesto and TipoFactor; no TotalImpuestosTrasladados. */
const exento = () => ingreso({ conceptos: [concepto({ impuestos: { traslados: [IVA_EXENTO] } })] });

const usd = () => ingreso({ moneda: 'USD', tipo_cambio: '18.9008' });

/** Factura global to público en general. */
const publico = (c: Partial<ComprobanteEntrada> = {}) =>
  ingreso({
    receptor: {
      rfc: 'XAXX010101000',
      nombre: 'PUBLICO EN GENERAL',
      domicilio_fiscal: '42501',
      regimen_fiscal: '616',
      uso_cfdi: 'S01',
    },
    informacion_global: { periodicidad: '01', meses: '05', anio: '2026' },
    conceptos: [
      concepto({
        clave_prod_serv: '01010101',
        clave_unidad: 'ACT',
        unidad: undefined,
        descripcion: 'Venta',
        no_identificacion: 'TICKET-1',
      }),
    ],
    ...c,
  });

/** Persona física in RIF (621), the only regime that may issue bimonthly global invoices. */
const EMISOR_RIF = { rfc: 'XIQB891116QE4', nombre: 'BERENICE XIMO QUEZADA', regimen_fiscal: '621' };

const extranjero = () =>
  ingreso({
    receptor: {
      rfc: 'XEXX010101000',
      nombre: 'ACME INC',
      domicilio_fiscal: '42501',
      regimen_fiscal: '616',
      uso_cfdi: 'S01',
      residencia_fiscal: 'USA',
      num_reg_id_trib: '123456789',
    },
  });

/** A payment CFDI without its Pagos content (the CFDI 4.0 matrix only looks at the envelope). */
const pago = (): Nodo =>
  nodo(
    'cfdi:Comprobante',
    {
      Version: '4.0',
      Fecha: '2026-06-01T10:00:00',
      NoCertificado: '30001000000500003416',
      SubTotal: '0',
      Moneda: 'XXX',
      Total: '0',
      TipoDeComprobante: 'P',
      Exportacion: '01',
      LugarExpedicion: '42501',
    },
    [
      nodo('cfdi:Emisor', { Rfc: EMISOR.rfc, Nombre: EMISOR.nombre, RegimenFiscal: '601' }),
      nodo('cfdi:Receptor', {
        Rfc: RECEPTOR.rfc,
        Nombre: RECEPTOR.nombre,
        DomicilioFiscalReceptor: '80290',
        RegimenFiscalReceptor: '612',
        UsoCFDI: 'CP01',
      }),
      nodo('cfdi:Conceptos', {}, [
        nodo('cfdi:Concepto', {
          ClaveProdServ: '84111506',
          Cantidad: '1',
          ClaveUnidad: 'ACT',
          Descripcion: 'Pago',
          ValorUnitario: '0',
          Importe: '0',
          ObjetoImp: '01',
        }),
      ]),
      nodo('cfdi:Complemento', {}, [nodo('pago20:Pagos', { Version: '2.0' })]),
    ],
  );

// ---------------------------------------------------------------------------------------------------------
// Mutations. Paths are the engine's parametro without the leading "Comprobante.".

function en(raiz: Nodo, ruta: string): Nodo {
  let n = raiz;
  for (const paso of ruta === '' ? [] : ruta.split('.')) {
    const [, nombre, i] = /^([^[]+)(?:\[(\d+)\])?$/.exec(paso)!;
    const h = n.hijos.filter((x) => x.nombre.split(':').pop() === nombre)[Number(i ?? 0)];
    if (!h) throw new Error(`No existe ${paso} en ${ruta}`);
    n = h;
  }
  return n;
}

/** Sets (or with undefined removes) attributes of the node at `ruta`. */
function poner(raiz: Nodo, ruta: string, atributos: Record<string, string | undefined>): Nodo {
  const n = en(raiz, ruta);
  for (const [k, v] of Object.entries(atributos)) {
    if (v === undefined) delete n.atributos[k];
    else n.atributos[k] = v;
  }
  return raiz;
}

function quitar(raiz: Nodo, ruta: string): Nodo {
  const i = ruta.lastIndexOf('.');
  const padre = en(raiz, i < 0 ? '' : ruta.slice(0, i));
  padre.hijos = padre.hijos.filter((h) => h !== en(raiz, ruta));
  return raiz;
}

function agregar(raiz: Nodo, ruta: string, hijo: Nodo): Nodo {
  en(raiz, ruta).hijos.push(hijo);
  return raiz;
}

const C = 'Conceptos.Concepto[0]';
const T0 = `${C}.Impuestos.Traslados.Traslado[0]`;
const R0 = `${C}.Impuestos.Retenciones.Retencion[0]`;
const GT0 = 'Impuestos.Traslados.Traslado[0]';
const GR0 = 'Impuestos.Retenciones.Retencion[0]';
const comercioExterior = () => nodo('cce20:ComercioExterior', { Version: '2.0' });
const conComplemento = (raiz: Nodo, hijo: Nodo) => {
  raiz.hijos.push(nodo('cfdi:Complemento', {}, [hijo]));
  return raiz;
};
const aduana = (pedimento = '26  47  3807  6001234') =>
  nodo('cfdi:InformacionAduanera', { NumeroPedimento: pedimento });
const parte = (a: Record<string, string> = {}) =>
  nodo('cfdi:Parte', {
    ClaveProdServ: '25201513',
    Cantidad: '1',
    Descripcion: 'Pieza',
    ValorUnitario: '10.00',
    Importe: '10.00',
    ...a,
  });
const tercero = (a: Record<string, string> = {}) =>
  nodo('cfdi:ACuentaTerceros', {
    RfcACuentaTerceros: 'URE180429TM6',
    NombreACuentaTerceros: 'UNIVERSIDAD ROBOTICA ESPAÑOLA',
    RegimenFiscalACuentaTerceros: '601',
    DomicilioFiscalACuentaTerceros: '86991',
    ...a,
  });

// ---------------------------------------------------------------------------------------------------------

describe('documentos válidos', () => {
  const validos: [string, () => Nodo][] = [
    ['ingreso PUE con IVA 16 %', () => ingreso()],
    ['ingreso PPD con forma de pago 99', () => ingreso({ metodo_pago: 'PPD', forma_pago: '99' })],
    [
      'egreso relacionado con tipo 01',
      () =>
        ingreso({
          tipo: 'E',
          relaciones: [{ tipo_relacion: '01', uuids: ['6F35D3B5-3651-5370-BC2C-14CDBE384CD7'] }],
        }),
    ],
    ['retención de ISR', conRetencion],
    ['solo traslados exentos', exento],
    ['en dólares con tipo de cambio', usd],
    [
      'descuentos y varios conceptos',
      () =>
        ingreso({
          conceptos: [
            concepto({ cantidad: '4', valor_unitario: '956.04', descuento: '956.04' }),
            concepto({ cantidad: '2.5', valor_unitario: '10.333333' }),
            sinImpuestos(),
          ],
        }),
    ],
    ['factura global a público en general', () => publico()],
    [
      'factura global bimestral de un emisor en RIF',
      () =>
        publico({
          emisor: EMISOR_RIF,
          informacion_global: { periodicidad: '05', meses: '13', anio: '2025' },
        }),
    ],
    ['receptor extranjero', extranjero],
    [
      'receptor extranjero con comercio exterior',
      () => conComplemento(poner(extranjero(), '', { Exportacion: '02' }), comercioExterior()),
    ],
    [
      'concepto con partes y a cuenta de terceros',
      () => agregar(agregar(agregar(ingreso(), C, tercero()), C, aduana()), C, parte()),
    ],
    ['pago', pago],
  ];
  it.each(validos)('%s: sin violaciones', (_, doc) => {
    expect(validar(doc())).toEqual([]);
  });
});

/** [sat, codigo, parametro (without "Comprobante.")] of each violation the mutation must produce, in order. */
type Esperada = [sat: string, codigo: string, parametro: string];
interface Caso {
  nombre: string;
  doc: () => Nodo;
  esperadas: Esperada[];
}

/** One case per local rule at least: a valid document broken in exactly one way. */
const CASOS: Caso[] = [
  // Fecha
  {
    nombre: 'Fecha que no existe',
    doc: () => poner(ingreso(), '', { Fecha: '2026-02-30T10:00:00' }),
    esperadas: [['CFDI40101', 'fecha_invalida', 'Fecha']],
  },
  {
    nombre: 'Fecha con zona horaria',
    doc: () => poner(ingreso(), '', { Fecha: '2026-06-01T10:00:00-06:00' }),
    esperadas: [['CFDI40101', 'fecha_invalida', 'Fecha']],
  },
  {
    nombre: 'Fecha posterior a la hora local del lugar de expedición',
    doc: () => poner(ingreso(), '', { Fecha: '2026-06-01T13:00:00' }),
    esperadas: [['CFDI40101', 'fecha_futura', 'Fecha']],
  },
  // FormaPago / MetodoPago
  {
    nombre: 'FormaPago en un pago',
    doc: () => poner(pago(), '', { FormaPago: '03' }),
    esperadas: [['CFDI40103', 'forma_pago_no_permitida', 'FormaPago']],
  },
  {
    nombre: 'FormaPago fuera de catálogo',
    doc: () => poner(ingreso(), '', { FormaPago: '56' }),
    esperadas: [['CFDI40104', 'forma_pago_invalida', 'FormaPago']],
  },
  {
    nombre: 'PPD con FormaPago distinta de 99',
    doc: () => ingreso({ metodo_pago: 'PPD', forma_pago: '03' }),
    esperadas: [['CFDI40105', 'forma_pago_ppd', 'FormaPago']],
  },
  {
    nombre: 'PPD sin FormaPago',
    doc: () => ingreso({ metodo_pago: 'PPD', forma_pago: undefined }),
    esperadas: [['CFDI40105', 'forma_pago_ppd', 'FormaPago']],
  },
  {
    nombre: 'MetodoPago fuera de catálogo',
    doc: () => poner(ingreso(), '', { MetodoPago: 'PIP' }),
    esperadas: [['CFDI40124', 'metodo_pago_invalido', 'MetodoPago']],
  },
  {
    nombre: 'MetodoPago en un pago',
    doc: () => poner(pago(), '', { MetodoPago: 'PUE' }),
    esperadas: [['CFDI40125', 'metodo_pago_no_permitido', 'MetodoPago']],
  },
  // SubTotal, Descuento, Total
  {
    nombre: 'SubTotal con más decimales que la moneda',
    doc: () => poner(ingreso(), '', { SubTotal: '1500.000' }),
    esperadas: [['CFDI40107', 'decimales_moneda', 'SubTotal']],
  },
  {
    nombre: 'SubTotal distinto de la suma de importes',
    doc: () => poner(ingreso(), '', { SubTotal: '1400.00', Total: '1640.00' }),
    esperadas: [['CFDI40108', 'subtotal_no_cuadra', 'SubTotal']],
  },
  {
    nombre: 'SubTotal distinto de cero en un pago',
    doc: () => poner(pago(), '', { SubTotal: '1', Total: '1' }),
    esperadas: [['CFDI40109', 'subtotal_no_cero', 'SubTotal']],
  },
  {
    // Σ concept discounts ≤ Σ importes, so a Descuento above SubTotal is always also not their sum.
    nombre: 'Descuento mayor que el SubTotal',
    doc: () => poner(ingreso(), '', { Descuento: '1600.00', Total: '140.00' }),
    esperadas: [
      ['CFDI40110', 'descuento_mayor_subtotal', 'Descuento'],
      ['CFDI40111', 'descuento_no_cuadra', 'Descuento'],
    ],
  },
  {
    nombre: 'Descuento sin descuentos en los conceptos',
    doc: () => poner(ingreso(), '', { Descuento: '0.00' }),
    esperadas: [['CFDI40111', 'descuento_no_cuadra', 'Descuento']],
  },
  {
    nombre: 'Descuento que no es la suma de los conceptos',
    doc: () =>
      poner(ingreso({ conceptos: [concepto({ descuento: '100' })] }), '', {
        Descuento: '99.00',
        Total: '1625.00',
      }),
    esperadas: [['CFDI40111', 'descuento_no_cuadra', 'Descuento']],
  },
  {
    nombre: 'Descuento en un pago',
    doc: () => poner(pago(), '', { Descuento: '0' }),
    esperadas: [['CFDI40111', 'descuento_no_cuadra', 'Descuento']],
  },
  {
    nombre: 'Descuento con más decimales que la moneda',
    doc: () => poner(ingreso({ conceptos: [concepto({ descuento: '100' })] }), '', { Descuento: '100.000' }),
    esperadas: [['CFDI40112', 'decimales_moneda', 'Descuento']],
  },
  {
    nombre: 'Total que no cuadra',
    doc: () => poner(ingreso(), '', { Total: '1740.01' }),
    esperadas: [['CFDI40119', 'total_no_cuadra', 'Total']],
  },
  // Moneda, TipoCambio
  {
    nombre: 'Moneda fuera de catálogo',
    doc: () => poner(ingreso(), '', { Moneda: 'MXP', TipoCambio: '1' }),
    esperadas: [['CFDI40113', 'moneda_invalida', 'Moneda']],
  },
  {
    nombre: 'MXN con TipoCambio distinto de 1',
    doc: () => poner(ingreso(), '', { TipoCambio: '18.50' }),
    esperadas: [['CFDI40114', 'tipo_cambio_mxn', 'TipoCambio']],
  },
  {
    nombre: 'USD sin TipoCambio',
    doc: () => poner(usd(), '', { TipoCambio: undefined }),
    esperadas: [['CFDI40115', 'tipo_cambio_requerido', 'TipoCambio']],
  },
  {
    nombre: 'XXX con TipoCambio',
    doc: () => poner(pago(), '', { TipoCambio: '1' }),
    esperadas: [['CFDI40116', 'tipo_cambio_no_permitido', 'TipoCambio']],
  },
  {
    nombre: 'TipoCambio con 7 decimales',
    doc: () => poner(usd(), '', { TipoCambio: '18.9008001' }),
    esperadas: [['CFDI40117', 'tipo_cambio_formato', 'TipoCambio']],
  },
  // TipoDeComprobante, Exportacion, LugarExpedicion
  {
    nombre: 'TipoDeComprobante fuera de catálogo',
    doc: () => poner(ingreso(), '', { TipoDeComprobante: 'X' }),
    esperadas: [['CFDI40121', 'tipo_comprobante_invalido', 'TipoDeComprobante']],
  },
  {
    nombre: 'Exportacion 02 sin comercio exterior',
    doc: () => poner(ingreso(), '', { Exportacion: '02' }),
    esperadas: [['CFDI40122', 'comercio_exterior_requerido', 'Exportacion']],
  },
  {
    nombre: 'Exportacion fuera de catálogo',
    doc: () => poner(ingreso(), '', { Exportacion: '05' }),
    esperadas: [['CFDI40123', 'exportacion_invalida', 'Exportacion']],
  },
  {
    nombre: 'LugarExpedicion fuera de catálogo',
    doc: () => poner(ingreso(), '', { LugarExpedicion: '00000' }),
    esperadas: [['CFDI40126', 'codigo_postal_invalido', 'LugarExpedicion']],
  },
  // InformacionGlobal
  {
    nombre: 'público en general sin InformacionGlobal',
    doc: () => quitar(publico(), 'InformacionGlobal'),
    esperadas: [['CFDI40130', 'informacion_global_requerida', 'InformacionGlobal']],
  },
  {
    nombre: 'InformacionGlobal con un receptor nominativo',
    doc: () => ingreso({ informacion_global: { periodicidad: '01', meses: '05', anio: '2026' } }),
    esperadas: [['CFDI40130', 'informacion_global_no_aplica', 'InformacionGlobal']],
  },
  {
    nombre: 'Periodicidad fuera de catálogo',
    doc: () => poner(publico(), 'InformacionGlobal', { Periodicidad: '06' }),
    esperadas: [['CFDI40131', 'periodicidad_invalida', 'InformacionGlobal.Periodicidad']],
  },
  {
    nombre: 'Periodicidad bimestral fuera de RIF',
    doc: () => poner(publico(), 'InformacionGlobal', { Periodicidad: '05', Meses: '13' }),
    esperadas: [['CFDI40132', 'periodicidad_regimen', 'InformacionGlobal.Periodicidad']],
  },
  {
    nombre: 'Meses fuera de catálogo',
    doc: () => poner(publico(), 'InformacionGlobal', { Meses: '19' }),
    esperadas: [['CFDI40133', 'meses_invalido', 'InformacionGlobal.Meses']],
  },
  {
    nombre: 'Meses bimestral con periodicidad mensual',
    doc: () => poner(publico(), 'InformacionGlobal', { Periodicidad: '04', Meses: '13' }),
    esperadas: [['CFDI40134', 'meses_periodicidad', 'InformacionGlobal.Meses']],
  },
  {
    nombre: 'Meses mensual con periodicidad bimestral',
    doc: () =>
      publico({ emisor: EMISOR_RIF, informacion_global: { periodicidad: '05', meses: '01', anio: '2026' } }),
    esperadas: [['CFDI40135', 'meses_bimestral', 'InformacionGlobal.Meses']],
  },
  {
    nombre: 'Año de hace dos años',
    doc: () => poner(publico(), 'InformacionGlobal', { Año: '2024' }),
    esperadas: [['CFDI40136', 'anio_invalido', 'InformacionGlobal.Año']],
  },
  // CfdiRelacionados, Emisor
  {
    nombre: 'TipoRelacion fuera de catálogo',
    doc: () =>
      ingreso({
        relaciones: [
          { tipo_relacion: '01', uuids: ['6F35D3B5-3651-5370-BC2C-14CDBE384CD7'] },
          { tipo_relacion: '08', uuids: ['6F35D3B5-3651-5370-BC2C-14CDBE384CD8'] },
        ],
      }),
    esperadas: [['CFDI40137', 'tipo_relacion_invalido', 'CfdiRelacionados[1].TipoRelacion']],
  },
  {
    nombre: 'RegimenFiscal del emisor fuera de catálogo',
    doc: () => poner(ingreso(), 'Emisor', { RegimenFiscal: '699' }),
    esperadas: [['CFDI40140', 'regimen_fiscal_invalido', 'Emisor.RegimenFiscal']],
  },
  {
    nombre: 'RegimenFiscal de persona física en un emisor moral',
    doc: () => poner(ingreso(), 'Emisor', { RegimenFiscal: '612' }),
    esperadas: [['CFDI40141', 'regimen_no_aplica_persona', 'Emisor.RegimenFiscal']],
  },
  // Receptor
  {
    nombre: 'PUBLICO EN GENERAL con un RFC nominativo',
    doc: () => poner(ingreso(), 'Receptor', { Nombre: 'PUBLICO EN GENERAL' }),
    esperadas: [['CFDI40146', 'publico_en_general_rfc', 'Receptor.Rfc']],
  },
  {
    nombre: 'RFC genérico con domicilio distinto del LugarExpedicion',
    doc: () => poner(publico(), 'Receptor', { DomicilioFiscalReceptor: '80290' }),
    esperadas: [['CFDI40149', 'domicilio_fiscal_rfc_generico', 'Receptor.DomicilioFiscalReceptor']],
  },
  {
    nombre: 'ResidenciaFiscal fuera de c_Pais',
    doc: () => poner(extranjero(), 'Receptor', { ResidenciaFiscal: 'XYZ' }),
    esperadas: [['CFDI40150', 'residencia_fiscal_invalida', 'Receptor.ResidenciaFiscal']],
  },
  {
    nombre: 'ResidenciaFiscal con un RFC mexicano',
    doc: () => poner(ingreso(), 'Receptor', { ResidenciaFiscal: 'USA' }),
    esperadas: [['CFDI40151', 'residencia_fiscal_no_permitida', 'Receptor.ResidenciaFiscal']],
  },
  {
    nombre: 'ResidenciaFiscal MEX',
    doc: () => poner(extranjero(), 'Receptor', { ResidenciaFiscal: 'MEX' }),
    esperadas: [['CFDI40152', 'residencia_fiscal_mex', 'Receptor.ResidenciaFiscal']],
  },
  {
    nombre: 'NumRegIdTrib sin ResidenciaFiscal',
    doc: () => poner(extranjero(), 'Receptor', { ResidenciaFiscal: undefined }),
    esperadas: [['CFDI40153', 'residencia_fiscal_requerida', 'Receptor.ResidenciaFiscal']],
  },
  {
    nombre: 'NumRegIdTrib con un RFC mexicano',
    doc: () => poner(ingreso(), 'Receptor', { NumRegIdTrib: '123456789' }),
    esperadas: [['CFDI40154', 'num_reg_id_trib_no_permitido', 'Receptor.NumRegIdTrib']],
  },
  {
    nombre: 'comercio exterior sin NumRegIdTrib',
    doc: () =>
      conComplemento(poner(extranjero(), 'Receptor', { NumRegIdTrib: undefined }), comercioExterior()),
    esperadas: [['CFDI40155', 'num_reg_id_trib_requerido', 'Receptor.NumRegIdTrib']],
  },
  {
    nombre: 'NumRegIdTrib con otro formato que el del país',
    doc: () => poner(extranjero(), 'Receptor', { NumRegIdTrib: '12-345678' }),
    esperadas: [['CFDI40156', 'num_reg_id_trib_formato', 'Receptor.NumRegIdTrib']],
  },
  {
    nombre: 'RegimenFiscalReceptor fuera de catálogo',
    doc: () => poner(ingreso(), 'Receptor', { RegimenFiscalReceptor: '699' }),
    esperadas: [['CFDI40157', 'regimen_fiscal_invalido', 'Receptor.RegimenFiscalReceptor']],
  },
  {
    nombre: 'RegimenFiscalReceptor de persona moral en una física',
    doc: () => poner(ingreso(), 'Receptor', { RegimenFiscalReceptor: '601' }),
    esperadas: [['CFDI40158', 'regimen_no_aplica_persona', 'Receptor.RegimenFiscalReceptor']],
  },
  {
    nombre: 'RFC genérico con régimen distinto de 616',
    doc: () => poner(publico(), 'Receptor', { RegimenFiscalReceptor: '612' }),
    esperadas: [['CFDI40159', 'regimen_rfc_generico', 'Receptor.RegimenFiscalReceptor']],
  },
  {
    nombre: 'UsoCFDI fuera de catálogo',
    doc: () => poner(ingreso(), 'Receptor', { UsoCFDI: 'G04' }),
    esperadas: [['CFDI40160', 'uso_cfdi_invalido', 'Receptor.UsoCFDI']],
  },
  {
    nombre: 'UsoCFDI incompatible con el régimen',
    doc: () => poner(ingreso(), 'Receptor', { UsoCFDI: 'CN01' }),
    esperadas: [['CFDI40161', 'uso_cfdi_incompatible', 'Receptor.UsoCFDI']],
  },
  {
    nombre: 'público en general con G03',
    doc: () => poner(publico(), 'Receptor', { UsoCFDI: 'G03' }),
    esperadas: [['CFDI40161', 'uso_cfdi_incompatible', 'Receptor.UsoCFDI']],
  },
  // Conceptos
  {
    nombre: 'ClaveProdServ fuera de catálogo',
    doc: () => poner(ingreso(), C, { ClaveProdServ: '99999999' }),
    esperadas: [['CFDI40162', 'clave_prod_serv_invalida', `${C}.ClaveProdServ`]],
  },
  {
    nombre: 'ClaveUnidad fuera de catálogo',
    doc: () => poner(ingreso(), C, { ClaveUnidad: 'ZZ9' }),
    esperadas: [['CFDI40165', 'clave_unidad_invalida', `${C}.ClaveUnidad`]],
  },
  {
    nombre: 'ValorUnitario cero en un ingreso',
    doc: () => ingreso({ conceptos: [sinImpuestos({ valor_unitario: '0' })] }),
    esperadas: [['CFDI40166', 'valor_unitario_cero', `${C}.ValorUnitario`]],
  },
  {
    nombre: 'Importe fuera de límites',
    doc: () =>
      poner(ingreso({ conceptos: [concepto({ cantidad: '1.000000' })] }), C, {
        ValorUnitario: '1499.990000',
      }),
    esperadas: [['CFDI40167', 'importe_fuera_de_limites', `${C}.Importe`]],
  },
  {
    nombre: 'Descuento con más decimales que el Importe',
    doc: () => poner(ingreso({ conceptos: [concepto({ descuento: '100' })] }), C, { Importe: '1500.00' }),
    esperadas: [['CFDI40168', 'descuento_decimales', `${C}.Descuento`]],
  },
  {
    nombre: 'Descuento mayor que el Importe',
    doc: () =>
      poner(
        poner(
          ingreso({
            conceptos: [sinImpuestos(), sinImpuestos({ valor_unitario: '1000', descuento: '100' })],
          }),
          'Conceptos.Concepto[1]',
          { Descuento: '1100.000000' },
        ),
        '',
        { Descuento: '1100.00', Total: '1400.00' },
      ),
    esperadas: [['CFDI40169', 'descuento_mayor_importe', 'Conceptos.Concepto[1].Descuento']],
  },
  {
    nombre: 'ObjetoImp fuera de catálogo',
    doc: () => poner(ingreso(), C, { ObjetoImp: '09' }),
    esperadas: [['CFDI40170', 'objeto_imp_invalido', `${C}.ObjetoImp`]],
  },
  {
    nombre: 'ObjetoImp 02 sin Impuestos',
    doc: () => poner(quitar(quitar(ingreso(), `${C}.Impuestos`), 'Impuestos'), '', { Total: '1500.00' }),
    esperadas: [['CFDI40171', 'impuestos_requeridos', `${C}.Impuestos`]],
  },
  {
    nombre: 'ObjetoImp 01 con Impuestos',
    doc: () => poner(ingreso(), C, { ObjetoImp: '01' }),
    esperadas: [['CFDI40172', 'impuestos_no_permitidos', `${C}.Impuestos`]],
  },
  {
    nombre: 'Impuestos del concepto vacío',
    doc: () =>
      poner(quitar(quitar(ingreso(), `${C}.Impuestos.Traslados`), 'Impuestos'), '', { Total: '1500.00' }),
    esperadas: [['CFDI40173', 'impuestos_vacios', `${C}.Impuestos`]],
  },
  // Traslados del concepto
  {
    nombre: 'Base de traslado en cero',
    doc: () => ingreso({ conceptos: [concepto({ descuento: '1500' })] }),
    esperadas: [['CFDI40174', 'base_no_positiva', `${T0}.Base`]],
  },
  {
    // The global row repeats the concept's impuesto, so both catalog checks fire.
    nombre: 'Impuesto de traslado fuera de catálogo',
    doc: () =>
      ingreso({ conceptos: [concepto({ impuestos: { traslados: [{ ...IVA16, impuesto: '004' }] } })] }),
    esperadas: [
      ['CFDI40175', 'impuesto_invalido', `${T0}.Impuesto`],
      ['CFDI40217', 'impuesto_invalido', `${GT0}.Impuesto`],
    ],
  },
  {
    nombre: 'TipoFactor de traslado fuera de catálogo',
    doc: () =>
      ingreso({
        conceptos: [concepto({ impuestos: { traslados: [{ ...IVA16, tipo_factor: 'Tasas' as 'Tasa' }] } })],
      }),
    esperadas: [['CFDI40176', 'tipo_factor_invalido', `${T0}.TipoFactor`]],
  },
  {
    nombre: 'traslado Exento con TasaOCuota',
    doc: () => poner(exento(), T0, { TasaOCuota: '0.000000' }),
    esperadas: [['CFDI40177', 'exento_con_tasa', `${T0}.TasaOCuota`]],
  },
  {
    nombre: 'traslado Exento con Importe',
    doc: () => poner(exento(), T0, { Importe: '0.00' }),
    esperadas: [['CFDI40177', 'exento_con_importe', `${T0}.Importe`]],
  },
  {
    nombre: 'traslado Tasa sin Importe',
    doc: () =>
      poner(
        poner(poner(poner(ingreso(), T0, { Importe: undefined }), GT0, { Importe: '0.00' }), 'Impuestos', {
          TotalImpuestosTrasladados: '0.00',
        }),
        '',
        { Total: '1500.00' },
      ),
    esperadas: [['CFDI40178', 'importe_impuesto_requerido', `${T0}.Importe`]],
  },
  {
    nombre: 'traslado Tasa sin TasaOCuota',
    doc: () => poner(poner(ingreso(), T0, { TasaOCuota: undefined }), GT0, { TasaOCuota: undefined }),
    esperadas: [['CFDI40178', 'tasa_invalida', `${T0}.TasaOCuota`]],
  },
  {
    nombre: 'TasaOCuota de traslado fuera de c_TasaOCuota',
    doc: () =>
      ingreso({
        conceptos: [concepto({ impuestos: { traslados: [{ ...IVA16, tasa_o_cuota: '0.170000' }] } })],
      }),
    esperadas: [
      ['CFDI40179', 'tasa_no_permitida', `${T0}.TasaOCuota`],
      ['CFDI40219', 'tasa_no_permitida', `${GT0}.TasaOCuota`],
    ],
  },
  {
    nombre: 'Importe de traslado fuera de límites',
    doc: () => poner(ingreso(), T0, { Importe: '240.001000' }),
    esperadas: [['CFDI40180', 'importe_fuera_de_limites', `${T0}.Importe`]],
  },
  // Retenciones del concepto
  {
    nombre: 'Base de retención en cero',
    doc: () => ingreso({ conceptos: [concepto({ descuento: '1500', impuestos: { retenciones: [ISR10] } })] }),
    esperadas: [['CFDI40181', 'base_no_positiva', `${R0}.Base`]],
  },
  {
    nombre: 'Impuesto de retención fuera de catálogo',
    doc: () =>
      ingreso({
        conceptos: [
          concepto({ impuestos: { traslados: [IVA16], retenciones: [{ ...ISR10, impuesto: '004' }] } }),
        ],
      }),
    esperadas: [
      ['CFDI40182', 'impuesto_invalido', `${R0}.Impuesto`],
      ['CFDI40207', 'impuesto_invalido', `${GR0}.Impuesto`],
    ],
  },
  {
    nombre: 'TipoFactor de retención fuera de catálogo',
    doc: () => poner(conRetencion(), R0, { TipoFactor: 'Tasas' }),
    esperadas: [['CFDI40183', 'tipo_factor_invalido', `${R0}.TipoFactor`]],
  },
  {
    nombre: 'retención Exento',
    doc: () => poner(conRetencion(), R0, { TipoFactor: 'Exento', TasaOCuota: undefined }),
    esperadas: [['CFDI40184', 'exento_en_retencion', `${R0}.TipoFactor`]],
  },
  {
    nombre: 'TasaOCuota de ISR retenido fuera de rango',
    doc: () =>
      ingreso({
        conceptos: [
          concepto({
            impuestos: { traslados: [IVA16], retenciones: [{ ...ISR10, tasa_o_cuota: '0.400000' }] },
          }),
        ],
      }),
    esperadas: [['CFDI40185', 'tasa_no_permitida', `${R0}.TasaOCuota`]],
  },
  {
    nombre: 'Importe de retención fuera de límites',
    doc: () => poner(conRetencion(), R0, { Importe: '150.004000' }),
    esperadas: [['CFDI40186', 'importe_fuera_de_limites', `${R0}.Importe`]],
  },
  // ACuentaTerceros, InformacionAduanera, Parte
  {
    nombre: 'tercero con el RFC del emisor',
    doc: () => agregar(ingreso(), C, tercero({ RfcACuentaTerceros: 'EKU9003173C9' })),
    esperadas: [['CFDI40188', 'tercero_rfc_igual', `${C}.ACuentaTerceros.RfcACuentaTerceros`]],
  },
  {
    nombre: 'tercero con régimen fuera de catálogo',
    doc: () => agregar(ingreso(), C, tercero({ RegimenFiscalACuentaTerceros: '699' })),
    esperadas: [
      ['CFDI40191', 'regimen_fiscal_invalido', `${C}.ACuentaTerceros.RegimenFiscalACuentaTerceros`],
    ],
  },
  {
    nombre: 'pedimento en el concepto con comercio exterior',
    doc: () => conComplemento(agregar(ingreso(), C, aduana()), comercioExterior()),
    esperadas: [
      ['CFDI40195', 'pedimento_con_comercio_exterior', `${C}.InformacionAduanera[0].NumeroPedimento`],
    ],
  },
  {
    nombre: 'ClaveProdServ de la parte fuera de catálogo',
    doc: () => agregar(ingreso(), C, parte({ ClaveProdServ: '99999999' })),
    esperadas: [['CFDI40196', 'clave_prod_serv_invalida', `${C}.Parte[0].ClaveProdServ`]],
  },
  {
    nombre: 'ValorUnitario de la parte en cero',
    doc: () => agregar(ingreso(), C, parte({ ValorUnitario: '0', Importe: '0' })),
    esperadas: [['CFDI40197', 'valor_unitario_cero', `${C}.Parte[0].ValorUnitario`]],
  },
  {
    nombre: 'Importe de la parte fuera de límites',
    doc: () => agregar(ingreso(), C, parte({ Cantidad: '1.000000', Importe: '12.00' })),
    esperadas: [['CFDI40198', 'importe_fuera_de_limites', `${C}.Parte[0].Importe`]],
  },
  {
    nombre: 'pedimento en la parte con comercio exterior',
    doc: () =>
      conComplemento(
        agregar(
          ingreso(),
          C,
          nodo('cfdi:Parte', { ClaveProdServ: '25201513', Cantidad: '1', Descripcion: 'Pieza' }, [aduana()]),
        ),
        comercioExterior(),
      ),
    esperadas: [
      [
        'CFDI40200',
        'pedimento_con_comercio_exterior',
        `${C}.Parte[0].InformacionAduanera[0].NumeroPedimento`,
      ],
    ],
  },
  // Resumen de impuestos
  {
    nombre: 'Impuestos en un pago',
    doc: () => agregar(pago(), '', nodo('cfdi:Impuestos')),
    esperadas: [['CFDI40201', 'impuestos_globales_no_permitidos', 'Impuestos']],
  },
  {
    nombre: 'TotalImpuestosRetenidos con 3 decimales',
    doc: () => poner(conRetencion(), 'Impuestos', { TotalImpuestosRetenidos: '150.000' }),
    esperadas: [['CFDI40202', 'decimales_moneda', 'Impuestos.TotalImpuestosRetenidos']],
  },
  {
    nombre: 'TotalImpuestosRetenidos que no es la suma',
    doc: () =>
      poner(poner(conRetencion(), 'Impuestos', { TotalImpuestosRetenidos: '151.00' }), '', {
        Total: '1589.00',
      }),
    esperadas: [['CFDI40203', 'total_impuestos_no_cuadra', 'Impuestos.TotalImpuestosRetenidos']],
  },
  {
    nombre: 'TotalImpuestosTrasladados con 3 decimales',
    doc: () => poner(ingreso(), 'Impuestos', { TotalImpuestosTrasladados: '240.000' }),
    esperadas: [['CFDI40204', 'decimales_moneda', 'Impuestos.TotalImpuestosTrasladados']],
  },
  {
    nombre: 'TotalImpuestosTrasladados que no es la suma',
    doc: () =>
      poner(poner(ingreso(), 'Impuestos', { TotalImpuestosTrasladados: '241.00' }), '', { Total: '1741.00' }),
    esperadas: [['CFDI40205', 'total_impuestos_no_cuadra', 'Impuestos.TotalImpuestosTrasladados']],
  },
  {
    nombre: 'Retenciones sin TotalImpuestosRetenidos',
    doc: () =>
      poner(poner(conRetencion(), 'Impuestos', { TotalImpuestosRetenidos: undefined }), '', {
        Total: '1740.00',
      }),
    esperadas: [['CFDI40206', 'total_impuestos_requerido', 'Impuestos.TotalImpuestosRetenidos']],
  },
  {
    nombre: 'retención repetida en el resumen',
    doc: () =>
      poner(
        poner(
          agregar(
            conRetencion(),
            'Impuestos.Retenciones',
            nodo('cfdi:Retencion', { Impuesto: '001', Importe: '150.00' }),
          ),
          'Impuestos',
          { TotalImpuestosRetenidos: '300.00' },
        ),
        '',
        { Total: '1440.00' },
      ),
    esperadas: [['CFDI40208', 'resumen_impuesto_duplicado', 'Impuestos.Retenciones.Retencion[1].Impuesto']],
  },
  {
    nombre: 'retenciones en conceptos sin resumen',
    doc: () =>
      poner(
        poner(quitar(conRetencion(), 'Impuestos.Retenciones'), 'Impuestos', {
          TotalImpuestosRetenidos: undefined,
        }),
        '',
        { Total: '1740.00' },
      ),
    esperadas: [['CFDI40209', 'total_impuestos_requerido', 'Impuestos.TotalImpuestosRetenidos']],
  },
  {
    nombre: 'Importe de retención del resumen con 3 decimales',
    doc: () => poner(conRetencion(), GR0, { Importe: '150.000' }),
    esperadas: [['CFDI40210', 'decimales_moneda', `${GR0}.Importe`]],
  },
  {
    nombre: 'Importe de retención del resumen que no es la suma',
    doc: () =>
      poner(
        poner(poner(conRetencion(), GR0, { Importe: '151.00' }), 'Impuestos', {
          TotalImpuestosRetenidos: '151.00',
        }),
        '',
        { Total: '1589.00' },
      ),
    esperadas: [['CFDI40211', 'resumen_impuesto_no_cuadra', `${GR0}.Importe`]],
  },
  {
    nombre: 'traslados en conceptos sin TotalImpuestosTrasladados',
    doc: () =>
      poner(poner(ingreso(), 'Impuestos', { TotalImpuestosTrasladados: undefined }), '', {
        Total: '1500.00',
      }),
    esperadas: [['CFDI40212', 'total_impuestos_requerido', 'Impuestos.TotalImpuestosTrasladados']],
  },
  {
    nombre: 'resumen exento con TasaOCuota',
    doc: () => poner(exento(), GT0, { TasaOCuota: '0.000000' }),
    esperadas: [['CFDI40213', 'resumen_exento_con_tasa', GT0]],
  },
  {
    nombre: 'Base del resumen con 3 decimales',
    doc: () => poner(ingreso(), GT0, { Base: '1500.000' }),
    esperadas: [['CFDI40214', 'decimales_moneda', `${GT0}.Base`]],
  },
  {
    nombre: 'Base del resumen que no es la suma',
    doc: () => poner(ingreso(), GT0, { Base: '1400.00' }),
    esperadas: [['CFDI40215', 'resumen_impuesto_no_cuadra', `${GT0}.Base`]],
  },
  {
    nombre: 'Base exenta del resumen que no es la suma',
    doc: () => poner(exento(), GT0, { Base: '1400.00' }),
    esperadas: [['CFDI40216', 'resumen_impuesto_no_cuadra', `${GT0}.Base`]],
  },
  {
    nombre: 'exentos sin resumen',
    doc: () => quitar(exento(), 'Impuestos'),
    esperadas: [['CFDI40216', 'resumen_impuesto_no_cuadra', 'Impuestos.Traslados']],
  },
  {
    nombre: 'traslado repetido en el resumen',
    doc: () =>
      poner(
        poner(
          agregar(
            ingreso(),
            'Impuestos.Traslados',
            nodo('cfdi:Traslado', {
              Base: '1500.00',
              Impuesto: '002',
              TipoFactor: 'Tasa',
              TasaOCuota: '0.160000',
              Importe: '240.00',
            }),
          ),
          'Impuestos',
          { TotalImpuestosTrasladados: '480.00' },
        ),
        '',
        { Total: '1980.00' },
      ),
    esperadas: [['CFDI40218', 'resumen_impuesto_duplicado', 'Impuestos.Traslados.Traslado[1].Impuesto']],
  },
  {
    nombre: 'Importe de traslado del resumen con 3 decimales',
    doc: () => poner(ingreso(), GT0, { Importe: '240.000' }),
    esperadas: [['CFDI40220', 'decimales_moneda', `${GT0}.Importe`]],
  },
  {
    nombre: 'Importe de traslado del resumen que no es la suma',
    doc: () =>
      poner(
        poner(poner(ingreso(), GT0, { Importe: '241.00' }), 'Impuestos', {
          TotalImpuestosTrasladados: '241.00',
        }),
        '',
        { Total: '1741.00' },
      ),
    esperadas: [['CFDI40221', 'resumen_impuesto_no_cuadra', `${GT0}.Importe`]],
  },
  {
    nombre: 'traslado de los conceptos ausente del resumen',
    doc: () =>
      poner(poner(quitar(ingreso(), GT0), 'Impuestos', { TotalImpuestosTrasladados: '0' }), '', {
        Total: '1500.00',
      }),
    esperadas: [['CFDI40221', 'resumen_impuesto_no_cuadra', 'Impuestos.Traslados']],
  },
  // Forma fija del CFDI de pago (Pagos 2.0, sin código de esta matriz)
  {
    nombre: 'pago en pesos',
    doc: () => poner(pago(), '', { Moneda: 'MXN' }),
    esperadas: [['', 'pago_valor_fijo', 'Moneda']],
  },
  {
    nombre: 'pago con UsoCFDI G03',
    doc: () => poner(pago(), 'Receptor', { UsoCFDI: 'G03' }),
    esperadas: [['', 'pago_valor_fijo', 'Receptor.UsoCFDI']],
  },
  {
    nombre: 'pago con otra clave de producto',
    doc: () => poner(pago(), C, { ClaveProdServ: '80111600' }),
    esperadas: [['', 'pago_concepto', `${C}.ClaveProdServ`]],
  },
  {
    nombre: 'pago sin complemento',
    doc: () => quitar(pago(), 'Complemento'),
    esperadas: [['', 'complemento_pagos_requerido', 'Complemento']],
  },
];

describe('cada regla local, rota de una sola manera', () => {
  it.each(CASOS.map((c) => [c.nombre, c] as const))('%s', (_, caso) => {
    const obtenidas = validar(caso.doc()).map((v): Esperada => [v.sat ?? '', v.codigo, v.parametro]);
    expect(obtenidas).toEqual(caso.esperadas.map(([sat, codigo, p]) => [sat, codigo, `Comprobante.${p}`]));
  });

  it('los mensajes dicen los valores', () => {
    const [v] = validar(poner(ingreso(), '', { Total: '1740.01' }));
    expect(v?.mensaje).toBe(
      'Total="1740.01" no es SubTotal − Descuento + impuestos trasladados − impuestos retenidos (1740.00).',
    );
    const [limite] = validar(poner(ingreso(), T0, { Importe: '240.001000' }));
    expect(limite?.mensaje).toContain('de 239.999999 a 240.000001');
  });
});

describe('matriz', () => {
  const csv = readFileSync(join(directorioSat(), 'docs/MatrizDeErrores_CFDI_v40.csv'), 'utf8');
  const codigosCsv = [...csv.matchAll(/"(CFDI40\d{3})"/g)].map((m) => m[1]!);

  it('lista cada código del CSV exactamente una vez', () => {
    expect(codigosCsv).toHaveLength(122);
    expect(MATRIZ.map((r) => r.sat)).toEqual([...new Set(codigosCsv)].sort());
    expect(new Set(MATRIZ.map((r) => r.sat)).size).toBe(MATRIZ.length);
  });

  it('da la razón de cada regla que solo revisa el PAC', () => {
    for (const r of MATRIZ.filter((x) => !x.local)) expect(r.razon).toBeTruthy();
  });

  it('el README pone cada código en su lista: local o solo del PAC', () => {
    const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
    const inicio = readme.indexOf('## CFDI pre-validation');
    const fin = readme.indexOf('\n## ', inicio + 1);
    const [locales = '', delPac = ''] = readme
      .slice(inicio, fin < 0 ? undefined : fin)
      .split('### Only a PAC');
    // "CFDI40107–CFDI40112" is a range.
    const codigos = (texto: string) =>
      [...texto.matchAll(/CFDI40(\d{3})(?:–CFDI40(\d{3}))?/g)].flatMap(([, desde, hasta]) =>
        Array.from(
          { length: Number(hasta ?? desde) - Number(desde) + 1 },
          (_, i) => `CFDI40${Number(desde) + i}`,
        ),
      );
    const ordenados = (l: string[]) => [...new Set(l)].sort();
    expect(ordenados(codigos(locales))).toEqual(MATRIZ.filter((r) => r.local).map((r) => r.sat));
    expect(ordenados(codigos(delPac))).toEqual(MATRIZ.filter((r) => !r.local).map((r) => r.sat));
  });

  it('tiene al menos una prueba que dispara cada regla local', () => {
    const probadas = new Set(CASOS.flatMap((c) => c.esperadas.map(([sat]) => sat)));
    const sinPrueba = MATRIZ.filter((r) => r.local && !probadas.has(r.sat)).map((r) => r.sat);
    expect(sinPrueba).toEqual([]);
    // And no test claims a code the matrix says is left to the PAC.
    const delPac = new Set(MATRIZ.filter((r) => !r.local).map((r) => r.sat));
    expect([...probadas].filter((s) => delPac.has(s))).toEqual([]);
  });
});

describe('lo que construye el builder pasa la validación', () => {
  it('500 ingresos al azar: monedas, decimales, descuentos, IVA, IEPS tasa y cuota, exentos y retenciones', () => {
    let semilla = 20260601;
    const azar = () => (semilla = (semilla * 1103515245 + 12345) % 2147483648) / 2147483648;
    const uno = <T>(xs: readonly T[]): T => xs[Math.floor(azar() * xs.length)]!;
    const numero = (maximo: number, decimales: number) => (1 + azar() * maximo).toFixed(decimales);
    const TRASLADOS: ImpuestoConcepto[][] = [
      [IVA16],
      [{ ...IVA16, tasa_o_cuota: '0.000000' }],
      [IVA_EXENTO],
      [{ impuesto: '003', tipo_factor: 'Tasa', tasa_o_cuota: '0.265000' }, IVA16],
      [{ impuesto: '003', tipo_factor: 'Cuota', tasa_o_cuota: '0.350000' }],
    ];
    const IVA_DOS_TERCIOS: ImpuestoConcepto = {
      impuesto: '002',
      tipo_factor: 'Tasa',
      tasa_o_cuota: '0.106667',
    };
    const RETENCIONES: ImpuestoConcepto[][] = [
      [],
      [ISR10, IVA_DOS_TERCIOS],
      [{ ...ISR10, tasa_o_cuota: '0.012500' }],
    ];
    const MONEDAS = [
      { moneda: 'MXN', decimales_moneda: 2 },
      { moneda: 'USD', decimales_moneda: 2, tipo_cambio: '17.5' },
      { moneda: 'JPY', decimales_moneda: 0, tipo_cambio: '0.12' },
      { moneda: 'CLF', decimales_moneda: 4, tipo_cambio: '38000.1234' },
    ];
    for (let k = 0; k < 500; k++) {
      const conceptos = Array.from({ length: 1 + Math.floor(azar() * 5) }, () => {
        const c = concepto({
          cantidad: numero(100, uno([0, 2, 3, 6])),
          valor_unitario: numero(10000, uno([0, 2, 4, 6])),
          impuestos: { traslados: uno(TRASLADOS), retenciones: uno(RETENCIONES) },
        });
        if (azar() < 0.3)
          c.descuento = ((Number(c.cantidad) * Number(c.valor_unitario) * azar()) / 2).toFixed(2);
        return azar() < 0.15 ? { ...c, objeto_imp: '01', impuestos: undefined } : c;
      });
      const doc = ingreso({ ...uno(MONEDAS), conceptos });
      expect([k, validar(doc)]).toEqual([k, []]);
    }
  });
});

// Speed is a benchmark's business (bench:cfdi, bench:timbrado), never a timed test: this one failed on a busy machine.
describe('factura de 10 conceptos', () => {
  it('con IVA trasladado e ISR retenido en cada concepto valida sin violaciones', () => {
    const doc = ingreso({
      conceptos: Array.from({ length: 10 }, (_, i) =>
        concepto({
          cantidad: String(i + 1),
          valor_unitario: '123.456789',
          impuestos: { traslados: [IVA16], retenciones: [ISR10] },
        }),
      ),
    });
    expect(validar(doc)).toEqual([]);
  });
});
