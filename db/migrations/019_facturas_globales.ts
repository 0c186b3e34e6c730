import type { Knex } from 'knex';

/**
 * Global invoices to PÚBLICO EN GENERAL: which invoice covers which period of an organization, and which one
 * replaced it when a receipt's buyer claimed a sale it held (cancelled with motivo 04, reissued without it). The
 * receipts point at the global that holds them (`recibos.factura_global_id`); `fuera_de_global_en` marks a
 * claimed receipt once the global that held it is replaced. Each organization may have its global invoice issued
 * by a Temporal Schedule after every period (`factura_global_automatica`), kept in step by the start reconciler
 * (`factura_global_sincronizada` false until its schedule matches the setting).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organizaciones', (t) => {
    t.boolean('factura_global_automatica').notNullable().defaultTo(false);
    t.specificType('factura_global_periodicidad', 'CHAR(2)').notNullable().defaultTo('04');
    t.boolean('factura_global_sincronizada').notNullable().defaultTo(true);
  });
  await knex.schema.createTable('facturas_globales', (t) => {
    t.string('factura_id', 40).primary().references('facturas.id');
    t.string('cuenta_id', 40).notNullable().references('cuentas.id');
    t.enum('modo', ['test', 'live']).notNullable();
    t.string('organizacion_id', 40).notNullable().references('organizaciones.id');
    t.specificType('periodicidad', 'CHAR(2)').notNullable();
    t.date('desde').notNullable();
    t.date('hasta').notNullable();
    t.enum('origen', ['solicitud', 'programacion', 'reexpedicion']).notNullable();
    t.string('reemplaza', 40).nullable().references('facturas.id');
    t.string('reemplazada_por', 40).nullable().references('facturas.id');
    t.timestamp('reemplazada_en', { precision: 3 }).nullable();
    t.timestamp('creado_en', { precision: 3 }).notNullable().defaultTo(knex.fn.now(3));
    t.index(['cuenta_id', 'modo', 'organizacion_id', 'desde']);
  });
  await knex.schema.alterTable('recibos', (t) => {
    t.timestamp('fuera_de_global_en', { precision: 3 }).nullable();
    // The start reconciler's look for claims whose global is not replaced yet.
    t.index(['estado', 'fuera_de_global_en', 'actualizado_en']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recibos', (t) => {
    t.dropIndex(['estado', 'fuera_de_global_en', 'actualizado_en']);
    t.dropColumn('fuera_de_global_en');
  });
  await knex.schema.dropTable('facturas_globales');
  await knex.schema.alterTable('organizaciones', (t) => {
    t.dropColumn('factura_global_sincronizada');
    t.dropColumn('factura_global_periodicidad');
    t.dropColumn('factura_global_automatica');
  });
}
