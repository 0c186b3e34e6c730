import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { raizProyecto } from '../config/rutas';

/** CPU milliseconds per process group of the local stack, read from /proc (Linux). */
export type CpuPorGrupo = Record<string, number>;

// The production-grade server (TEMPORAL=servidor make up): scripts/temporal-servidor.sh's binary.
const TEMPORAL_SERVIDOR = /temporal-servidor-\S*\/server /;

const GRUPOS: [string, RegExp][] = [
  ['temporal', /temporal\S* server start-dev/],
  ['temporal', TEMPORAL_SERVIDOR],
  ['worker', /dist\/worker\/main\.js/],
  ['api', /dist\/api\/main\.js/],
  ['pac', /dist\/pac\/sandbox\/main\.js/],
  // make up's SMTP server: the emails' other end.
  ['mailpit', /(^|\/)mailpit --smtp /],
  ['mariadb', /mariadbd|mysqld/],
  ['postgresql', /^postgres/],
  ['chromium', /chrom/],
];

/** Shared servers of the machine: not started from this clone, counted all the same. */
const DEL_EQUIPO = new Set(['mariadb', 'postgresql']);

const raiz = raizProyecto();

// USER_HZ is 100 on Linux: utime and stime are in 10 ms ticks.
const MS_POR_TICK = 10;

const lineaDe = (pid: string) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');

function pids(): string[] {
  try {
    return readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return [];
  }
}

function grupoDe(pid: string): string | undefined {
  if (Number(pid) === process.pid) return 'bench';
  try {
    const linea = lineaDe(pid);
    const grupo = GRUPOS.find(([, patron]) => patron.test(linea))?.[0];
    // Another clone's stack (a test run's Temporal, workers) on the same machine is not this stack.
    if (grupo && !DEL_EQUIPO.has(grupo) && !readlinkSync(`/proc/${pid}/cwd`).startsWith(raiz))
      return undefined;
    // The PDF worker is the same program with WORKER_COLAS=pdf (make up starts it apart).
    if (
      grupo === 'worker' &&
      /(^|\0)WORKER_COLAS=pdf(\0|$)/.test(readFileSync(`/proc/${pid}/environ`, 'utf8'))
    )
      return 'worker-pdf';
    return grupo;
  } catch {
    return undefined;
  }
}

/** CPU used so far by every process of a known group, by pid. */
export function instantaneaCpu(): Map<string, { grupo: string; ms: number }> {
  const r = new Map<string, { grupo: string; ms: number }>();
  for (const pid of pids()) {
    const grupo = grupoDe(pid);
    if (!grupo) continue;
    try {
      // Fields after the command name (which may hold spaces): utime is the 14th field, stime the 15th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const campos = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      r.set(pid, { grupo, ms: (Number(campos[11]) + Number(campos[12])) * MS_POR_TICK });
    } catch {
      // The process ended meanwhile.
    }
  }
  return r;
}

/** CPU per group between two snapshots; processes born in between count from zero. */
export function cpuEntre(
  antes: ReturnType<typeof instantaneaCpu>,
  despues: ReturnType<typeof instantaneaCpu>,
): CpuPorGrupo {
  const r: CpuPorGrupo = {};
  for (const [pid, { grupo, ms }] of despues) {
    r[grupo] = (r[grupo] ?? 0) + ms - (antes.get(pid)?.ms ?? 0);
  }
  return r;
}

/** Which Temporal this stack runs: the dev server, the production-grade server (TEMPORAL=servidor), or neither. */
export function servidorTemporal(): 'dev' | 'servidor' | 'externo' {
  for (const pid of pids()) {
    if (grupoDe(pid) !== 'temporal') continue;
    try {
      return TEMPORAL_SERVIDOR.test(lineaDe(pid)) ? 'servidor' : 'dev';
    } catch {
      // The process ended meanwhile.
    }
  }
  return 'externo';
}
