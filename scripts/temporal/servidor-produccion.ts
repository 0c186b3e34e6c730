import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { raizProyecto } from '../../config/rutas';
import { ATRIBUTOS } from '../../workflows/atributos';
import { registrarAtributos } from '../../temporal/registrar-atributos';

/**
 * The production-grade Temporal (go.temporal.io/server v1.29.1 with PostgreSQL persistence and SQL visibility),
 * configured exactly as the compose file's `temporalio/server:1.29.1` image configures itself: the release's own
 * `config/docker.yaml` template, filled from the same environment variables.
 */
export interface OpcionesServidorProduccion {
  /** Folder with the `server` and `sql` binaries (scripts/temporal-servidor.sh). */
  carpeta: string;
  /** The release's config folder (the one holding docker.yaml). */
  plantillas: string;
  ip: string;
  /** Frontend gRPC port; the other services take the next eight (all ≤ 32767). */
  puerto: number;
  base: string;
  baseVisibilidad: string;
  pg: { host: string; puerto: number; usuario: string; contrasena: string };
}

const script = () => join(raizProyecto(), 'scripts/temporal-servidor.sh');

/**
 * Builds the binaries if missing and brings both databases to the server's schema (idempotent); answers where
 * the binaries and the release's config template are (one rule for each, in scripts/temporal-servidor.sh).
 */
export function prepararServidorProduccion(
  o: Pick<OpcionesServidorProduccion, 'base' | 'baseVisibilidad' | 'pg'>,
): Pick<OpcionesServidorProduccion, 'carpeta' | 'plantillas'> {
  execFileSync('bash', [script(), 'esquema', o.base, o.baseVisibilidad], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      TEMPORAL_PG_HOST: o.pg.host,
      TEMPORAL_PG_PORT: String(o.pg.puerto),
      TEMPORAL_PG_USUARIO: o.pg.usuario,
      TEMPORAL_PG_CONTRASENA: o.pg.contrasena,
    },
  });
  const salida = (opcion: string) => execFileSync('bash', [script(), opcion], { encoding: 'utf8' }).trim();
  return { carpeta: salida('--ruta'), plantillas: salida('--plantillas') };
}

/** The PostgreSQL settings from TEMPORAL_PG_* (the same names the script reads). */
export function pgDesdeEntorno(e: NodeJS.ProcessEnv = process.env): OpcionesServidorProduccion['pg'] {
  return {
    host: e.TEMPORAL_PG_HOST ?? '127.0.0.1',
    puerto: Number(e.TEMPORAL_PG_PORT ?? 5432),
    usuario: e.TEMPORAL_PG_USUARIO ?? 'temporal',
    contrasena: e.TEMPORAL_PG_CONTRASENA ?? 'temporal',
  };
}

/** Command and environment of the server process. */
export function procesoServidorProduccion(o: OpcionesServidorProduccion): {
  comando: string;
  argumentos: string[];
  entorno: Record<string, string>;
} {
  // The PostgreSQL schema keeps each service's membership port in a smallint.
  if (o.puerto + 8 > 32_767)
    throw new Error(
      `el puerto de Temporal ${o.puerto} es muy alto: sus servicios usan hasta +8 y deben quedar ≤ 32767`,
    );
  const p = (i: number) => String(o.puerto + i);
  return {
    comando: join(o.carpeta, 'server'),
    // No authorizer, as the compose file's frontend: reachable from this host only (BIND_ON_IP).
    argumentos: ['--root', o.plantillas, '--config', '.', '--env', 'docker', '--allow-no-auth', 'start'],
    entorno: {
      DB: 'postgres12',
      POSTGRES_SEEDS: o.pg.host,
      DB_PORT: String(o.pg.puerto),
      POSTGRES_PORT: String(o.pg.puerto),
      POSTGRES_USER: o.pg.usuario,
      POSTGRES_PWD: o.pg.contrasena,
      DBNAME: o.base,
      VISIBILITY_DBNAME: o.baseVisibilidad,
      BIND_ON_IP: o.ip,
      TEMPORAL_BROADCAST_ADDRESS: o.ip,
      FRONTEND_GRPC_PORT: p(0),
      FRONTEND_HTTP_PORT: p(1),
      FRONTEND_MEMBERSHIP_PORT: p(2),
      HISTORY_GRPC_PORT: p(3),
      HISTORY_MEMBERSHIP_PORT: p(4),
      MATCHING_GRPC_PORT: p(5),
      MATCHING_MEMBERSHIP_PORT: p(6),
      WORKER_GRPC_PORT: p(7),
      WORKER_MEMBERSHIP_PORT: p(8),
      LOG_LEVEL: 'warn',
      // The same dynamic config as the compose file's server.
      DYNAMIC_CONFIG_FILE_PATH: join(raizProyecto(), 'deploy/temporal/dynamicconfig/produccion.yaml'),
    },
  };
}

/**
 * What the compose file's one-shot does: the namespace (30 days of retention) and the project's search
 * attributes, then waits until the frontend accepts a query on every one of them (its caches refresh on their
 * own schedule; a workflow started before would be refused its attributes).
 */
export async function prepararNamespace(address: string, namespace: string, ms = 90_000): Promise<string[]> {
  const c = await Connection.connect({ address });
  const limite = Date.now() + ms;
  try {
    try {
      await c.workflowService.describeNamespace({ namespace });
    } catch {
      await c.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs('720 hours'),
      });
    }
    let nuevos: string[] | undefined;
    let ultimo: unknown;
    const consulta = Object.values(ATRIBUTOS)
      .map((k) => (k.type === 'INT' ? `${k.name} = 0` : `${k.name} = "x"`))
      .join(' OR ');
    while (Date.now() < limite) {
      try {
        nuevos ??= await registrarAtributos(address, namespace);
        await c.workflowService.countWorkflowExecutions({ namespace, query: consulta });
        return nuevos;
      } catch (e) {
        ultimo = e;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    throw new Error(`el namespace ${namespace} no quedó listo en ${ms} ms: ${(ultimo as Error)?.message}`);
  } finally {
    await c.close();
  }
}
