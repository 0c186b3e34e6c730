import { loadavg } from 'node:os';
import { crearKnex } from '../db/conexion';
import { cpuEntre, instantaneaCpu } from './cpu-procesos';
import {
  CLIENTES,
  carga,
  config,
  cpuPorOperacion,
  cuentaLista,
  exigirPilaSana,
  facturaNueva,
  pedir,
} from './pila-http';

/**
 * `npm run bench:pagos`, with `make up` running: POST /v1/pagos (ledger step under the invoices' locks, then
 * the payment CFDI stamped and its PDF rendered) from 16 concurrent clients, (a) every payment to ONE invoice
 * (serialized by its lock) and (b) each payment to a distinct invoice; and in the same run (c) POST
 * /v1/facturas as bench:timbrado does, for the ratio payments/invoices (b / c).
 * Last line: pagos_por_segundo=<n>, the distinct-invoices figure.
 */
const N = Number(process.env.BENCH_N ?? 200);

function contar(estados: Map<number, number>, status: number) {
  estados.set(status, (estados.get(status) ?? 0) + 1);
}

async function main() {
  const db = crearKnex(config.databaseUrl);
  await exigirPilaSana();
  const cargaAntes = loadavg()[0]!;
  const { llave: k, org } = await cuentaLista(db, 'Bench pagos');
  const hoy = () => new Date().toISOString();
  const ppd = (extra: Record<string, unknown> = {}) =>
    facturaNueva(org, { metodo_pago: 'PPD', forma_pago: undefined, ...extra });
  const pago = (factura: string, imp: string) => ({
    organizacion: org,
    fecha_pago: hoy(),
    forma_pago: '03',
    monto: imp,
    facturas_pagadas: [{ factura, imp_pagado: imp }],
  });
  const pagar = async (factura: string, imp: string, estados: Map<number, number>) => {
    const r = await pedir('POST', '/v1/pagos', k, pago(factura, imp));
    contar(estados, r.status);
    if (r.status >= 300) throw new Error(`POST /v1/pagos ${r.status}: ${JSON.stringify(r.body)}`);
  };

  // Warm-up: invoices and payments, both paths compiled and Chromium's pages open.
  const calentamiento: string[] = [];
  await carga(20, async () => {
    const r = await pedir('POST', '/v1/facturas', k, ppd());
    calentamiento.push(r.body.id as string);
  });
  await carga(20, async (i) => pagar(calentamiento[i]!, '10.00', new Map()));

  // (c) invoices, the bench:timbrado path (PPD, so (b) pays them afterwards).
  const facturas: string[] = [];
  const estadosFacturas = new Map<number, number>();
  let cpu0 = instantaneaCpu();
  const rFacturas = await carga(N, async () => {
    const r = await pedir('POST', '/v1/facturas', k, ppd());
    contar(estadosFacturas, r.status);
    if (r.status >= 300) throw new Error(`POST /v1/facturas ${r.status}: ${JSON.stringify(r.body)}`);
    facturas.push(r.body.id as string);
  });
  const cpuFacturas = cpuEntre(cpu0, instantaneaCpu());

  // (b) one payment to each of those invoices.
  const estadosDistintas = new Map<number, number>();
  cpu0 = instantaneaCpu();
  const rDistintas = await carga(N, (i) => pagar(facturas[i]!, '100.00', estadosDistintas));
  const cpuDistintas = cpuEntre(cpu0, instantaneaCpu());

  // (a) every payment to one invoice large enough for all of them.
  const grande = await pedir(
    'POST',
    '/v1/facturas',
    k,
    ppd({ conceptos: [{ ...facturaNueva(org).conceptos[0], valor_unitario: '1000000' }] }),
  );
  if (grande.status !== 201) throw new Error(`factura grande: ${grande.status}`);
  const estadosUna = new Map<number, number>();
  cpu0 = instantaneaCpu();
  const rUna = await carga(N, () => pagar(grande.body.id as string, '1.00', estadosUna));
  const cpuUna = cpuEntre(cpu0, instantaneaCpu());

  // The ledger of the one invoice must read 1..n (warm-up excluded: it paid other invoices).
  const filas = (await db('pagos_facturas')
    .where({ factura_id: grande.body.id, vigente: true })
    .orderBy('num_parcialidad')
    .select('num_parcialidad')) as { num_parcialidad: number }[];
  const sinHuecos = filas.every((f, i) => f.num_parcialidad === i + 1) && filas.length === N;
  await db.destroy();

  const f = (x: number) => x.toFixed(1);
  const linea = (nombre: string, r: typeof rUna, estados: Map<number, number>) =>
    `${nombre}: ${f(r.porSegundo)}/s  p50 ${f(r.p50)} ms  p99 ${f(r.p99)} ms  estados ${JSON.stringify(Object.fromEntries(estados))}`;
  console.log(`node ${process.version}, ${N} operaciones por carga, ${CLIENTES} clientes concurrentes`);
  console.log(
    `carga media de la máquina (1 min): ${cargaAntes.toFixed(1)} al empezar, ${loadavg()[0]!.toFixed(1)} al terminar`,
  );
  console.log(linea('(a) pagos a UNA factura (serializados por su bloqueo)', rUna, estadosUna));
  console.log(linea('(b) pagos a facturas distintas', rDistintas, estadosDistintas));
  console.log(
    linea('(c) facturas (POST /v1/facturas, el camino de bench:timbrado)', rFacturas, estadosFacturas),
  );
  console.log(`libro de la factura única: ${filas.length} parcialidades, 1..${N} sin huecos: ${sinHuecos}`);
  console.log(`CPU por pago, una factura: ${cpuPorOperacion(cpuUna, N)}`);
  console.log(`CPU por pago, facturas distintas: ${cpuPorOperacion(cpuDistintas, N)}`);
  console.log(`CPU por factura: ${cpuPorOperacion(cpuFacturas, N)}`);
  console.log(`razon_una_factura=${(rUna.porSegundo / rFacturas.porSegundo).toFixed(2)}`);
  console.log(
    `razon=${(rDistintas.porSegundo / rFacturas.porSegundo).toFixed(2)} (pagos a facturas distintas / facturas; objetivo ≥ 0.8)`,
  );
  console.log(`pagos_por_segundo=${f(rDistintas.porSegundo)}`);
}

main().catch((e) => {
  console.error(`bench:pagos: ${(e as Error).message}`);
  process.exit(1);
});
