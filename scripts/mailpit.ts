import { execFileSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { raizProyecto } from '../config/rutas';

/**
 * Mailpit v1.33.1: the SMTP server `make up` and the tests send the invoices' emails to. It keeps every message
 * (SQLite) and shows them in a web UI and a REST API. Production sends through its own SMTP server (SMTP_URL).
 */

/** Where Mailpit lives: $MAILPIT_BIN, else what scripts/mailpit.sh says (one rule, in the script). */
export function rutaMailpit(): string {
  if (process.env.MAILPIT_BIN) return process.env.MAILPIT_BIN;
  return execFileSync('bash', [join(raizProyecto(), 'scripts/mailpit.sh'), '--ruta'], {
    encoding: 'utf8',
  }).trim();
}

export interface OpcionesMailpit {
  /** `IP:puerto` of the SMTP server. */
  smtp: string;
  /** `IP:puerto` of the web UI and the REST API (/api/v1). */
  http: string;
  /** SQLite file of the messages: they survive a restart. */
  archivoDb: string;
  /** RE2 regexp: RCPT TO of any other address gets `550 5.1.0`. */
  destinatariosPermitidos?: string;
  /** Whole megabytes (Mailpit's unit); a bigger message gets `552 5.3.4` after DATA. Default 50. */
  tamanoMaximoMb?: number;
  /** Enables PUT /api/v1/chaos (injected SMTP failures); with every probability at 0 it changes nothing. */
  caos?: boolean;
}

export function argumentosMailpit(o: OpcionesMailpit): string[] {
  return [
    '--smtp',
    o.smtp,
    '--listen',
    o.http,
    '--database',
    o.archivoDb,
    // Both would reach the Internet: GitHub's releases, and a DNS lookup per connection.
    '--disable-version-check',
    '--smtp-disable-rdns',
    ...(o.destinatariosPermitidos ? ['--smtp-allowed-recipients', o.destinatariosPermitidos] : []),
    ...(o.tamanoMaximoMb === undefined ? [] : ['--max-message-size', String(o.tamanoMaximoMb)]),
    ...(o.caos ? ['--enable-chaos'] : []),
  ];
}

/** Whether Mailpit itself greets on that port: another server there would pass a mere connect. */
const saludaMailpit = (host: string, puerto: number) =>
  new Promise<boolean>((r) => {
    const s = createConnection({ host, port: puerto });
    const fin = (si: boolean) => {
      s.destroy();
      r(si);
    };
    s.setTimeout(1000, () => fin(false));
    s.once('data', (d) => {
      s.end('QUIT\r\n');
      r(/^220 .*Mailpit/.test(d.toString()));
    });
    s.once('error', () => fin(false));
  });

/**
 * Resolves once the API answers and Mailpit greets on the SMTP port (it opens them one after the other), or
 * rejects after `ms`; `sigueVivo` stops the wait early when the process has died.
 */
export async function esperarMailpit(o: {
  http: string;
  smtp: string;
  ms: number;
  sigueVivo?: () => boolean;
}): Promise<void> {
  const limite = Date.now() + o.ms;
  const i = o.smtp.lastIndexOf(':');
  const [hostSmtp, puertoSmtp] = [o.smtp.slice(0, i), Number(o.smtp.slice(i + 1))];
  let ultimo = 'sin respuesta';
  while (Date.now() < limite) {
    if (o.sigueVivo && !o.sigueVivo()) throw new Error('Mailpit terminó al arrancar');
    try {
      const r = await fetch(`http://${o.http}/api/v1/info`, { signal: AbortSignal.timeout(2000) });
      if (!r.ok) ultimo = `GET /api/v1/info: ${r.status}`;
      else if (await saludaMailpit(hostSmtp, puertoSmtp)) return;
      else ultimo = `sin saludo SMTP de Mailpit en ${o.smtp}`;
    } catch (e) {
      ultimo = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Mailpit no respondió en ${o.http} tras ${o.ms} ms: ${ultimo}`);
}
