import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registrarAtributos } from '../../temporal/registrar-atributos';
import { argumentosServidorDev, esperarTemporal, rutaTemporalCli } from '../../temporal/servidor-dev';
import { puertosLibres } from './puertos';

/**
 * A Temporal dev server of one test file's own, on a SQLite file and free ports, so a test can kill and
 * restart it (same file, same ports) without touching the suite's shared in-memory server.
 */
export interface TemporalPrivado {
  address: string;
  /** Milliseconds each start took until the frontend answered (the first one included). */
  arranquesMs: number[];
  /** SIGKILL: no graceful shutdown, as on a crash; resolves once the process is gone. */
  matar(): Promise<void>;
  /** Starts it again on the same file and ports; resolves once the frontend answers. */
  arrancar(): Promise<number>;
  /** Kills it and removes its directory. */
  detener(): Promise<void>;
}

export async function iniciarTemporalPrivado(): Promise<TemporalPrivado> {
  const cli = rutaTemporalCli();
  try {
    accessSync(cli, constants.X_OK);
  } catch {
    throw new Error(
      `Infraestructura de pruebas incompleta: no hay Temporal CLI en ${cli}. Ejecute \`make test\`, que la compila.`,
    );
  }
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
  });

  let hijo: ChildProcess | undefined;
  const arranquesMs: number[] = [];
  const alSalir = () => hijo?.kill('SIGKILL');
  process.once('exit', alSalir);

  const arrancar = async () => {
    const t0 = Date.now();
    hijo = spawn(cli, argumentos, { stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')] });
    try {
      await esperarTemporal(address, 60_000);
    } catch (e) {
      hijo.kill('SIGKILL');
      throw new Error(`${(e as Error).message}\n${readFileSync(log, 'utf8').slice(-3000)}`);
    }
    const ms = Date.now() - t0;
    arranquesMs.push(ms);
    return ms;
  };
  const matar = async () => {
    const h = hijo;
    if (!h || h.exitCode !== null || h.signalCode !== null) return;
    await new Promise<void>((r) => {
      h.once('exit', () => r());
      h.kill('SIGKILL');
    });
  };

  await arrancar();
  // The flags register them when the file is created; this covers attributes added to the project later.
  await registrarAtributos(address, 'default');
  return {
    address,
    arranquesMs,
    matar,
    arrancar,
    async detener() {
      await matar();
      process.removeListener('exit', alSalir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
