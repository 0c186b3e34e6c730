import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argumentosMailpit, esperarMailpit, rutaMailpit } from '../../scripts/mailpit';
import { procesoReiniciable } from './proceso-reiniciable';
import { puertosLibres } from './puertos';

/**
 * A Mailpit of one test file's own: free ports, its messages in a temporary SQLite file (so they survive
 * detenerSmtp/reanudarSmtp), read back through its REST API.
 *
 * What a sender sees (Mailpit v1.33.1, measured with nodemailer 10.6.1):
 * - recipient outside `destinatariosPermitidos`: RCPT TO gets `550 5.1.0 Requested action not taken: mailbox
 *   unavailable`. All refused: nodemailer rejects with err.code 'EENVELOPE', err.responseCode 550, err.command
 *   'RCPT TO'. Some refused: it still sends to the rest and resolves, with info.rejected and info.rejectedErrors.
 * - message over `tamanoMaximoMb`: after DATA, `552 5.3.4 Requested mail action aborted: exceeded storage
 *   allocation (<bytes>)`: err.code 'EMESSAGE', err.responseCode 552, err.command 'DATA'. Nothing is stored.
 * - SMTP port closed (detenerSmtp): err.code 'ESOCKET' (not 'ECONNECTION'), err.command 'CONN', no responseCode;
 *   ECONNREFUSED only in err.message and err.errno (-111). 'ECONNECTION' is a peer that closes the connection
 *   before its greeting; 'ETIMEDOUT' one that never greets (greetingTimeout).
 * - fallar({ destinatario: 451 }): RCPT TO gets `451 Chaos recipient error`: 'EENVELOPE', responseCode 451;
 *   fallar({ remitente: 421 }): MAIL FROM gets `421 Chaos sender error`: 'EENVELOPE', responseCode 421.
 */

export interface Direccion {
  Name: string;
  Address: string;
}

/** An entry of GET /api/v1/messages and /api/v1/search (newest first). Absent lists come as []. */
export interface ResumenMensaje {
  ID: string;
  /** Without the angle brackets. */
  MessageID: string;
  Read: boolean;
  From: Direccion | null;
  To: Direccion[];
  Cc: Direccion[];
  /** Envelope recipients missing from To and Cc. */
  Bcc: Direccion[];
  ReplyTo: Direccion[];
  Subject: string;
  /** When Mailpit received it (ISO 8601). */
  Created: string;
  Size: number;
  /** How many attachments. */
  Attachments: number;
  Snippet: string;
  Tags: string[];
}

export interface Parte {
  PartID: string;
  FileName: string;
  ContentType: string;
  ContentID: string;
  /** Decoded bytes. */
  Size: number;
}

/** GET /api/v1/message/{id} (reading it marks it read). */
export interface Mensaje {
  ID: string;
  MessageID: string;
  From: Direccion | null;
  To: Direccion[];
  Cc: Direccion[];
  Bcc: Direccion[];
  ReplyTo: Direccion[];
  ReturnPath: string;
  Subject: string;
  /** The Date header (ISO 8601). */
  Date: string;
  Text: string;
  HTML: string;
  Size: number;
  Attachments: Parte[];
  /** Parts with a Content-ID (images the HTML shows). */
  Inline: Parte[];
  Tags: string[];
}

export interface OpcionesMailpitPrueba {
  /** RE2 regexp (Go, no lookarounds) of the only recipients accepted; any other gets 550. Default: all. */
  destinatariosPermitidos?: string;
  /** Largest message in whole megabytes (Mailpit's unit; 1 MB = 1,048,576 bytes); above it, 552. Default 50. */
  tamanoMaximoMb?: number;
}

/** A Mailpit search (`to:a@b.mx subject:"Factura A-1"`, https://mailpit.axllent.org/docs/usage/search-filters/) or a predicate. */
export type FiltroMensajes = string | ((m: ResumenMensaje) => boolean);

export interface MailpitPrueba {
  /** smtp://127.0.0.1:<port>: what SMTP_URL takes. */
  smtpUrl: string;
  /** http://127.0.0.1:<port>/api/v1 */
  apiUrl: string;
  /** http://127.0.0.1:<port> */
  uiUrl: string;
  /** Every message, or those a Mailpit search matches; newest first. */
  mensajes(consulta?: string): Promise<ResumenMensaje[]>;
  mensaje(id: string): Promise<Mensaje>;
  /** The RFC 5322 source as received (with Mailpit's Received and Return-Path on top). */
  crudo(id: string): Promise<string>;
  /** An attachment's decoded bytes, by its PartID. */
  adjunto(id: string, partId: string): Promise<Buffer>;
  /** Polls until at least `n` messages match; resolves with all that match. Default 15 s. */
  esperarMensajes(n: number, o?: { filtro?: FiltroMensajes; ms?: number }): Promise<ResumenMensaje[]>;
  borrarTodo(): Promise<void>;
  /**
   * Every MAIL FROM (`remitente`) or RCPT TO (`destinatario`) answers that code (400-599) until quitarFallas();
   * kept across reanudarSmtp.
   */
  fallar(o: { remitente?: number; destinatario?: number }): Promise<void>;
  quitarFallas(): Promise<void>;
  /** Kills Mailpit (SMTP and API: a server down); its messages stay in the file. */
  detenerSmtp(): Promise<void>;
  /** Starts it again on the same ports and file. */
  reanudarSmtp(): Promise<void>;
  /** Kills it and removes its files. */
  detener(): Promise<void>;
}

function exigirMailpit(): string {
  const ruta = rutaMailpit();
  try {
    accessSync(ruta, constants.X_OK);
  } catch {
    throw new Error(
      `Infraestructura de pruebas incompleta: no hay Mailpit en ${ruta}. Ejecute \`make test\`, que lo compila.`,
    );
  }
  return ruta;
}

type ConNulos<T> = Omit<T, 'To' | 'Cc' | 'Bcc' | 'ReplyTo' | 'Tags'> &
  Record<'To' | 'Cc' | 'Bcc' | 'ReplyTo', Direccion[] | null> & { Tags: string[] | null };

// Mailpit answers null for an absent list in some places and [] in others.
const listas = <T extends ResumenMensaje | Mensaje>(m: ConNulos<T>): T =>
  ({
    ...m,
    To: m.To ?? [],
    Cc: m.Cc ?? [],
    Bcc: m.Bcc ?? [],
    ReplyTo: m.ReplyTo ?? [],
    Tags: m.Tags ?? [],
  }) as T;

export async function arrancarMailpit(opciones: OpcionesMailpitPrueba = {}): Promise<MailpitPrueba> {
  const binario = exigirMailpit();
  const dir = mkdtempSync(join(tmpdir(), 'cfdi-mailpit-'));
  const log = join(dir, 'mailpit.log');
  const [puertoSmtp, puertoHttp] = await puertosLibres(2);
  const smtp = `127.0.0.1:${puertoSmtp}`;
  const http = `127.0.0.1:${puertoHttp}`;
  const argumentos = argumentosMailpit({
    smtp,
    http,
    archivoDb: join(dir, 'mailpit.db'),
    destinatariosPermitidos: opciones.destinatariosPermitidos,
    tamanoMaximoMb: opciones.tamanoMaximoMb,
    caos: true,
  });
  const proceso = procesoReiniciable({
    lanzar: () => spawn(binario, argumentos, { stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')] }),
    async listo(hijo) {
      try {
        const sigueVivo = () => hijo.exitCode === null && hijo.signalCode === null;
        await esperarMailpit({ http, smtp, ms: 20_000, sigueVivo });
      } catch (e) {
        hijo.kill('SIGKILL');
        throw new Error(`${(e as Error).message}\n${readFileSync(log, 'utf8').slice(-3000)}`);
      }
    },
    dir,
  });
  await proceso.arrancar();

  const apiUrl = `http://${http}/api/v1`;
  async function pedir(ruta: string, init?: RequestInit): Promise<Response> {
    const r = await fetch(`${apiUrl}${ruta}`, init);
    if (!r.ok) throw new Error(`Mailpit ${init?.method ?? 'GET'} ${ruta}: ${r.status} ${await r.text()}`);
    return r;
  }
  const json = async <T>(ruta: string, init?: RequestInit) => (await pedir(ruta, init)).json() as Promise<T>;

  // Chaos lives in Mailpit's memory: reapplied after a restart.
  let caos: { remitente?: number; destinatario?: number } = {};
  const aplicarCaos = () =>
    pedir('/chaos', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        Sender: { ErrorCode: caos.remitente ?? 451, Probability: caos.remitente ? 100 : 0 },
        Recipient: { ErrorCode: caos.destinatario ?? 451, Probability: caos.destinatario ? 100 : 0 },
      }),
    });

  const mensajes = async (consulta?: string) => {
    // Mailpit keeps 500 messages by default: one page holds them all.
    const ruta = consulta
      ? `/search?limit=1000&query=${encodeURIComponent(consulta)}`
      : '/messages?limit=1000';
    const r = await json<{ messages: ConNulos<ResumenMensaje>[] }>(ruta);
    return r.messages.map((m) => listas<ResumenMensaje>(m));
  };

  return {
    smtpUrl: `smtp://${smtp}`,
    apiUrl,
    uiUrl: `http://${http}`,
    mensajes,
    mensaje: async (id) =>
      listas<Mensaje>(await json<ConNulos<Mensaje>>(`/message/${encodeURIComponent(id)}`)),
    crudo: async (id) => (await pedir(`/message/${encodeURIComponent(id)}/raw`)).text(),
    adjunto: async (id, partId) =>
      Buffer.from(
        await (
          await pedir(`/message/${encodeURIComponent(id)}/part/${encodeURIComponent(partId)}`)
        ).arrayBuffer(),
      ),
    async esperarMensajes(n, o = {}) {
      const limite = Date.now() + (o.ms ?? 15_000);
      const { filtro } = o;
      let ultimos: ResumenMensaje[] = [];
      for (;;) {
        ultimos = await mensajes(typeof filtro === 'string' ? filtro : undefined);
        if (typeof filtro === 'function') ultimos = ultimos.filter(filtro);
        if (ultimos.length >= n) return ultimos;
        if (Date.now() >= limite) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const vistos = (await mensajes()).map((m) => `${m.To.map((d) => d.Address).join(',')}: ${m.Subject}`);
      throw new Error(
        `Mailpit: se esperaban ${n} mensajes${typeof filtro === 'string' ? ` con «${filtro}»` : ''} y hay ${ultimos.length}; todos: ${JSON.stringify(vistos)}`,
      );
    },
    async borrarTodo() {
      await pedir('/messages', { method: 'DELETE' });
    },
    async fallar(o) {
      for (const codigo of [o.remitente, o.destinatario]) {
        if (codigo !== undefined && !(Number.isInteger(codigo) && codigo >= 400 && codigo <= 599))
          throw new Error(`código SMTP inválido: ${codigo} (400-599)`);
      }
      caos = { ...caos, ...o };
      await aplicarCaos();
    },
    async quitarFallas() {
      caos = {};
      await aplicarCaos();
    },
    detenerSmtp: proceso.matar,
    async reanudarSmtp() {
      await proceso.arrancar();
      if (caos.remitente || caos.destinatario) await aplicarCaos();
    },
    detener: proceso.detener,
  };
}
