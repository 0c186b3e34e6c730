import type { Knex } from 'knex';

/**
 * What the start reconciler scans every minute: stampings and payments still waiting, and cancellations in
 * progress (a virtual column of the cancellation's JSON state, so the scan is an index range, not a table scan).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `ALTER TABLE facturas
       ADD COLUMN cancelacion_estado VARCHAR(20) AS (JSON_VALUE(cancelacion, '$.estado')) VIRTUAL,
       ADD INDEX facturas_timbrado_pendiente (timbrado_estado, actualizado_en),
       ADD INDEX facturas_cancelacion_pendiente (cancelacion_estado, actualizado_en)`,
  );
  await knex.schema.alterTable('pagos', (t) => {
    t.index(['estado', 'actualizado_en'], 'pagos_estado_pendiente');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('pagos', (t) => {
    t.dropIndex(['estado', 'actualizado_en'], 'pagos_estado_pendiente');
  });
  await knex.raw(
    `ALTER TABLE facturas
       DROP INDEX facturas_cancelacion_pendiente,
       DROP INDEX facturas_timbrado_pendiente,
       DROP COLUMN cancelacion_estado`,
  );
}
