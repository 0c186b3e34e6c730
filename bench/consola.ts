import { randomUUID } from 'node:crypto';
import { cargarConfigSinSecretos } from '../config/config';
import { borrarBase, crearKnex, partesUrl, recrearBase } from '../db/conexion';
import { nuevoId } from '../db/ids';
import { migrar } from '../db/migraciones';
import { crearRepositorioClientes } from '../db/repositorios/clientes';
import { crearRepositorioCobranza } from '../db/repositorios/cobranza';
import { crearRepositorioEntregas } from '../db/repositorios/entregas';
import { crearRepositorioFacturas } from '../db/repositorios/facturas';
import { crearRepositorioWebhooks } from '../db/repositorios/webhooks';
import type { Alcance } from '../dominio/alcance';
import { candidatosSerieFolio, sumarDias } from '../dominio/cobranza';
import { dtoFactura } from '../presentacion/factura';
import { dtoWebhook } from '../presentacion/webhook';
import { crearServicioClientes } from '../servicios/clientes';
import { crearServicioResumen } from '../servicios/resumen';

/*
 * The console's reads in an account with 10,000 stamped ingreso invoices over a year (a third PPD with two
 * instalments each, 2% cancelled), 2,000 of them to one client, and 10,000 webhook deliveries with their attempts
 * to 5 endpoints (one failing for the last two days), beside another account as large. Times, in the process
 * (services and repositories over MariaDB, no HTTP): the client's statement (JSON and CSV), the billing summary
 * (30 days by day, a year by month), the invoice search by UUID and by serie-folio, and a page of webhooks with
 * their health; prints each statement's plan. A database of its own (`<DATABASE_URL's>_bench_consola`), dropped at
 * the end. The last line: consola_p95_ms=<the worst p95>. Its seeding (`sembrar`) is also bench/consola-paginas.ts's,
 * which renders the console's pages from it: the clients' RFCs have an RFC's shape and the payment CFDIs complete
 * documents for that.
 */

export const FACTURAS = 10_000;
const DEL_CLIENTE = 2_000;
export const ENTREGAS = 10_000;
const VUELTAS = 100;
export const HOY = '2026-11-27';

export const percentil = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!;

async function enLotes<T>(db: ReturnType<typeof crearKnex>, tabla: string, filas: T[]) {
  for (let i = 0; i < filas.length; i += 500) await db(tabla).insert(filas.slice(i, i + 500));
}

/** One account's data (see above); also bench/consola-paginas.ts's. */
export async function sembrar(db: ReturnType<typeof crearKnex>, cuenta: string) {
  const ahora = new Date(`${HOY}T18:00:00Z`);
  const a = { cuentaId: cuenta, modo: 'test', llaveId: 'bench' } as Alcance;
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
  const clientes = Array.from({ length: 50 }, () => nuevoId('cli'));
  // RFCs of a legal person's shape, so the console's search box reads one as a client.
  const rfcs = clientes.map(
    (_, k) => `CLI${String(k).padStart(2, '0')}0101${cuenta.slice(-3).toUpperCase()}`,
  );
  await db('clientes').insert(
    clientes.map((id, k) => ({
      id,
      cuenta_id: cuenta,
      modo: 'test',
      organizacion_id: org,
      rfc: rfcs[k],
      rfc_unico: rfcs[k],
      nombre: `CLIENTE ${k}`,
      regimen_fiscal: '601',
      domicilio_fiscal: '42501',
      uso_cfdi: 'G03',
      creado_en: ahora,
      actualizado_en: ahora,
    })),
  );
  const facturas: {
    id: string;
    uuid: string;
    folio: string;
    fecha: string;
    ppd: boolean;
    cancelada: boolean;
    /** The document's receiver, as stamped (its payment CFDIs carry the same). */
    receptor: Record<string, string>;
  }[] = [];
  const filas = [];
  for (let k = 0; k < FACTURAS; k++) {
    const dia = sumarDias(HOY, -Math.floor((k * 365) / FACTURAS) - 1);
    const fecha = `${dia}T${String(8 + (k % 10)).padStart(2, '0')}:15:00`;
    const ppd = k % 3 === 0;
    const cancelada = k % 50 === 7;
    const c = k < DEL_CLIENTE ? 0 : 1 + (k % 49);
    const cliente = clientes[c]!;
    const receptor = {
      id: cliente,
      rfc: rfcs[c]!,
      nombre: `CLIENTE ${c}`,
      regimen_fiscal: '601',
      domicilio_fiscal: '42501',
      uso_cfdi: 'G03',
    };
    const f = {
      id: nuevoId('fac'),
      uuid: randomUUID().toUpperCase(),
      folio: String(1000 + k),
      fecha,
      ppd,
      cancelada,
      receptor,
    };
    facturas.push(f);
    const documento = {
      huso_horario: 'Tiempo del Centro',
      entrada: {
        tipo: 'I',
        serie: k % 2 ? 'A' : 'B',
        folio: f.folio,
        fecha,
        moneda: 'MXN',
        decimales_moneda: 2,
        metodo_pago: ppd ? 'PPD' : 'PUE',
        forma_pago: ppd ? '99' : '03',
        lugar_expedicion: '42501',
        exportacion: '01',
        conceptos: [
          { cantidad: '1', descripcion: 'Servicio de consultoría fiscal mensual', valor_unitario: '1000.00' },
        ],
      },
      productos: [null],
      importes: { subtotal: '1000.00', total: '1160.00', conceptos: [], traslados: [], retenciones: [] },
      cliente: receptor,
    };
    filas.push({
      id: f.id,
      cuenta_id: cuenta,
      modo: 'test',
      organizacion_id: org,
      cliente_id: cliente,
      tipo: 'ingreso',
      estado: cancelada ? 'cancelada' : 'timbrada',
      documento: JSON.stringify(documento),
      total: '1160.00',
      metodo_pago: ppd ? 'PPD' : 'PUE',
      uuid: f.uuid,
      fecha_timbrado: `${dia}T${String(8 + (k % 10)).padStart(2, '0')}:15:05`,
      timbrado_estado: 'timbrada',
    });
  }
  await enLotes(db, 'facturas', filas);
  // Two instalments of each vigente PPD invoice, 10 and 40 days after it, each with its payment CFDI.
  const pagos = [];
  const libro = [];
  const cfdis = [];
  for (const f of facturas.filter((x) => x.ppd && !x.cancelada)) {
    for (const [n, dias, pagado, insoluto] of [
      [1, 10, '500.00', '660.00'],
      [2, 40, '300.00', '360.00'],
    ] as const) {
      const fecha = `${sumarDias(f.fecha, dias)}T12:00:00`;
      if (fecha.slice(0, 10) > HOY) continue;
      const id = nuevoId('pago');
      const cfdi = nuevoId('fac');
      cfdis.push({
        id: cfdi,
        cuenta_id: cuenta,
        modo: 'test',
        organizacion_id: org,
        cliente_id: f.receptor.id,
        tipo: 'pago',
        estado: 'timbrada',
        // What the console's invoice list reads of a payment CFDI (presentacion/factura.ts).
        documento: JSON.stringify({
          huso_horario: 'Tiempo del Centro',
          entrada: {
            tipo: 'P',
            serie: 'P',
            folio: id.slice(-6),
            fecha,
            moneda: 'XXX',
            decimales_moneda: 0,
            lugar_expedicion: '42501',
            exportacion: '01',
          },
          productos: [null],
          importes: { subtotal: '0', total: '0', conceptos: [], traslados: [], retenciones: [] },
          cliente: { ...f.receptor, uso_cfdi: 'CP01' },
          pago: { id },
        }),
        total: '0',
        uuid: randomUUID().toUpperCase(),
        fecha_timbrado: fecha,
        timbrado_estado: 'timbrada',
      });
      pagos.push({
        id,
        cuenta_id: cuenta,
        modo: 'test',
        organizacion_id: org,
        estado: 'registrado',
        solicitud: JSON.stringify({ serie: 'P', fecha_pago: fecha, moneda: 'MXN', facturas_pagadas: [] }),
        factura_pago_id: cfdi,
      });
      libro.push({
        pago_id: id,
        factura_id: f.id,
        cuenta_id: cuenta,
        modo: 'test',
        num_parcialidad: n,
        uuid: f.uuid,
        moneda: 'MXN',
        decimales: 2,
        imp_saldo_anterior: n === 1 ? '1160.00' : '660.00',
        imp_pagado: pagado,
        imp_saldo_insoluto: insoluto,
        objeto_imp: '02',
      });
    }
  }
  await enLotes(db, 'facturas', cfdis);
  await enLotes(db, 'pagos', pagos);
  await enLotes(db, 'pagos_facturas', libro);

  // Webhooks: 10,000 deliveries over the year; the first endpoint has failed every attempt for two days.
  const webhooks = Array.from({ length: 5 }, () => nuevoId('wh'));
  await db('webhooks').insert(
    webhooks.map((id) => ({
      id,
      cuenta_id: cuenta,
      modo: 'test',
      url: `https://hooks.ejemplo.mx/${id}`,
      eventos_suscritos: JSON.stringify(['factura.timbrada']),
      secreto_cifrado: Buffer.alloc(40),
      dek_cifrada: Buffer.alloc(60),
      version_clave: 1,
      creado_en: new Date(ahora.getTime() - 400 * 86_400_000),
      actualizado_en: ahora,
    })),
  );
  const eventos = [];
  const entregas = [];
  const intentos = [];
  for (let k = 0; k < ENTREGAS; k++) {
    const evento = nuevoId('evt');
    const w = webhooks[k % webhooks.length]!;
    const en = new Date(ahora.getTime() - Math.floor(((ENTREGAS - k) * 365 * 86_400_000) / ENTREGAS));
    const caido = k % webhooks.length === 0 && ahora.getTime() - en.getTime() < 2 * 86_400_000;
    // Every tenth needed a retry; the failing endpoint's recent ones fail both attempts.
    const dos = caido || k % 10 === 0;
    const segundo = new Date(en.getTime() + 300_000);
    eventos.push({
      id: evento,
      cuenta_id: cuenta,
      modo: 'test',
      tipo: 'factura.timbrada',
      datos: '{}',
      creado_en: en,
    });
    const id = nuevoId('ent');
    entregas.push({
      id,
      cuenta_id: cuenta,
      modo: 'test',
      evento_id: evento,
      webhook_id: w,
      numero: 0,
      estado: caido ? 'pendiente' : 'entregada',
      intentos: dos ? 2 : 1,
      creado_en: en,
      actualizado_en: dos ? segundo : en,
    });
    const intento = (numero: number, iniciado: Date, status: number) => ({
      entrega_id: id,
      numero,
      iniciado_en: iniciado,
      status_http: status,
      latencia_ms: 80,
      error: null,
      respuesta: status === 200 ? 'ok' : 'error',
    });
    intentos.push(intento(1, en, dos ? 503 : 200));
    if (dos) intentos.push(intento(2, segundo, caido ? 503 : 200));
  }
  await enLotes(db, 'eventos', eventos);
  await enLotes(db, 'entregas', entregas);
  await enLotes(db, 'entregas_intentos', intentos);
  return { a, org, cliente: clientes[0]!, rfcCliente: rfcs[0]!, facturas, pagos: pagos.length, ahora };
}

async function main() {
  const base = cargarConfigSinSecretos().databaseUrl;
  const { servidor, base: nombre } = partesUrl(base);
  const url = `${servidor}${nombre}_bench_consola`;
  await recrearBase(url);
  const db = crearKnex(url);
  try {
    await migrar(db);
    const t0 = Date.now();
    const s = await sembrar(db, nuevoId('cta'));
    await sembrar(db, nuevoId('cta'));
    await db.raw('ANALYZE TABLE facturas, pagos, pagos_facturas, entregas, entregas_intentos, clientes');
    process.stdout.write(
      `sembrado: 2 cuentas × ${FACTURAS} facturas (${s.pagos} pagos), ${ENTREGAS} entregas, en ${Date.now() - t0} ms\n`,
    );
    const { a } = s;
    const cobranza = crearRepositorioCobranza(db);
    const facturas = crearRepositorioFacturas(db);
    const webhooks = crearRepositorioWebhooks(db);
    const entregas = crearRepositorioEntregas(db);
    const clientes = crearServicioClientes({
      clientes: crearRepositorioClientes(db),
      cobranza,
      // The statement reads only the currency's decimals; organizations resolve filters.
      organizaciones: {} as never,
      catalogos: { moneda: () => ({ clave: 'MXN', descripcion: 'Peso Mexicano', decimales: 2 }) } as never,
    });
    const resumen = crearServicioResumen({
      cobranza,
      organizaciones: { idDeFiltro: async () => undefined },
      catalogos: { moneda: () => ({ clave: 'MXN', descripcion: 'Peso Mexicano', decimales: 2 }) },
      ahora: () => s.ahora,
    });
    const muestra = s.facturas[4321]!;
    const casos: [string, () => Promise<unknown>][] = [
      ['estado de cuenta, 2000 facturas (JSON)', () => clientes.estadoDeCuenta(a, s.cliente, { fecha: HOY })],
      [
        'estado de cuenta, 2000 facturas (CSV)',
        () => clientes.estadoDeCuentaCsv(a, s.cliente, { fecha: HOY }),
      ],
      ['  su consulta de facturas', () => cobranza.facturasDeCliente(a, s.cliente)],
      ['  su consulta de pagos', () => cobranza.pagosDeCliente(a, s.cliente)],
      ['resumen, 30 días por día', () => resumen.facturacion(a, {})],
      [
        'resumen, un año por mes',
        () => resumen.facturacion(a, { desde: sumarDias(HOY, -364), hasta: HOY, agrupacion: 'mes' }),
      ],
      [
        'facturas?uuid=',
        async () => (await facturas.listar(a, { uuid: muestra.uuid }, { limite: 20 })).datos.map(dtoFactura),
      ],
      [
        'facturas?folio=A-<folio>',
        async () =>
          (
            await facturas.listar(
              a,
              { serieFolio: candidatosSerieFolio(`A-${muestra.folio}`) },
              { limite: 20 },
            )
          ).datos.map(dtoFactura),
      ],
      [
        'webhooks, página con salud',
        async () => {
          const t = await webhooks.listar(a, { limite: 20 });
          const salud = await entregas.salud(
            a,
            t.datos.map((w) => w.id),
            s.ahora,
          );
          return t.datos.map((w) => dtoWebhook(w, s.ahora, salud.get(w.id)));
        },
      ],
    ];

    // Each case's statements, explained: the index each uses and the rows it reads.
    for (const [nombreCaso, f] of casos) {
      const sentencias: { sql: string; bindings: unknown[] }[] = [];
      const oir = (q: { sql: string; bindings: unknown[] }) => void sentencias.push(q);
      db.on('query', oir);
      await f();
      db.off('query', oir);
      process.stdout.write(`${nombreCaso}:\n`);
      for (const q of sentencias.filter((x) => /^select/i.test(x.sql))) {
        const [plan] = (await db.raw(`EXPLAIN ${q.sql}`, q.bindings)) as [Record<string, unknown>[]];
        for (const t of plan)
          process.stdout.write(
            `  ${String(t.table).padEnd(12)} ${String(t.type).padEnd(6)} key=${String(t.key)} rows=${String(t.rows)} ${String(t.Extra ?? '')}\n`,
          );
      }
    }

    let peor = 0;
    for (const [nombreCaso, f] of casos) {
      for (let i = 0; i < 10; i++) await f();
      const ms: number[] = [];
      for (let i = 0; i < VUELTAS; i++) {
        const t = performance.now();
        await f();
        ms.push(performance.now() - t);
      }
      const p50 = percentil(ms, 0.5);
      const p95 = percentil(ms, 0.95);
      peor = Math.max(peor, p95);
      process.stdout.write(`${nombreCaso.padEnd(42)} p50 ${p50.toFixed(2)} ms  p95 ${p95.toFixed(2)} ms\n`);
    }
    const e = await clientes.estadoDeCuenta(a, s.cliente, { fecha: HOY });
    process.stdout.write(
      `estado de cuenta: ${e.facturas.length} facturas, ${e.pagos.length} pagos, saldo ${e.totales[0]?.saldo}\n`,
    );
    process.stdout.write(`consola_p95_ms=${peor.toFixed(2)}\n`);
  } finally {
    await db.destroy();
    await borrarBase(url);
  }
}

if (require.main === module)
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
