import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { raizProyecto } from '../config/rutas';

/** CPU milliseconds per process group of the local stack, read from /proc (Linux). */
export type CpuPorGrupo = Record<string, number>;

const GRUPOS: [string, RegExp][] = [
  ['temporal', /temporal\S* server start-dev/],
  ['worker', /dist\/worker\/main\.js/],
  ['api', /dist\/api\/main\.js/],
  ['pac', /dist\/pac\/sandbox\/main\.js/],
  ['mariadb', /mariadbd|mysqld/],
  ['chromium', /chrom/],
];

const raiz = raizProyecto();

// USER_HZ is 100 on Linux: utime and stime are in 10 ms ticks.
const MS_POR_TICK = 10;

function grupoDe(pid: string): string | undefined {
  if (Number(pid) === process.pid) return 'bench';
  try {
    const linea = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    const grupo = GRUPOS.find(([, patron]) => patron.test(linea))?.[0];
    // Another clone's stack (a test run's Temporal, workers) on the same machine is not this stack.
    if (grupo && grupo !== 'mariadb' && !readlinkSync(`/proc/${pid}/cwd`).startsWith(raiz)) return undefined;
    return grupo;
  } catch {
    return undefined;
  }
}

/** CPU used so far by every process of a known group, by pid. */
export function instantaneaCpu(): Map<string, { grupo: string; ms: number }> {
  const r = new Map<string, { grupo: string; ms: number }>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return r;
  }
  for (const pid of pids) {
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
