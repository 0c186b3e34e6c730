import type { Knex } from 'knex';

/**
 * Who wrote each event and for which request, and the invoices and payments each event is about (indexed, so
 * `GET /v1/eventos?factura=…` reads one index range). `eventos` stays immutable: its triggers refuse UPDATE and
 * DELETE, not ALTER, so older events keep null in the new columns (nobody recorded who wrote them).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('eventos', (t) => {
    // `llave_…` (a request wrote it) or `sistema` (the worker).
    t.string('actor', 40).nullable();
    // X-Request-Id is kept from the client when sane: up to 64 characters.
    t.string('solicitud_id', 64).nullable();
    t.string('solicitud_llave_id', 40).nullable();
  });

  await knex.schema.createTable('eventos_recursos', (t) => {
    t.string('cuenta_id', 40).notNullable();
    t.enum('modo', ['test', 'live']).notNullable();
    t.string('recurso_id', 40).notNullable();
    t.string('evento_id', 40).notNullable().references('eventos.id');
    // Scope first, like every index: the events of one resource, in id order (the lists' keyset).
    t.primary(['cuenta_id', 'modo', 'recurso_id', 'evento_id']);
    t.index(['evento_id']);
  });

  await rellenar(knex);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('eventos_recursos');
  await knex.schema.alterTable('eventos', (t) => {
    t.dropColumn('actor');
    t.dropColumn('solicitud_id');
    t.dropColumn('solicitud_llave_id');
  });
}

const texto = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The relation of the events written before it, read from their data as the repository does at every write
 * (a copy, not an import: a migration must keep doing what it did when the code changes).
 */
async function rellenar(knex: Knex): Promise<void> {
  const LOTE = 500;
  let despuesDe = '';
  for (;;) {
    const filas = (await knex('eventos')
      .select('id', 'cuenta_id', 'modo', 'tipo', 'datos')
      .where('id', '>', despuesDe)
      .orderBy('id')
      .limit(LOTE)) as { id: string; cuenta_id: string; modo: string; tipo: string; datos: unknown }[];
    if (!filas.length) break;
    const relaciones = filas.flatMap((f) => {
      const d = (typeof f.datos === 'string' ? JSON.parse(f.datos) : f.datos) as Record<string, unknown>;
      const ids = [texto(d.id)];
      if (f.tipo.startsWith('factura.')) ids.push(texto(d.pago));
      if (f.tipo.startsWith('pago.')) {
        ids.push(texto(d.factura_pago));
        const pagadas = Array.isArray(d.facturas_pagadas) ? (d.facturas_pagadas as unknown[]) : [];
        for (const p of pagadas) ids.push(texto((p as { factura?: unknown } | null)?.factura));
      }
      return [...new Set(ids.filter((x) => x !== undefined))].map((recurso_id) => ({
        cuenta_id: f.cuenta_id,
        modo: f.modo,
        recurso_id,
        evento_id: f.id,
      }));
    });
    if (relaciones.length) await knex('eventos_recursos').insert(relaciones).onConflict().ignore();
    despuesDe = filas[filas.length - 1]!.id;
  }
  // A payment CFDI's events are also about the invoices its payment paid, which only the ledger names.
  await knex.raw(`
    INSERT IGNORE INTO eventos_recursos (cuenta_id, modo, recurso_id, evento_id)
    SELECT r.cuenta_id, r.modo, pf.factura_id, r.evento_id
    FROM eventos_recursos r
    JOIN eventos e ON e.id = r.evento_id AND e.tipo LIKE 'factura.%'
    JOIN pagos_facturas pf ON pf.pago_id = r.recurso_id AND pf.cuenta_id = r.cuenta_id AND pf.modo = r.modo`);
}
