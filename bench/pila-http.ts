import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cargarConfigSinSecretos } from '../config/config';
import { directorioSat } from '../config/rutas';
import type { Knex } from '../db/conexion';
import { crearCuentaConLlave } from '../db/repositorios/cuentas';
import type { CpuPorGrupo } from './cpu-procesos';

/**
 * What the benchmarks against a running stack (`make up`) share: the API's address, requests with an API
 * key, the concurrent load and its latency percentiles, an account ready to invoice, CPU per operation.
 */
export const CLIENTES = 16;
export const config = cargarConfigSinSecretos();
export const api = `http://127.0.0.1:${config.api.port}`;
const CSD = join(directorioSat(), 'csd', 'valid-csd', 'EKU9003173C9_CSD_30001000000500003416');
export const cer = readFileSync(`${CSD}.cer`);
export const key = readFileSync(`${CSD}.key`);

export const receptor = {
  rfc: 'MASO451221PM4',
  nombre: 'MARIA OLIVIA MARTINEZ SAGAZ',
  regimen_fiscal: '612',
  domicilio_fiscal: '80290',
  uso_cfdi: 'G03',
};

export const concepto = {
  cantidad: '1',
  clave_prod_serv: '80111600',
  clave_unidad: 'E48',
  descripcion: 'Servicio de consultoría',
  valor_unitario: '1000',
  objeto_imp: '02',
  impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa' as const, tasa_o_cuota: '0.160000' }] },
};

export async function pedir(metodo: string, ruta: string, llave: string, cuerpo?: unknown) {
  const r = await fetch(`${api}${ruta}`, {
    method: metodo,
    headers: {
      authorization: `Basic ${Buffer.from(`${llave}:`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: cuerpo === undefined ? undefined : JSON.stringify(cuerpo),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

export const percentil = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!;

/** `n` operations from `clientes` concurrent clients: throughput and latency percentiles. */
export async function carga(n: number, paso: (i: number) => Promise<void>, clientes = CLIENTES) {
  const tiempos: number[] = [];
  let siguiente = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clientes }, async () => {
      while (siguiente < n) {
        const i = siguiente++;
        const t = performance.now();
        await paso(i);
        tiempos.push(performance.now() - t);
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  return { porSegundo: n / s, p50: percentil(tiempos, 0.5), p99: percentil(tiempos, 0.99) };
}

/** `grupo ms` per operation, biggest first, and the total. */
export function cpuPorOperacion(cpu: CpuPorGrupo, n: number): string {
  const filas = Object.entries(cpu).sort((a, b) => b[1] - a[1]);
  const total = filas.reduce((t, [, ms]) => t + ms, 0);
  return [...filas, ['total', total] as const].map(([g, ms]) => `${g} ${(ms / n).toFixed(1)} ms`).join(', ');
}

/** Fails unless GET /salud answers 200. */
export async function exigirPilaSana(): Promise<void> {
  const salud = await fetch(`${api}/salud`).catch(() => undefined);
  if (salud?.status !== 200) throw new Error(`la pila no está sana en ${api}: ejecute make up primero`);
}

/**
 * A new account with an organization, its test CSD and the receiver as a client: ready to invoice. `cliente`
 * adds fields to that client (its `correo`, so its invoices are emailed).
 */
export async function cuentaLista(
  db: Knex,
  nombre: string,
  cliente: Record<string, unknown> = {},
): Promise<{ llave: string; org: string }> {
  const { llave } = await crearCuentaConLlave(db, nombre);
  const k = llave.secreto;
  const org = await pedir('POST', '/v1/organizaciones', k, {
    rfc: 'EKU9003173C9',
    nombre: 'ESCUELA KEMPER URGATE',
    regimen_fiscal: '601',
    codigo_postal: '42501',
  });
  await pedir('POST', '/v1/certificados', k, {
    organizacion: org.body.id,
    cer: cer.toString('base64'),
    llave: key.toString('base64'),
    contrasena: '12345678a',
  });
  const c = await pedir('POST', '/v1/clientes', k, { ...receptor, ...cliente, organizacion: org.body.id });
  if (c.status !== 201) throw new Error(`POST /v1/clientes ${c.status}: ${JSON.stringify(c.body)}`);
  return { llave: k, org: org.body.id as string };
}

/** The request bench:timbrado measures: one concept, auto-stamping. */
export const facturaNueva = (org: string, extra: Record<string, unknown> = {}) => ({
  organizacion: org,
  tipo: 'ingreso',
  cliente: receptor.rfc,
  forma_pago: '03',
  conceptos: [concepto],
  ...extra,
});
