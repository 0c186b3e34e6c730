import type { Request, RequestHandler, Response } from 'express';
import { ApiError } from '../../api/errores';
import { autenticacion } from '../../api/middleware/autenticacion';
import {
  claveDeDireccion,
  crearLimiteDeFallos,
  VIGENCIA_LECTURA_MS,
  type OpcionesFallos,
} from '../../api/middleware/limite';
import { aApiError } from '../../api/middleware/manejador-errores';
import { soloOperador } from '../../api/middleware/operador';
import type { RepositorioLlaves } from '../../db/repositorios/llaves';
import { crearLogger } from '../../log/logger';
import { generarLlave } from '../../seguridad/llaves-api';
import { desdeLoopback } from '../../seguridad/operador';
import type { ServicioCuenta } from '../../servicios/cuenta';
import { Almacen } from '../support/memoria';
import { crearLimitesEnMemoria } from '../support/memoria/limites';
import { crearLlavesEnMemoria } from '../support/memoria/llaves';

const MINUTO = 60_000;
const log = crearLogger('prueba', 'silent');

function reloj(inicio = 1_000_000) {
  const r = { ahora: inicio, leer: () => r.ahora };
  return r;
}

/** A limiter over its own in-memory store, or over `almacen` (another replica of the same store). */
const limiteDeFallos = (op: OpcionesFallos, leer: () => number, almacen = new Almacen()) =>
  crearLimiteDeFallos(crearLimitesEnMemoria(almacen), op, leer);

function solicitud(direccion: string, encabezados: Record<string, string> = {}): Request {
  const headers = Object.fromEntries(Object.entries(encabezados).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    headers,
    get: (n: string) => headers[n.toLowerCase()],
    socket: { remoteAddress: direccion },
    // What Express gives with `trust proxy` off.
    ip: direccion,
    log,
  } as unknown as Request;
}

/** Runs a middleware: the ApiError it threw, or 'siguiente' when it let the request through. */
async function correr(mw: RequestHandler, req: Request): Promise<ApiError | 'siguiente'> {
  let paso = false;
  try {
    await mw(req, {} as Response, () => {
      paso = true;
    });
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  expect(paso).toBe(true);
  return 'siguiente';
}

describe('límite de autenticaciones fallidas por dirección', () => {
  it('bloquea al llegar al máximo, dice cuánto esperar y vuelve a permitir al terminar la ventana', async () => {
    const r = reloj();
    const l = limiteDeFallos({ maximo: 3, ventanaMs: MINUTO }, r.leer);
    expect([await l.registrarFallo('1.2.3.4'), await l.registrarFallo('1.2.3.4')]).toEqual([false, false]);
    expect(await l.espera('1.2.3.4')).toBeNull();
    expect(await l.registrarFallo('1.2.3.4')).toBe(true);
    expect(await l.espera('1.2.3.4')).toBe(60);
    expect(await l.espera('5.6.7.8')).toBeNull();
    r.ahora += 45_500;
    expect(await l.espera('1.2.3.4')).toBe(15);
    r.ahora += 14_500;
    expect(await l.espera('1.2.3.4')).toBeNull();
    expect(await l.registrarFallo('1.2.3.4')).toBe(false);
  });

  it('no crece sin límite: la réplica recuerda a lo más maxDirecciones y la base olvida las ventanas vencidas', async () => {
    const r = reloj();
    const almacen = new Almacen();
    const l = limiteDeFallos({ maximo: 1, ventanaMs: MINUTO, maxDirecciones: 100 }, r.leer, almacen);
    const tabla = almacen.tabla('fallos_autenticacion');
    for (let i = 0; i < 300; i++) {
      r.ahora += 1;
      await l.registrarFallo(`10.0.${Math.floor(i / 256)}.${i % 256}`);
      await l.espera(`10.0.${Math.floor(i / 256)}.${i % 256}`);
    }
    expect(l.direcciones).toBe(100);
    expect(tabla.todas()).toHaveLength(300);
    // The newest blocked address is still remembered; a forgotten one is read again, still blocked.
    expect(await l.espera('10.0.1.43')).not.toBeNull();
    expect(await l.espera('10.0.0.0')).not.toBeNull();
    // A window later, the next failure purges the ended windows from the shared table.
    r.ahora += MINUTO + 1;
    await l.registrarFallo('10.9.9.9');
    await new Promise((listo) => setImmediate(listo));
    expect(tabla.todas().map((f) => f.id)).toEqual(['10.9.9.9']);
  });

  it('entre réplicas: los fallos de una bloquean en la otra, a más tardar tras un segundo o en su propio fallo', async () => {
    const r = reloj();
    const almacen = new Almacen();
    const op = { maximo: 3, ventanaMs: MINUTO };
    const [a, b, c] = [
      limiteDeFallos(op, r.leer, almacen),
      limiteDeFallos(op, r.leer, almacen),
      limiteDeFallos(op, r.leer, almacen),
    ];
    const ip = '198.51.100.20';
    // b read the address while it was clean; c never did.
    expect(await b.espera(ip)).toBeNull();
    for (let i = 0; i < 3; i++) await a.registrarFallo(ip);
    expect(await a.espera(ip)).toBe(60);
    expect(await c.espera(ip)).toBe(60);
    expect(await b.espera(ip)).toBeNull();
    r.ahora += VIGENCIA_LECTURA_MS;
    expect(await b.espera(ip)).toBe(59);
    // A replica whose own failure finds the limit passed refuses from its next request.
    const otra = '198.51.100.21';
    expect(await b.espera(otra)).toBeNull();
    for (let i = 0; i < 3; i++) await a.registrarFallo(otra);
    expect(await b.registrarFallo(otra)).toBe(false);
    expect(await b.espera(otra)).toBe(60);
  });

  it('con la base caída no bloquea ni cuenta (la búsqueda de la llave responde 503); otro error sí sale', async () => {
    const caida = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const repo = {
      leerFallos: () => Promise.reject(caida),
      registrarFallo: () => Promise.reject(caida),
      purgarFallosAnterioresA: () => Promise.reject(caida),
    };
    const l = crearLimiteDeFallos(repo, { maximo: 1, ventanaMs: MINUTO });
    expect(await l.espera('1.2.3.4')).toBeNull();
    expect(await l.registrarFallo('1.2.3.4')).toBe(false);
    expect(aApiError(caida)).toMatchObject({ status: 503, codigo: 'base_de_datos_no_disponible' });
    const rota = crearLimiteDeFallos(
      { ...repo, leerFallos: () => Promise.reject(new Error("Table 'fallos_autenticacion' doesn't exist")) },
      { maximo: 1, ventanaMs: MINUTO },
    );
    await expect(rota.espera('1.2.3.4')).rejects.toThrow(/doesn't exist/);
  });

  it('cuenta IPv4 tal cual (también la mapeada en IPv6) e IPv6 por su /64', () => {
    expect(claveDeDireccion('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(claveDeDireccion('203.0.113.9')).toBe('203.0.113.9');
    expect(claveDeDireccion('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(claveDeDireccion('2001:db8:1:2:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(claveDeDireccion('2001:db8::5')).toBe('2001:db8:0:0::/64');
    expect(claveDeDireccion('::1')).toBe('0:0:0:0::/64');
    expect(claveDeDireccion(undefined)).toBe('desconocida');
  });
});

describe('autenticación con límite de fallos', () => {
  const cuenta = { liveHabilitado: async () => true } as unknown as ServicioCuenta;

  function preparar() {
    const llaves = crearLlavesEnMemoria(new Almacen());
    const valida = generarLlave('test');
    void llaves.insertar({
      id: 'llave_1',
      cuenta_id: 'cta_1',
      modo: 'test',
      nombre: 'x',
      prefijo: valida.prefijo,
      hash: valida.hash,
      creado_en: new Date(),
    });
    const consultas = { n: 0 };
    const contadas: RepositorioLlaves = {
      ...llaves,
      activaPorHash: (h) => {
        consultas.n++;
        return llaves.activaPorHash(h);
      },
    };
    const r = reloj();
    const fallos = limiteDeFallos({ maximo: 2, ventanaMs: MINUTO }, r.leer);
    const mw = autenticacion({ llaves: contadas, cuenta, fallos });
    const basic = (s: string) => ({ Authorization: `Basic ${Buffer.from(`${s}:`).toString('base64')}` });
    return { mw, consultas, r, basic, valida: valida.secreto };
  }

  it('pasado el máximo, la dirección recibe 429 con Retry-After sin que se busque la llave, ni la válida', async () => {
    const { mw, consultas, basic, valida } = preparar();
    const desconocida = 'sk_test_' + 'x'.repeat(40);
    expect(await correr(mw, solicitud('198.51.100.7'))).toMatchObject({ codigo: 'autenticacion_requerida' });
    expect(await correr(mw, solicitud('198.51.100.7', basic(desconocida)))).toMatchObject({
      codigo: 'llave_invalida',
    });
    const antes = consultas.n;
    const bloqueada = await correr(mw, solicitud('198.51.100.7', basic(valida)));
    expect(bloqueada).toMatchObject({
      tipo: 'limite_de_solicitudes',
      codigo: 'demasiados_intentos_fallidos',
      encabezados: { 'Retry-After': '60' },
    });
    expect((bloqueada as ApiError).status).toBe(429);
    expect(consultas.n).toBe(antes);
    // Another address with a valid key is not affected.
    expect(await correr(mw, solicitud('198.51.100.8', basic(valida)))).toBe('siguiente');
  });

  it('un acierto no borra los fallos de la dirección, y al vencer la ventana vuelve a atender', async () => {
    const { mw, r, basic, valida } = preparar();
    const ip = '198.51.100.9';
    await correr(mw, solicitud(ip, basic('no-es-llave')));
    expect(await correr(mw, solicitud(ip, basic(valida)))).toBe('siguiente');
    await correr(mw, solicitud(ip, basic('no-es-llave')));
    expect(await correr(mw, solicitud(ip, basic(valida)))).toMatchObject({
      codigo: 'demasiados_intentos_fallidos',
    });
    r.ahora += MINUTO;
    expect(await correr(mw, solicitud(ip, basic(valida)))).toBe('siguiente');
  });
});

describe('guardia de operador', () => {
  const TOKEN = 't'.repeat(40);
  const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
  const guardia = (token?: string) =>
    soloOperador({ token, fallos: limiteDeFallos({ maximo: 3, ventanaMs: MINUTO }, reloj().leer) });

  it('loopback pasa sin token; con encabezados de reenvío (un proxy local) ya no cuenta como loopback', async () => {
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      expect(await correr(guardia(), solicitud(ip))).toBe('siguiente');
    expect(desdeLoopback(solicitud('127.0.0.1', { 'X-Forwarded-For': '203.0.113.1' }))).toBe(false);
    expect(desdeLoopback(solicitud('127.0.0.1', { Forwarded: 'for=203.0.113.1' }))).toBe(false);
    expect(
      await correr(guardia(), solicitud('127.0.0.1', { 'X-Forwarded-For': '203.0.113.1' })),
    ).toMatchObject({
      codigo: 'operador_requerido',
    });
  });

  it('desde fuera pasa solo con el token correcto; sin token configurado, nadie de fuera', async () => {
    const g = guardia(TOKEN);
    let vistos = 0;
    expect(await correr(g, solicitud('203.0.113.5', bearer(TOKEN)))).toBe('siguiente');
    for (const enc of [
      {},
      bearer(TOKEN.slice(1)),
      bearer(`${TOKEN}x`),
      { Authorization: `Basic ${TOKEN}` },
    ]) {
      const e = await correr(g, solicitud(`203.0.113.${20 + vistos++}`, enc));
      expect(e).toMatchObject({ tipo: 'autenticacion', codigo: 'operador_requerido' });
      expect((e as ApiError).encabezados['WWW-Authenticate']).toMatch(/^Bearer/);
    }
    expect(await correr(guardia(), solicitud('203.0.113.5', bearer(TOKEN)))).toMatchObject({
      codigo: 'operador_requerido',
    });
  });

  it('los tokens equivocados cuentan como fallos de la dirección: luego 429 aun con el correcto', async () => {
    const g = guardia(TOKEN);
    for (let i = 0; i < 3; i++) await correr(g, solicitud('203.0.113.7', bearer('adivinanza')));
    expect(await correr(g, solicitud('203.0.113.7', bearer(TOKEN)))).toMatchObject({
      codigo: 'demasiados_intentos_fallidos',
    });
  });
});
