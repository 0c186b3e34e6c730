import type { Knex } from 'knex';

/**
 * The pending view (`GET /v1/pendientes`) and the backlog gauge of every kind. The view reads, per account and
 * mode, each kind's operations still going on, newest first: one index range per kind whatever the size of the
 * tables (an account with 10,000 stamped invoices reads only its pending ones). The gauge reads the same states
 * across accounts; stampings, cancellations, payments and emails already had an index leading with their state
 * (012, 017), deliveries and claims of receipts in a global did not.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `ALTER TABLE facturas
       ADD INDEX facturas_alcance_timbrado (cuenta_id, modo, timbrado_estado, id),
       ADD INDEX facturas_alcance_cancelacion (cuenta_id, modo, cancelacion_estado, id)`,
  );
  await knex.schema.alterTable('pagos', (t) => {
    t.index(['cuenta_id', 'modo', 'estado', 'id'], 'pagos_alcance_estado');
  });
  await knex.schema.alterTable('entregas', (t) => {
    // Also `GET /v1/entregas?estado=…`, account-wide.
    t.index(['cuenta_id', 'modo', 'estado', 'id'], 'entregas_alcance_estado');
    t.index(['estado', 'creado_en'], 'entregas_estado_creado');
  });
  await knex.schema.alterTable('recibos', (t) => {
    // A claim still in its global: facturado, still held (fuera_de_global_en null) by a global (not null).
    t.index(
      ['cuenta_id', 'modo', 'estado', 'fuera_de_global_en', 'factura_global_id'],
      'recibos_alcance_reclamo',
    );
    t.index(['estado', 'fuera_de_global_en', 'factura_global_id', 'actualizado_en'], 'recibos_reclamo');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('recibos', (t) => {
    t.dropIndex([], 'recibos_reclamo');
    t.dropIndex([], 'recibos_alcance_reclamo');
  });
  await knex.schema.alterTable('entregas', (t) => {
    t.dropIndex([], 'entregas_estado_creado');
    t.dropIndex([], 'entregas_alcance_estado');
  });
  await knex.schema.alterTable('pagos', (t) => {
    t.dropIndex([], 'pagos_alcance_estado');
  });
  await knex.raw(
    'ALTER TABLE facturas DROP INDEX facturas_alcance_cancelacion, DROP INDEX facturas_alcance_timbrado',
  );
}
