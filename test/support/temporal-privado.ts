import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registrarAtributos } from '../../temporal/registrar-atributos';
import { argumentosServidorDev, esperarTemporal } from '../../scripts/temporal/servidor-dev';
import { procesoReiniciable, type ProcesoReiniciable } from './proceso-reiniciable';
import { puertosLibres } from './puertos';
import { exigirTemporalCli } from './servidor-temporal';

/**
 * A Temporal dev server of one test file's own, on a SQLite file and free ports, so a test can kill and
 * restart it (same file, same ports) without touching the suite's shared in-memory server.
 */
export interface TemporalPrivado extends ProcesoReiniciable {
  address: string;
}

export async function iniciarTemporalPrivado(): Promise<TemporalPrivado> {
  const cli = exigirTemporalCli();
  const dir = mkdtempSync(join(tmpdir(), 'cfdi-temporal-'));
  const log = join(dir, 'temporal.log');
  const [puerto, puertoHttp, puertoMetricas] = await puertosLibres(3);
  const address = `127.0.0.1:${puerto}`;
  const argumentos = argumentosServidorDev({
    ip: '127.0.0.1',
    puerto: puerto!,
    namespace: 'default',
    puertoUi: null,
    archivoDb: join(dir, 'temporal.db'),
    puertoHttp,
    puertoMetricas,
    retrasoTemporizadoresMs: 10,
  });

  const proceso = procesoReiniciable({
    lanzar: () => spawn(cli, argumentos, { stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')] }),
    async listo(hijo) {
      try {
        await esperarTemporal(address, 60_000);
      } catch (e) {
        hijo.kill('SIGKILL');
        throw new Error(`${(e as Error).message}\n${readFileSync(log, 'utf8').slice(-3000)}`);
      }
    },
    dir,
  });

  await proceso.arrancar();
  // The flags register them when the file is created; this covers attributes added to the project later.
  await registrarAtributos(address, 'default');
  return { address, ...proceso };
}
