import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { esperarTemporal } from '../../scripts/temporal/servidor-dev';
import {
  pgDesdeEntorno,
  prepararNamespace,
  prepararServidorProduccion,
  procesoServidorProduccion,
} from '../../scripts/temporal/servidor-produccion';
import { procesoReiniciable } from './proceso-reiniciable';
import { puertosConsecutivos } from './puertos';

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
  // The frontend's port and the next eight, below 32768: Temporal's PostgreSQL schema keeps membership ports
  // in a smallint.
  const puerto = await puertosConsecutivos(9, 32_768);
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
