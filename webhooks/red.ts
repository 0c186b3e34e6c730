import { BlockList, isIP } from 'node:net';
import { promises as dnsPromesas } from 'node:dns';
import type { Modo } from '../dominio/alcance';

/**
 * Where a webhook may point (SSRF guard). A receiver's URL is chosen by the customer, so without this the
 * worker could be made to POST to its own loopback, the private network or the cloud's metadata service.
 *
 * - `validarUrlWebhook` is syntactic (scheme, credentials, literal IPs, local names): no DNS.
 * - `resolverSeguro` resolves a name and refuses it if *any* of its addresses is not allowed, so a name
 *   with one public and one private address cannot be used to reach the private one.
 * - The sender (enviar.ts) checks again at every attempt and connects only to the addresses checked here,
 *   so a name that changes its answer after registration (DNS rebinding) gains nothing.
 */

export type ModoRed = Modo;

export type MotivoBloqueo =
  | 'no_especificada'
  | 'loopback'
  | 'privada'
  | 'enlace_local'
  | 'cgnat'
  | 'metadatos'
  | 'reservada'
  | 'multidifusion';

type Familia = 'ipv4' | 'ipv6';
type Rango = readonly [red: string, prefijo: number, familia: Familia];

const ip4 = (red: string, prefijo: number): Rango => [red, prefijo, 'ipv4'];
const ip6 = (red: string, prefijo: number): Rango => [red, prefijo, 'ipv6'];

/** In order: metadata first, since its addresses also fall in the link-local, CGNAT and private ranges. */
const RANGOS: readonly (readonly [MotivoBloqueo, readonly Rango[]])[] = [
  ['metadatos', [ip4('169.254.169.254', 32), ip4('100.100.100.200', 32), ip6('fd00:ec2::254', 128)]],
  ['no_especificada', [ip4('0.0.0.0', 8), ip6('::', 128)]],
  ['loopback', [ip4('127.0.0.0', 8), ip6('::1', 128)]],
  [
    'privada',
    // fec0::/10 is the deprecated site-local range, still routed inside some networks.
    [ip4('10.0.0.0', 8), ip4('172.16.0.0', 12), ip4('192.168.0.0', 16), ip6('fc00::', 7), ip6('fec0::', 10)],
  ],
  ['enlace_local', [ip4('169.254.0.0', 16), ip6('fe80::', 10)]],
  ['cgnat', [ip4('100.64.0.0', 10)]],
  [
    'reservada',
    [
      ip4('192.0.0.0', 24),
      ip4('240.0.0.0', 4),
      ip4('198.18.0.0', 15),
      ip4('192.0.2.0', 24),
      ip4('198.51.100.0', 24),
      ip4('203.0.113.0', 24),
      ip6('2001:db8::', 32),
      // Deprecated IPv4-compatible addresses (::a.b.c.d) and the discard prefix: never a real receiver.
      ip6('::', 96),
      ip6('100::', 64),
    ],
  ],
  ['multidifusion', [ip4('224.0.0.0', 4), ip6('ff00::', 8)]],
];

const LISTAS: readonly (readonly [MotivoBloqueo, BlockList])[] = RANGOS.map(([motivo, rangos]) => {
  const lista = new BlockList();
  for (const [red, prefijo, familia] of rangos) lista.addSubnet(red, prefijo, familia);
  return [motivo, lista] as const;
});

/** The 8 groups of an IPv6 address already validated by `isIP`. */
function grupos(ip: string): number[] {
  let texto = ip;
  const ultimo = texto.lastIndexOf(':');
  const cola = texto.slice(ultimo + 1);
  if (cola.includes('.')) {
    const [a, b, c, d] = cola.split('.').map(Number) as [number, number, number, number];
    texto = `${texto.slice(0, ultimo + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const partes = (s: string) => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const [izquierda = '', derecha] = texto.split('::');
  const inicio = partes(izquierda);
  if (derecha === undefined) return inicio;
  const fin = partes(derecha);
  return [...inicio, ...new Array<number>(8 - inicio.length - fin.length).fill(0), ...fin];
}

const ipv4De = (alto: number, bajo: number) => `${alto >> 8}.${alto & 255}.${bajo >> 8}.${bajo & 255}`;

/**
 * The address a packet would really reach: IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4
 * (2002::/16) addresses carry an IPv4 one, which is what must be judged.
 */
function canonica(ip: string): { direccion: string; familia: Familia } {
  const zona = ip.indexOf('%');
  const sinZona = zona >= 0 ? ip.slice(0, zona) : ip;
  const version = isIP(ip) && isIP(sinZona);
  if (version === 4) return { direccion: sinZona, familia: 'ipv4' };
  if (version !== 6) throw new TypeError(`"${ip}" no es una dirección IP.`);
  const g = grupos(sinZona);
  const ceros = (desde: number, hasta: number) => g.slice(desde, hasta).every((x) => x === 0);
  if (ceros(0, 5) && g[5] === 0xffff) return { direccion: ipv4De(g[6]!, g[7]!), familia: 'ipv4' };
  if (g[0] === 0x64 && g[1] === 0xff9b && ceros(2, 6)) {
    return { direccion: ipv4De(g[6]!, g[7]!), familia: 'ipv4' };
  }
  if (g[0] === 0x2002) return { direccion: ipv4De(g[1]!, g[2]!), familia: 'ipv4' };
  return { direccion: sinZona, familia: 'ipv6' };
}

/** Why an IP literal (v4 or v6) must not be a webhook's destination, or null if it is public. Throws if not an IP. */
export function motivoBloqueo(ip: string): MotivoBloqueo | null {
  const { direccion, familia } = canonica(ip);
  for (const [motivo, lista] of LISTAS) if (lista.check(direccion, familia)) return motivo;
  return null;
}

/** Local development: test mode may reach a receiver on the developer's machine or network. */
const LOCALES: ReadonlySet<MotivoBloqueo> = new Set(['loopback', 'privada']);

const localesPermitidas = (modo: ModoRed, localesEnTest: boolean) => modo === 'test' && localesEnTest;

/** Null when the address is allowed in that mode; otherwise why it is not. */
export function permitida(ip: string, modo: ModoRed, localesEnTest: boolean): MotivoBloqueo | null {
  const motivo = motivoBloqueo(ip);
  if (motivo && localesPermitidas(modo, localesEnTest) && LOCALES.has(motivo)) return null;
  return motivo;
}

const DESCRIPCION: Record<MotivoBloqueo, string> = {
  no_especificada: 'una dirección no especificada',
  loopback: 'una dirección de loopback',
  privada: 'una dirección privada',
  enlace_local: 'una dirección de enlace local',
  cgnat: 'una dirección de NAT de operador (CGNAT)',
  metadatos: 'el servicio de metadatos de la nube',
  reservada: 'una dirección reservada',
  multidifusion: 'una dirección de multidifusión',
};

function consecuencia(modo: ModoRed, localesEnTest: boolean): string {
  if (modo === 'live') return 'en modo live solo se admiten direcciones públicas.';
  if (localesEnTest) return 'no se admite en ningún modo.';
  return 'solo se admiten direcciones públicas.';
}

const explicar = (sujeto: string, ip: string, motivo: MotivoBloqueo, modo: ModoRed, locales: boolean) =>
  `${sujeto} ${ip}, ${DESCRIPCION[motivo]}: ${consecuencia(modo, locales)}`;

/** `[::1]` (a URL's hostname) → `::1`; `ejemplo.com.` → `ejemplo.com`. */
export function hostSinAdornos(host: string): string {
  if (host.startsWith('[') && host.endsWith(']')) return host.slice(1, -1);
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

const esNombreLocal = (n: string) =>
  n === 'localhost' || n.endsWith('.localhost') || n.endsWith('.local') || n.endsWith('.internal');

const NOMBRES_METADATOS: ReadonlySet<string> = new Set(['metadata.google.internal', 'metadata.goog']);

/**
 * The authority as written (between `scheme://` and the path): the parser drops an empty userinfo
 * (`http://:@host`, `http://@host`), which is still credentials a receiver never asked for.
 */
function autoridadEscrita(texto: string): string {
  // As the parser does: tabs and newlines anywhere are dropped, spaces around are trimmed.
  const limpio = texto.replace(/[\t\n\r]/g, '').trim();
  return /^[^:]*:[\\/]*([^\\/?#]*)/.exec(limpio)?.[1] ?? '';
}

export type ValidacionUrl =
  | { ok: true; url: URL }
  | { ok: false; codigo: 'url_invalida' | 'url_no_segura'; mensaje: string };

/** A webhook URL's form, without DNS (resolverSeguro judges where a name points). */
export function validarUrlWebhook(texto: string, modo: ModoRed, localesEnTest: boolean): ValidacionUrl {
  let url: URL;
  try {
    // The WHATWG parser also normalises numeric hosts (2130706433, 0x7f.1) to dotted IPv4.
    url = new URL(texto);
  } catch {
    return {
      ok: false,
      codigo: 'url_invalida',
      mensaje: 'La URL no es válida: use una URL absoluta como https://erp.ejemplo.mx/webhooks/cfdi.',
    };
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && modo === 'test')) {
    const mensaje =
      modo === 'live'
        ? 'En modo live la URL del webhook debe usar https.'
        : `La URL del webhook debe usar https o, en modo test, http (no ${url.protocol.replace(':', '')}).`;
    return { ok: false, codigo: 'url_no_segura', mensaje };
  }
  if (url.username || url.password || autoridadEscrita(texto).includes('@')) {
    return {
      ok: false,
      codigo: 'url_invalida',
      mensaje: 'Las credenciales no van en la URL: el receptor verifica la firma de cada entrega.',
    };
  }
  if (url.port === '0') {
    return {
      ok: false,
      codigo: 'url_invalida',
      mensaje: 'La URL usa el puerto 0, que no es válido: use 1 a 65535.',
    };
  }
  const host = hostSinAdornos(url.hostname);
  if (!host) return { ok: false, codigo: 'url_invalida', mensaje: 'La URL no tiene host.' };
  if (isIP(host)) {
    const motivo = permitida(host, modo, localesEnTest);
    if (motivo) {
      return {
        ok: false,
        codigo: 'url_no_segura',
        mensaje: explicar('La URL apunta a', host, motivo, modo, localesEnTest),
      };
    }
    return { ok: true, url };
  }
  if (NOMBRES_METADATOS.has(host)) {
    return {
      ok: false,
      codigo: 'url_no_segura',
      mensaje: `La URL apunta a ${host}, el servicio de metadatos de la nube: no se admite en ningún modo.`,
    };
  }
  if (esNombreLocal(host) && !localesPermitidas(modo, localesEnTest)) {
    return {
      ok: false,
      codigo: 'url_no_segura',
      mensaje: `La URL apunta a ${host}, un nombre de la red local: ${consecuencia(modo, localesEnTest)}`,
    };
  }
  return { ok: true, url };
}

const AGOTADO = Symbol('agotado');

function conPlazo<T>(promesa: Promise<T>, ms: number | undefined): Promise<T | typeof AGOTADO> {
  if (ms === undefined) return promesa;
  let reloj: NodeJS.Timeout | undefined;
  const plazo = new Promise<typeof AGOTADO>((r) => {
    reloj = setTimeout(() => r(AGOTADO), Math.max(0, ms));
  });
  return Promise.race([promesa, plazo]).finally(() => clearTimeout(reloj));
}

/** Every address of a host name (a literal IP is its own answer). */
export type Resolver = (host: string) => Promise<string[]>;

export const resolverDns: Resolver = async (host) => {
  if (isIP(host)) return [host];
  const direcciones = await dnsPromesas.lookup(host, { all: true, verbatim: true });
  return direcciones.map((d) => d.address);
};

export type ResolucionSegura =
  | { ok: true; direcciones: string[] }
  | {
      ok: false;
      codigo: 'url_no_segura' | 'url_no_resuelve';
      mensaje: string;
      /** The resolver did not answer within `plazoMs`. */
      agotado?: true;
    };

/**
 * The host's addresses, refused if any one of them is not allowed in that mode. With `plazoMs`, a resolver that
 * has not answered by then is given up on (`agotado`): neither a registration nor an attempt waits on it.
 */
export async function resolverSeguro(
  host: string,
  modo: ModoRed,
  localesEnTest: boolean,
  resolver: Resolver = resolverDns,
  plazoMs?: number,
): Promise<ResolucionSegura> {
  const nombre = hostSinAdornos(host);
  let direcciones: string[];
  try {
    if (isIP(nombre)) direcciones = [nombre];
    else {
      const r = await conPlazo(resolver(nombre), plazoMs);
      if (r === AGOTADO) {
        const s = `${plazoMs! / 1000} s`;
        return {
          ok: false,
          codigo: 'url_no_resuelve',
          agotado: true,
          mensaje: `No se resolvió ${nombre} en ${s}.`,
        };
      }
      direcciones = r;
    }
  } catch (e) {
    const codigo = (e as NodeJS.ErrnoException | undefined)?.code;
    return {
      ok: false,
      codigo: 'url_no_resuelve',
      mensaje: `No se pudo resolver ${nombre}${codigo ? ` (${codigo})` : ''}.`,
    };
  }
  const unicas = [...new Set(direcciones)];
  if (unicas.length === 0) {
    return { ok: false, codigo: 'url_no_resuelve', mensaje: `${nombre} no tiene direcciones.` };
  }
  for (const ip of unicas) {
    if (!isIP(ip)) {
      return {
        ok: false,
        codigo: 'url_no_resuelve',
        mensaje: `${nombre} resolvió a "${ip}", que no es una IP.`,
      };
    }
    const motivo = permitida(ip, modo, localesEnTest);
    if (motivo) {
      const sujeto = ip === nombre ? 'La URL apunta a' : `${nombre} resuelve a`;
      return {
        ok: false,
        codigo: 'url_no_segura',
        mensaje: explicar(sujeto, ip, motivo, modo, localesEnTest),
      };
    }
  }
  return { ok: true, direcciones: unicas };
}
