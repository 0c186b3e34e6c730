import type { Knex } from 'knex';

// SAT catalogs, filled by db/catalogos/cargar.ts. Text is utf8mb4_unicode_ci so that searches ignore
// accents and case ("facturacion" finds "facturación") on MariaDB 10.11 and MySQL 8 alike. Codes are
// utf8mb4_bin instead: a CFDI attribute must match the SAT code exactly ("pue" is not "PUE").
// No foreign keys between catalogs: the SAT files disagree (c_CodigoPostal 2022 still says DIF where
// c_Estado says CMX), and a reference table must load whatever the SAT publishes.

type Tabla = Knex.CreateTableBuilder;

const codigo = (t: Tabla, nombre: string, largo: number) =>
  t.string(nombre, largo).collate('utf8mb4_bin').notNullable();

const texto = (t: Tabla, nombre = 'texto', largo = 255) => t.string(nombre, largo).notNullable();

const vigencia = (t: Tabla) => {
  t.date('vigencia_desde').nullable();
  t.date('vigencia_hasta').nullable();
};

function crear(knex: Knex, tabla: string, columnas: (t: Tabla) => void) {
  return knex.schema.createTable(tabla, (t) => {
    t.charset('utf8mb4');
    t.collate('utf8mb4_unicode_ci');
    columnas(t);
  });
}

/** The many catalogs that are just a code, a description and a validity range. */
const simple = (knex: Knex, tabla: string, largo: number) =>
  crear(knex, tabla, (t) => {
    codigo(t, 'id', largo).primary();
    texto(t);
    vigencia(t);
  });

export async function up(knex: Knex): Promise<void> {
  await crear(knex, 'cat_clave_prod_serv', (t) => {
    codigo(t, 'id', 8).primary();
    texto(t, 'descripcion');
    t.text('palabras_similares').nullable();
    t.string('complemento_que_debe_incluir', 255).nullable();
    t.boolean('estimulo_franja_fronteriza').notNullable();
    vigencia(t);
  });
  await crear(knex, 'cat_clave_unidad', (t) => {
    codigo(t, 'id', 3).primary();
    texto(t);
    t.text('descripcion').nullable();
    t.text('notas').nullable();
    vigencia(t);
    t.string('simbolo', 50).nullable();
  });
  await crear(knex, 'cat_codigo_postal', (t) => {
    codigo(t, 'id', 5).primary();
    codigo(t, 'estado', 3);
    t.string('municipio', 3).collate('utf8mb4_bin').nullable();
    t.string('localidad', 2).collate('utf8mb4_bin').nullable();
    // 0 = none, 1 = northern border region, 2 = southern border region.
    t.tinyint('estimulo_franja_fronteriza').unsigned().notNullable();
    vigencia(t);
    texto(t, 'huso_horario', 50);
  });
  await crear(knex, 'cat_regimen_fiscal', (t) => {
    codigo(t, 'id', 3).primary();
    texto(t);
    t.boolean('aplica_fisica').notNullable();
    t.boolean('aplica_moral').notNullable();
    vigencia(t);
  });
  await crear(knex, 'cat_uso_cfdi', (t) => {
    codigo(t, 'id', 4).primary();
    texto(t);
    t.boolean('aplica_fisica').notNullable();
    t.boolean('aplica_moral').notNullable();
    vigencia(t);
    // Compact comma list of RegimenFiscalReceptor codes ("601,603"), usable with FIND_IN_SET.
    t.string('regimenes_fiscales_receptores', 255).collate('utf8mb4_bin').notNullable();
  });
  await crear(knex, 'cat_forma_pago', (t) => {
    codigo(t, 'id', 2).primary();
    texto(t);
    t.boolean('es_bancarizado').notNullable();
    t.boolean('requiere_numero_operacion').notNullable();
    t.boolean('permite_banco_ordenante_rfc').notNullable();
    t.boolean('permite_cuenta_ordenante').notNullable();
    t.string('patron_cuenta_ordenante', 255).nullable();
    t.boolean('permite_banco_beneficiario_rfc').notNullable();
    t.boolean('permite_cuenta_beneficiario').notNullable();
    t.string('patron_cuenta_beneficiario', 255).nullable();
    t.boolean('permite_tipo_cadena_pago').notNullable();
    t.boolean('requiere_banco_ordenante_nombre_ext').notNullable();
    vigencia(t);
  });
  await simple(knex, 'cat_metodo_pago', 3);
  await crear(knex, 'cat_moneda', (t) => {
    codigo(t, 'id', 3).primary();
    texto(t);
    t.tinyint('decimales').unsigned().notNullable();
    t.decimal('porcentaje_variacion', 7, 2).notNullable();
    vigencia(t);
  });
  await simple(knex, 'cat_exportacion', 2);
  await simple(knex, 'cat_objeto_imp', 2);
  await simple(knex, 'cat_tipo_relacion', 2);
  await crear(knex, 'cat_impuesto', (t) => {
    codigo(t, 'id', 3).primary();
    texto(t);
    t.boolean('retencion').notNullable();
    t.boolean('traslado').notNullable();
    texto(t, 'ambito', 20);
    vigencia(t);
  });
  // Rules, not codes: several rows share impuesto/factor, so there is no natural key.
  await crear(knex, 'cat_tasa_o_cuota', (t) => {
    t.increments('id');
    codigo(t, 'tipo', 10); // Fijo | Rango
    t.decimal('minimo', 18, 6).nullable();
    t.decimal('valor', 18, 6).notNullable(); // the maximum when tipo = Rango
    texto(t, 'impuesto', 50);
    codigo(t, 'factor', 6);
    t.boolean('traslado').notNullable();
    t.boolean('retencion').notNullable();
    vigencia(t);
    t.index(['impuesto', 'factor']);
  });
  await crear(knex, 'cat_tipo_factor', (t) => {
    codigo(t, 'id', 6).primary();
    vigencia(t);
  });
  await crear(knex, 'cat_tipo_comprobante', (t) => {
    codigo(t, 'id', 1).primary();
    texto(t);
    t.decimal('valor_maximo', 24, 6).notNullable();
    vigencia(t);
  });
  await crear(knex, 'cat_pais', (t) => {
    codigo(t, 'id', 3).primary();
    texto(t);
    t.string('patron_codigo_postal', 255).nullable();
    t.string('patron_identidad_tributaria', 255).nullable();
    t.string('validacion_identidad_tributaria', 255).nullable();
    t.string('agrupaciones', 255).nullable();
  });
  await simple(knex, 'cat_meses', 2);
  await simple(knex, 'cat_periodicidad', 2);
  await crear(knex, 'cat_estado', (t) => {
    codigo(t, 'estado', 3).primary();
    codigo(t, 'pais', 3);
    texto(t);
    vigencia(t);
  });
  // Municipio and localidad codes repeat across states: the key includes the state.
  await crear(knex, 'cat_municipio', (t) => {
    codigo(t, 'estado', 3);
    codigo(t, 'municipio', 3);
    texto(t);
    vigencia(t);
    t.primary(['estado', 'municipio']);
  });
  await crear(knex, 'cat_localidad', (t) => {
    codigo(t, 'estado', 3);
    codigo(t, 'localidad', 2);
    texto(t);
    vigencia(t);
    t.primary(['estado', 'localidad']);
  });
  await crear(knex, 'cat_motivo_cancelacion', (t) => {
    codigo(t, 'id', 2).primary();
    texto(t);
    t.boolean('requiere_folio_sustitucion').notNullable();
  });
  await crear(knex, 'cat_tipo_cadena_pago', (t) => {
    codigo(t, 'id', 2).primary();
    texto(t);
  });
  // One row per catalog: the hash of the file last loaded, so an unchanged file is skipped.
  await crear(knex, 'cat_cargas', (t) => {
    t.string('catalogo', 64).primary();
    t.specificType('sha256', 'CHAR(64) CHARACTER SET ascii COLLATE ascii_bin').notNullable();
    t.integer('filas').unsigned().notNullable();
    t.timestamp('cargado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
  });
}

const TABLAS = [
  'cat_clave_prod_serv',
  'cat_clave_unidad',
  'cat_codigo_postal',
  'cat_regimen_fiscal',
  'cat_uso_cfdi',
  'cat_forma_pago',
  'cat_metodo_pago',
  'cat_moneda',
  'cat_exportacion',
  'cat_objeto_imp',
  'cat_tipo_relacion',
  'cat_impuesto',
  'cat_tasa_o_cuota',
  'cat_tipo_factor',
  'cat_tipo_comprobante',
  'cat_pais',
  'cat_meses',
  'cat_periodicidad',
  'cat_estado',
  'cat_municipio',
  'cat_localidad',
  'cat_motivo_cancelacion',
  'cat_tipo_cadena_pago',
  'cat_cargas',
];

export async function down(knex: Knex): Promise<void> {
  for (const tabla of [...TABLAS].reverse()) await knex.schema.dropTable(tabla);
}
