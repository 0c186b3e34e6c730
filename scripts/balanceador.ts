import { existsSync } from 'node:fs';

/**
 * The HAProxy in front of the API replicas: one configuration for `make up` (replicas on fixed loopback ports),
 * the scale-out test (the same, on free ports) and the compose file (replicas found through Docker's DNS,
 * deploy/haproxy/haproxy.cfg, which test/unit/docker-compose.test.ts keeps equal to `configuracionBalanceador`).
 */

/** The API's liveness route: a replica whose process answers is in rotation; its dependencies are shared by all. */
export const RUTA_SALUD_REPLICA = '/salud/vivo';

export type ServidoresBalanceador =
  | { tipo: 'fijos'; servidores: { nombre: string; host: string; puerto: number }[] }
  | { tipo: 'dns'; servicio: string; puerto: number; maximo: number; resolvedor: string };

export interface OpcionesBalanceador {
  /** `host:port` the balancer listens on (the API's public address). */
  escucha: string;
  servidores: ServidoresBalanceador;
}

export function configuracionBalanceador(o: OpcionesBalanceador): string {
  const s = o.servidores;
  const servidores =
    s.tipo === 'fijos'
      ? s.servidores.map((x) => `  server ${x.nombre} ${x.host}:${x.puerto} check`)
      : [
          // One slot per possible replica, filled and emptied as Docker's DNS answers for the service.
          `  server-template ${s.servicio} 1-${s.maximo} ${s.servicio}:${s.puerto} check resolvers docker init-addr none`,
        ];
  const resolvedor =
    s.tipo === 'dns'
      ? [
          '',
          "# Docker's embedded DNS: one A record per running replica of the service.",
          'resolvers docker',
          `  nameserver dns ${s.resolvedor}`,
          '  hold valid 5s',
          '  accepted_payload_size 8192',
        ]
      : [];
  return [
    '# HAProxy in front of the API replicas, written by scripts/balanceador.ts (configuracionBalanceador); the',
    "# compose file's copy: node dist/scripts/balanceador.js --compose > deploy/haproxy/haproxy.cfg",
    'global',
    '  log stdout format raw local0 info',
    '  maxconn 4096',
    ...resolvedor,
    '',
    'defaults',
    '  mode http',
    '  log global',
    '  option httplog',
    // Only what went wrong (retries, 5xx, refused connections): the API logs every request itself.
    '  option dontlog-normal',
    '  timeout connect 2s',
    // Above the API's longest wait (PDF_ESPERA_MS, at most 120 s): a slow answer is the API's to give.
    '  timeout client 130s',
    '  timeout server 130s',
    '  timeout http-request 15s',
    '  timeout check 2s',
    // A request that could not reach a replica (killed, restarting) goes to another one: nothing was sent, so this
    // is safe for any method. A replica that died holding a request is retried only for GET and HEAD (below).
    '  retries 2',
    '  option redispatch 1',
    '  retry-on conn-failure empty-response',
    '',
    'frontend api',
    `  bind ${o.escucha}`,
    // The API counts failed authentications per client (PROXIES_CONFIABLES): the header is replaced, never
    // appended to, so a client cannot name another address.
    '  http-request set-header X-Forwarded-For %[src]',
    // A POST may have been committed by the replica that died: the client retries it with its Clave-Idempotencia.
    '  http-request disable-l7-retry if !METH_GET',
    '  default_backend replicas_api',
    '',
    'backend replicas_api',
    '  balance roundrobin',
    `  option httpchk GET ${RUTA_SALUD_REPLICA}`,
    '  http-check expect status 200',
    '  default-server inter 1s fall 2 rise 2',
    ...servidores,
    '',
  ].join('\n');
}

/** What the compose file's `balanceador` service reads (deploy/haproxy/haproxy.cfg). */
export const configuracionCompose = () =>
  configuracionBalanceador({
    escucha: '0.0.0.0:3000',
    servidores: { tipo: 'dns', servicio: 'api', puerto: 3000, maximo: 16, resolvedor: '127.0.0.11:53' },
  });

/** The HAProxy binary: on the PATH, or where Debian's package puts it (/usr/sbin, off some users' PATH). */
export function rutaHaproxy(): string {
  return existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy';
}

// `node dist/scripts/balanceador.js --compose > deploy/haproxy/haproxy.cfg` regenerates the compose file's copy.
if (require.main === module) {
  if (process.argv[2] !== '--compose') {
    process.stderr.write('uso: node dist/scripts/balanceador.js --compose > deploy/haproxy/haproxy.cfg\n');
    process.exit(2);
  }
  process.stdout.write(configuracionCompose());
}
