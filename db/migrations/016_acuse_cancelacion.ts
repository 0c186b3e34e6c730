import type { Knex } from 'knex';

/**
 * The SAT's acknowledgement of an invoice's cancellation (the PAC's `Acuse`), kept verbatim as the issuer's
 * evidence, and its `Fecha` as the PAC wrote it (the SAT's local time, no zone). Written with the cancellation's
 * state (activities/cancelacion.ts); served by `GET /v1/facturas/{id}/acuse` and the audit package.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('facturas', (t) => {
    t.specificType('acuse_cancelacion', 'LONGTEXT').nullable();
    t.string('acuse_cancelacion_fecha', 40).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('facturas', (t) => {
    t.dropColumn('acuse_cancelacion_fecha');
    t.dropColumn('acuse_cancelacion');
  });
}
