import { join } from 'node:path';
import { raizProyecto } from '../../config/rutas';

/** How a CSV field becomes a column value. */
export type TipoColumna = 'texto' | 'lista' | 'booleano' | 'entero' | 'decimal' | 'fecha';

export interface Columna {
  /** CSV header and table column alike: the CSVs already use snake_case names. */
  nombre: string;
  tipo: TipoColumna;
  /** Empty field → NULL. Without it an empty field is an error, except booleans where empty means false. */
  nulo: boolean;
}

export interface DefinicionCatalogo {
  /** Key in cat_cargas and in cargarCatalogos' result. */
  catalogo: string;
  /** File name inside db/catalogos/datos; `.gz` files are gunzipped on read. */
  archivo: string;
  tabla: string;
  columnas: readonly Columna[];
}

export type ValorSql = string | number | boolean | null;

export const directorioDatos = (): string => join(raizProyecto(), 'db', 'catalogos', 'datos');

const columna =
  (tipo: TipoColumna) =>
  (nombre: string): Columna => ({ nombre, tipo, nulo: false });
const texto = columna('texto');
const lista = columna('lista');
const booleano = columna('booleano');
const entero = columna('entero');
const decimal = columna('decimal');
const fecha = columna('fecha');
const nulo = (c: Columna): Columna => ({ ...c, nulo: true });

// Empty vigencia_desde happens (c_TipoDeComprobante "N"): it means valid since the catalog began.
const vigencia = [nulo(fecha('vigencia_desde')), nulo(fecha('vigencia_hasta'))];
const clave = (nombre = 'id') => texto(nombre);

const simple = (catalogo: string, archivo: string): DefinicionCatalogo => ({
  catalogo,
  archivo,
  tabla: `cat_${catalogo}`,
  columnas: [clave(), texto('texto'), ...vigencia],
});

export const DEFINICIONES: readonly DefinicionCatalogo[] = [
  {
    catalogo: 'clave_prod_serv',
    archivo: 'c_ClaveProdServ.csv.gz',
    tabla: 'cat_clave_prod_serv',
    columnas: [
      clave(),
      texto('descripcion'),
      nulo(texto('palabras_similares')),
      nulo(texto('complemento_que_debe_incluir')),
      booleano('estimulo_franja_fronteriza'), // raw 00/01
      ...vigencia,
    ],
  },
  {
    catalogo: 'clave_unidad',
    archivo: 'c_ClaveUnidad.csv',
    tabla: 'cat_clave_unidad',
    columnas: [
      clave(),
      texto('texto'),
      nulo(texto('descripcion')),
      nulo(texto('notas')),
      ...vigencia,
      nulo(texto('simbolo')),
    ],
  },
  {
    catalogo: 'codigo_postal',
    archivo: 'c_CodigoPostal.csv.gz',
    tabla: 'cat_codigo_postal',
    columnas: [
      clave(),
      texto('estado'),
      nulo(texto('municipio')),
      nulo(texto('localidad')),
      entero('estimulo_franja_fronteriza'), // 0 none, 1 northern border, 2 southern border
      ...vigencia,
      texto('huso_horario'),
    ],
  },
  {
    catalogo: 'regimen_fiscal',
    archivo: 'c_RegimenFiscal.csv',
    tabla: 'cat_regimen_fiscal',
    columnas: [clave(), texto('texto'), booleano('aplica_fisica'), booleano('aplica_moral'), ...vigencia],
  },
  {
    catalogo: 'uso_cfdi',
    archivo: 'c_UsoCFDI.csv',
    tabla: 'cat_uso_cfdi',
    columnas: [
      clave(),
      texto('texto'),
      booleano('aplica_fisica'),
      booleano('aplica_moral'),
      ...vigencia,
      lista('regimenes_fiscales_receptores'),
    ],
  },
  {
    catalogo: 'forma_pago',
    archivo: 'c_FormaPago.csv',
    tabla: 'cat_forma_pago',
    columnas: [
      clave(),
      texto('texto'),
      booleano('es_bancarizado'),
      booleano('requiere_numero_operacion'),
      booleano('permite_banco_ordenante_rfc'),
      booleano('permite_cuenta_ordenante'),
      nulo(texto('patron_cuenta_ordenante')),
      booleano('permite_banco_beneficiario_rfc'),
      booleano('permite_cuenta_beneficiario'),
      nulo(texto('patron_cuenta_beneficiario')),
      booleano('permite_tipo_cadena_pago'),
      booleano('requiere_banco_ordenante_nombre_ext'),
      ...vigencia,
    ],
  },
  simple('metodo_pago', 'c_MetodoPago.csv'),
  {
    catalogo: 'moneda',
    archivo: 'c_Moneda.csv',
    tabla: 'cat_moneda',
    columnas: [clave(), texto('texto'), entero('decimales'), decimal('porcentaje_variacion'), ...vigencia],
  },
  simple('exportacion', 'c_Exportacion.csv'),
  simple('objeto_imp', 'c_ObjetoImp.csv'),
  simple('tipo_relacion', 'c_TipoRelacion.csv'),
  {
    catalogo: 'impuesto',
    archivo: 'c_Impuesto.csv',
    tabla: 'cat_impuesto',
    columnas: [
      clave(),
      texto('texto'),
      booleano('retencion'),
      booleano('traslado'),
      texto('ambito'),
      ...vigencia,
    ],
  },
  {
    // A rules table without a natural key: the table adds an autoincrement id.
    catalogo: 'tasa_o_cuota',
    archivo: 'c_TasaOCuota.csv',
    tabla: 'cat_tasa_o_cuota',
    columnas: [
      texto('tipo'),
      nulo(decimal('minimo')),
      decimal('valor'),
      texto('impuesto'),
      texto('factor'),
      booleano('traslado'),
      booleano('retencion'),
      ...vigencia,
    ],
  },
  {
    catalogo: 'tipo_factor',
    archivo: 'c_TipoFactor.csv',
    tabla: 'cat_tipo_factor',
    columnas: [clave(), ...vigencia],
  },
  {
    catalogo: 'tipo_comprobante',
    archivo: 'c_TipoDeComprobante.csv',
    tabla: 'cat_tipo_comprobante',
    columnas: [clave(), texto('texto'), decimal('valor_maximo'), ...vigencia],
  },
  {
    catalogo: 'pais',
    archivo: 'c_Pais.csv',
    tabla: 'cat_pais',
    columnas: [
      clave(),
      texto('texto'),
      nulo(texto('patron_codigo_postal')),
      nulo(texto('patron_identidad_tributaria')),
      nulo(texto('validacion_identidad_tributaria')),
      nulo(texto('agrupaciones')),
    ],
  },
  simple('meses', 'c_Meses.csv'),
  simple('periodicidad', 'c_Periodicidad.csv'),
  {
    catalogo: 'estado',
    archivo: 'c_Estado.csv',
    tabla: 'cat_estado',
    columnas: [clave('estado'), texto('pais'), texto('texto'), ...vigencia],
  },
  {
    catalogo: 'municipio',
    archivo: 'c_Municipio.csv',
    tabla: 'cat_municipio',
    columnas: [clave('municipio'), clave('estado'), texto('texto'), ...vigencia],
  },
  {
    catalogo: 'localidad',
    archivo: 'c_Localidad.csv',
    tabla: 'cat_localidad',
    columnas: [clave('localidad'), clave('estado'), texto('texto'), ...vigencia],
  },
  {
    catalogo: 'motivo_cancelacion',
    archivo: 'c_MotivoCancelacion.csv',
    tabla: 'cat_motivo_cancelacion',
    columnas: [clave(), texto('texto'), booleano('requiere_folio_sustitucion')],
  },
  {
    catalogo: 'tipo_cadena_pago',
    archivo: 'pagos_c_TipoCadenaPago.csv',
    tabla: 'cat_tipo_cadena_pago',
    columnas: [clave(), texto('texto')],
  },
];

const VERDADERO = new Set(['1', '01']);
const FALSO = new Set(['', '0', '00']);

// Strict on purpose: a malformed catalog must stop the load, not land as a silently wrong value.
const CONVERSIONES: Record<TipoColumna, (valor: string) => ValorSql> = {
  texto: (valor) => valor,
  // "601, 603,605" → "601,603,605": the source spaces irregularly; the compact form suits FIND_IN_SET.
  lista: (valor) => {
    const elementos = valor.split(',').map((e) => e.trim());
    if (elementos.some((e) => e === '')) throw new Error(`lista con un elemento vacío: "${valor}"`);
    return elementos.join(',');
  },
  booleano: (valor) => {
    if (VERDADERO.has(valor)) return true;
    if (FALSO.has(valor)) return false;
    throw new Error(`booleano inválido: "${valor}"`);
  },
  entero: (valor) => {
    const n = Number(valor);
    if (!/^-?\d+$/.test(valor) || !Number.isSafeInteger(n)) throw new Error(`entero inválido: "${valor}"`);
    return n;
  },
  // Kept as a string so no digit goes through a float.
  decimal: (valor) => {
    if (!/^-?\d+(\.\d+)?$/.test(valor)) throw new Error(`decimal inválido: "${valor}"`);
    return valor;
  },
  // Kept as 'YYYY-MM-DD' so no time zone can shift the day.
  fecha: (valor) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(valor);
    const dia = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
    if (!dia || dia.toISOString().slice(0, 10) !== valor) throw new Error(`fecha inválida: "${valor}"`);
    return valor;
  },
};

/** One CSV field converted for its column; throws with the reason when it does not fit. */
export function convertirValor(columna: Columna, valor: string): ValorSql {
  if (valor === '' && columna.tipo !== 'booleano') {
    if (columna.nulo) return null;
    throw new Error('campo obligatorio vacío');
  }
  return CONVERSIONES[columna.tipo](valor);
}
