import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cargarConfigSinSecretos } from '../config/config';
import { crearKnex, partesUrl } from '../db/conexion';

const MARIADBD = '/usr/sbin/mariadbd';

async function responde(servidor: string): Promise<string | null> {
  const db = crearKnex(servidor, { min: 0, max: 1 });
  try {
    const [filas] = await db.raw('SELECT VERSION() AS v');
    return String(filas[0].v);
  } catch {
    return null;
  } finally {
    await db.destroy();
  }
}

async function esperar(servidor: string, segundos: number): Promise<string | null> {
  for (let i = 0; i < segundos; i++) {
    const v = await responde(servidor);
    if (v) return v;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return null;
}

/** Waits for MySQL; a local MariaDB that is installed but stopped is started (as the machine image does). */
async function main() {
  const { servidor } = partesUrl(cargarConfigSinSecretos().databaseUrl);
  const host = new URL(servidor).hostname;
  let version = await esperar(servidor, 3);
  const local = ['127.0.0.1', 'localhost', '::1'].includes(host);
  if (!version && local && existsSync(MARIADBD) && process.getuid?.() === 0) {
    console.log('  MariaDB local detenida: iniciándola');
    execFileSync('start-stop-daemon', ['--start', '--oknodo', '--background', '--exec', MARIADBD], {
      stdio: 'inherit',
    });
    version = await esperar(servidor, 30);
  }
  if (!version) {
    console.error(`  no se pudo conectar a ${servidor.replace(/\/\/[^@]*@/, '//***@')}`);
    process.exit(1);
  }
  console.log(`  ✓ ${version} en ${host}`);
}

main();
