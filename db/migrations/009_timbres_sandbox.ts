import type { Knex } from 'knex';

// The sandbox PAC's stamps (pac/sandbox/almacen.ts). The sandbox used to create this table itself at
// start with CREATE TABLE IF NOT EXISTS; a database it already ran against keeps that table and its rows,
// which have exactly these columns and keys, so the migration leaves an existing table alone.
const TABLA = 'pac_sandbox_timbres';

export async function up(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable(TABLA)) return;
  await knex.schema.createTable(TABLA, (t) => {
    // SHA-256 of the sealed XML as received, and of its Sello: the same document re-serialized still matches.
    t.specificType('huella', 'CHAR(64)').notNullable().primary();
    t.specificType('huella_sello', 'CHAR(64)')
      .notNullable()
      .unique({ indexName: `uq_${TABLA}_sello` });
    t.specificType('uuid', 'CHAR(36)')
      .notNullable()
      .unique({ indexName: `uq_${TABLA}_uuid` });
    t.string('rfc_emisor', 13).notNullable();
    t.string('rfc_receptor', 13).notNullable();
    t.string('total', 40).notNullable();
    t.string('total_mxn', 60).notNullable();
    t.specificType('tipo_comprobante', 'CHAR(1)').notNullable();
    t.specificType('xml_timbrado', 'LONGTEXT').notNullable();
    t.specificType('fecha_timbrado', 'DATETIME(3)').notNullable();
    t.specificType('fecha_timbrado_local', 'CHAR(19)').notNullable();
    t.specificType('no_certificado_sat', 'CHAR(20)').notNullable();
    t.text('sello_sat').notNullable();
    t.string('estado', 20).notNullable().defaultTo('Vigente');
    t.string('es_cancelable', 40).notNullable();
    t.string('estatus_cancelacion', 40).notNullable().defaultTo('');
    t.specificType('cancelacion_solicitada_en', 'DATETIME(3)').nullable();
    t.specificType('motivo', 'CHAR(2)').nullable();
    t.specificType('folio_sustitucion', 'CHAR(36)').nullable();
    // UUIDs this CFDI relates to, comma-separated: searched with LIKE, never joined.
    t.text('relacionados').nullable();
    t.boolean('forzar_aceptacion').notNullable().defaultTo(false);
    t.integer('plazo_aceptacion_ms').nullable();
    // Binary collation: hashes, UUIDs and RFCs compare byte for byte, as the old table did.
    t.charset('utf8mb4');
    t.collate('utf8mb4_bin');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists(TABLA);
}
