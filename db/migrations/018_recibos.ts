import type { Knex } from 'knex';

/**
 * Receipts of sales to the public: what a buyer may turn into an invoice on the self-invoicing portal, or what
 * the period's global invoice covers. The buyer's key is stored twice: its SHA-256, the portal's lookup (unique
 * across accounts: the portal has no API key), and sealed by the vault, so the API can show it again to the
 * receipt's own account. Each organization says how long its receipts may be invoiced.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizaciones', (t) => {
    t.smallint('autofactura_plazo_dias').notNullable().defaultTo(30);
  });
  await knex.schema.createTable('recibos', (t) => {
    t.string('id', 40).primary();
    t.string('cuenta_id', 40).notNullable().references('cuentas.id');
    t.enum('modo', ['test', 'live']).notNullable();
    t.string('organizacion_id', 40).notNullable().references('organizaciones.id');
    t.enum('estado', ['abierto', 'facturado', 'en_factura_global', 'cancelado']).notNullable();
    // The sale's local time at the place of issue (`YYYY-MM-DDThh:mm:ss`): text orders like time, and the
    // global invoice picks a period's receipts by it.
    t.string('fecha', 19).notNullable();
    t.string('folio', 40).nullable();
    t.string('sucursal', 100).nullable();
    // The concepts as requested and as computed (the invoice's machinery), currency and payment form.
    t.json('documento').notNullable();
    t.specificType('clave_hash', 'CHAR(64)').notNullable().unique();
    t.specificType('clave_cifrada', 'BLOB').notNullable();
    t.specificType('dek_cifrada', 'BLOB').notNullable();
    t.integer('version_clave').notNullable();
    t.timestamp('vence_en', { precision: 3 }).notNullable();
    t.string('factura_id', 40).nullable().references('facturas.id');
    t.string('factura_global_id', 40).nullable().references('facturas.id');
    t.timestamp('cancelado_en', { precision: 3 }).nullable();
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.timestamp('actualizado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    // NULLs never collide: only folios given are unique within their organization.
    t.unique(['organizacion_id', 'folio']);
    t.index(['cuenta_id', 'modo', 'id']);
    t.index(['cuenta_id', 'modo', 'organizacion_id', 'id']);
    t.index(['cuenta_id', 'modo', 'estado', 'id']);
    // The global invoice: an organization's open receipts of a period.
    t.index(['organizacion_id', 'estado', 'fecha']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('recibos');
  await knex.schema.alterTable('organizaciones', (t) => {
    t.dropColumn('autofactura_plazo_dias');
  });
}
