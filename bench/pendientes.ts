import { createHash } from 'node:crypto';
import { cargarConfigSinSecretos } from '../config/config';
import { borrarBase, crearKnex, partesUrl, recrearBase } from '../db/conexion';
import { nuevoId } from '../db/ids';
import { migrar } from '../db/migraciones';
import { crearRepositorioPendientes } from '../db/repositorios/pendientes';
import type { Alcance } from '../dominio/alcance';

/*
 * The pending view's read (`GET /v1/pendientes`, the repository under it) in an account with 10,000 stamped
 * invoices, 10,000 delivered webhook deliveries and 10,000 sent emails, a few operations of each kind pending, and
 * another account as large beside it. Times a page of 20 and of 100 (every kind, and one kind), and the backlog
 * gauge across accounts, and prints each kind's query plan (the index it uses, the rows it reads). A database of its
 * own (`<DATABASE_URL's>_bench_pendientes`), dropped at the end. The last line: pendientes_p95_ms=<value>.
 */

const FACTURAS = 10_000;
const VUELTAS = 200;

const percentil = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!;

async function sembrar(db: ReturnType<typeof crearKnex>, cuenta: string) {
  const ahora = new Date();
  await db('cuentas').insert({ id: cuenta, nombre: 'Bench', creado_en: ahora, actualizado_en: ahora });
  const org = nuevoId('org');
  await db('organizaciones').insert({
    id: org,
    cuenta_id: cuenta,
    modo: 'test',
    rfc: `B${cuenta.slice(-11).toUpperCase()}`,
    nombre: 'BENCH',
    regimen_fiscal: '601',
    codigo_postal: '42501',
    color_acento: '#123456',
    creado_en: ahora,
    actualizado_en: ahora,
  });
  const documento = JSON.stringify({
    huso_horario: 'Tiempo del Centro',
    entrada: {},
    importes: { total: '116.00' },
  });
  const fila = (id: string, estado: string, timbrado: string, cancelacion: unknown = null) => ({
    id,
    cuenta_id: cuenta,
    modo: 'test',
    organizacion_id: org,
    tipo: 'ingreso',
    estado,
    documento,
    total: '116.00',
    timbrado_estado: timbrado,
    timbrado_intentos: timbrado === 'pendiente' ? 3 : 1,
    cancelacion: cancelacion && JSON.stringify(cancelacion),
  });
  const facturas: string[] = [];
  for (let i = 0; i < FACTURAS; i += 1000) {
    const lote = Array.from({ length: Math.min(1000, FACTURAS - i) }, () => nuevoId('fac'));
    facturas.push(...lote);
    await db('facturas').insert(lote.map((id) => fila(id, 'timbrada', 'timbrada')));
  }
  await db('facturas').insert(
    Array.from({ length: 10 }, () => fila(nuevoId('fac'), 'borrador', 'pendiente')),
  );
  const solicitada = { estado: 'en_proceso', motivo: '02', solicitada_en: ahora.toISOString() };
  await db('facturas').insert(
    Array.from({ length: 5 }, () => fila(nuevoId('fac'), 'timbrada', 'timbrada', solicitada)),
  );
  const wh = nuevoId('wh');
  await db('webhooks').insert({
    id: wh,
    cuenta_id: cuenta,
    modo: 'test',
    url: 'https://hooks.ejemplo.mx/bench',
    eventos_suscritos: JSON.stringify(['factura.timbrada']),
    secreto_cifrado: Buffer.alloc(40),
    dek_cifrada: Buffer.alloc(60),
    version_clave: 1,
    creado_en: ahora,
    actualizado_en: ahora,
  });
  for (let i = 0; i < FACTURAS; i += 1000) {
    const lote = facturas.slice(i, i + 1000);
    const eventos = lote.map((f) => ({
      id: nuevoId('evt'),
      cuenta_id: cuenta,
      modo: 'test',
      tipo: 'factura.timbrada',
      datos: JSON.stringify({ id: f, organizacion: org }),
    }));
    await db('eventos').insert(eventos);
    await db('entregas').insert(
      eventos.map((e, k) => ({
        id: nuevoId('ent'),
        cuenta_id: cuenta,
        modo: 'test',
        evento_id: e.id,
        webhook_id: wh,
        numero: 0,
        // The last ten still retrying.
        estado: i + k >= FACTURAS - 10 ? 'pendiente' : 'entregada',
        intentos: 1,
      })),
    );
    await db('correos').insert(
      lote.map((f, k) => ({
        id: nuevoId('cor'),
        cuenta_id: cuenta,
        modo: 'test',
        factura_id: f,
        motivo: 'timbrado',
        destinatarios: JSON.stringify(['a@ejemplo.mx']),
        estado: i + k >= FACTURAS - 5 ? 'pendiente' : 'enviado',
        intentos: 1,
      })),
    );
  }
  // Payments (a few still registering) and receipts (invoiced directly, a few claimed from a global).
  const solicitud = JSON.stringify({ serie: 'P', facturas_pagadas: [] });
  await db('pagos').insert(
    Array.from({ length: 2000 }, (_, k) => ({
      id: nuevoId('pago'),
      cuenta_id: cuenta,
      modo: 'test',
      organizacion_id: org,
      estado: k >= 1997 ? 'registrando' : 'registrado',
      solicitud,
    })),
  );
  const global = facturas[0]!;
  await db('recibos').insert(
    Array.from({ length: 2000 }, (_, k) => ({
      id: nuevoId('rec'),
      cuenta_id: cuenta,
      modo: 'test',
      organizacion_id: org,
      estado: 'facturado',
      fecha: '2026-11-01T10:00:00',
      documento: '{}',
      clave_hash: createHash('sha256').update(`${cuenta}${k}`).digest('hex'),
      clave_cifrada: Buffer.alloc(16),
      dek_cifrada: Buffer.alloc(16),
      version_clave: 1,
      vence_en: ahora,
      factura_id: facturas[k + 1],
      factura_global_id: k >= 1997 ? global : null,
    })),
  );
  return { cuentaId: cuenta, modo: 'test', llaveId: 'bench' } as Alcance;
}

async function main() {
  const base = cargarConfigSinSecretos().databaseUrl;
  const { servidor, base: nombre } = partesUrl(base);
  const url = `${servidor}${nombre}_bench_pendientes`;
  await recrearBase(url);
  const db = crearKnex(url);
  try {
    await migrar(db);
    const t0 = Date.now();
    const a = await sembrar(db, nuevoId('cta'));
    await sembrar(db, nuevoId('cta'));
    await db.raw('ANALYZE TABLE facturas, entregas, correos, pagos, recibos, eventos');
    process.stdout.write(
      `sembrado: 2 cuentas × ${FACTURAS} facturas, entregas y correos, 2000 pagos y recibos, en ${Date.now() - t0} ms\n`,
    );

    const repo = crearRepositorioPendientes(db);
    // Each kind's statement as the repository sends it, explained.
    const sentencias: { sql: string; bindings: unknown[] }[] = [];
    const oir = (q: { sql: string; bindings: unknown[] }) => void sentencias.push(q);
    db.on('query', oir);
    const pagina = await repo.listar(a, {}, { limite: 20 });
    db.off('query', oir);
    process.stdout.write(`pendientes en la cuenta: ${pagina.datos.length} (hay_mas ${pagina.hayMas})\n`);
    for (const s of sentencias) {
      const [plan] = (await db.raw(`EXPLAIN ${s.sql}`, s.bindings)) as [Record<string, unknown>[]];
      const tabla = plan[0]!;
      process.stdout.write(
        `  ${String(tabla.table).padEnd(10)} key=${String(tabla.key)} rows=${String(tabla.rows)} ${String(tabla.Extra ?? '')}\n`,
      );
    }

    const medir = async (nombreCaso: string, f: () => Promise<unknown>) => {
      for (let i = 0; i < 20; i++) await f();
      const ms: number[] = [];
      for (let i = 0; i < VUELTAS; i++) {
        const t = performance.now();
        await f();
        ms.push(performance.now() - t);
      }
      const p50 = percentil(ms, 0.5);
      const p95 = percentil(ms, 0.95);
      process.stdout.write(`${nombreCaso.padEnd(34)} p50 ${p50.toFixed(2)} ms  p95 ${p95.toFixed(2)} ms\n`);
      return p95;
    };
    const p95 = await medir('listar, todos los tipos, 20', () => repo.listar(a, {}, { limite: 20 }));
    await medir('listar, todos los tipos, 100', () => repo.listar(a, {}, { limite: 100 }));
    await medir('listar, tipo entrega, 20', () => repo.listar(a, { tipo: 'entrega' }, { limite: 20 }));
    await medir('atrasos (métrica, todas las cuentas)', () => repo.atrasos());
    process.stdout.write(`pendientes_p95_ms=${p95.toFixed(2)}\n`);
  } finally {
    await db.destroy();
    await borrarBase(url);
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
