import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { esperarTemporal } from '../../temporal/servidor-dev';
import {
  pgDesdeEntorno,
  prepararNamespace,
  prepararServidorProduccion,
  procesoServidorProduccion,
} from '../../temporal/servidor-produccion';
import { procesoReiniciable } from './proceso-reiniciable';

const libre = (puerto: number) =>
  new Promise<boolean>((r) => {
    const s = createServer();
    s.once('error', () => r(false));
    s.listen(puerto, '127.0.0.1', () => s.close(() => r(true)));
  });

/**
 * Nine consecutive free ports (the server's services take the frontend's port and the next eight), below 32768:
 * Temporal's PostgreSQL schema keeps the membership port in a smallint (and the OS hands out ephemeral ports above).
 */
async function puertosConsecutivos(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    const todos = await Promise.all(Array.from({ length: 9 }, (_, k) => libre(base + k)));
    if (todos.every(Boolean)) return base;
  }
  throw new Error('no hay nueve puertos consecutivos libres');
}

export interface TemporalProduccion {
  address: string;
  detener(): Promise<void>;
}

/**
 * The production-grade Temporal of `TEMPORAL=servidor make up` (and of the compose file), on two PostgreSQL
 * databases of this test's own, created by Temporal's SQL tool and dropped afterwards.
 */
export async function iniciarTemporalProduccion(): Promise<TemporalProduccion> {
  const pg = pgDesdeEntorno();
  const sufijo = randomBytes(4).toString('hex');
  const o = { base: `temporal_prueba_${sufijo}`, baseVisibilidad: `temporal_prueba_${sufijo}_vis`, pg };
  const dir = mkdtempSync(join(tmpdir(), 'cfdi-temporal-servidor-'));
  const log = join(dir, 'temporal.log');
  const puerto = await puertosConsecutivos();
  const address = `127.0.0.1:${puerto}`;
  const p = procesoServidorProduccion({ ...o, ...prepararServidorProduccion(o), ip: '127.0.0.1', puerto });
  const proceso = procesoReiniciable({
    lanzar: () =>
      spawn(p.comando, p.argumentos, {
        env: { ...process.env, ...p.entorno },
        stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')],
      }),
    async listo(hijo) {
      try {
        await esperarTemporal(address, 60_000);
        await prepararNamespace(address, 'default');
      } catch (e) {
        hijo.kill('SIGKILL');
        throw new Error(`${(e as Error).message}\n${readFileSync(log, 'utf8').slice(-3000)}`);
      }
    },
    dir,
  });
  const detener = async () => {
    await proceso.detener();
    // As the script creates the role: the administrator drops what the test created.
    for (const base of [o.base, o.baseVisibilidad])
      execFileSync('psql', [
        ...['-h', pg.host, '-p', String(pg.puerto), '-U', process.env.TEMPORAL_PG_ADMIN ?? 'postgres'],
        ...['-d', 'postgres', '-qc', `drop database if exists "${base}" with (force)`],
      ]);
  };
  try {
    await proceso.arrancar();
  } catch (e) {
    await detener();
    throw e;
  }
  return { address, detener };
}
