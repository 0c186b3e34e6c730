import type { Request, RequestHandler, Response } from 'express';
import { ApiError } from '../../api/errores';
import { autenticacion } from '../../api/middleware/autenticacion';
import { claveDeDireccion, crearLimiteDeFallos } from '../../api/middleware/limite';
import { soloOperador } from '../../api/middleware/operador';
import type { RepositorioLlaves } from '../../db/repositorios/llaves';
import { crearLogger } from '../../log/logger';
import { generarLlave } from '../../seguridad/llaves-api';
import { desdeLoopback } from '../../seguridad/operador';
import type { ServicioCuenta } from '../../servicios/cuenta';
import { Almacen } from '../support/memoria';
import { crearLlavesEnMemoria } from '../support/memoria/llaves';

const MINUTO = 60_000;
const log = crearLogger('prueba', 'silent');

function reloj(inicio = 1_000_000) {
  const r = { ahora: inicio, leer: () => r.ahora };
  return r;
}

function solicitud(direccion: string, encabezados: Record<string, string> = {}): Request {
  const headers = Object.fromEntries(Object.entries(encabezados).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    headers,
    get: (n: string) => headers[n.toLowerCase()],
    socket: { remoteAddress: direccion },
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
  it('bloquea al llegar al máximo, dice cuánto esperar y vuelve a permitir al terminar la ventana', () => {
    const r = reloj();
    const l = crearLimiteDeFallos({ maximo: 3, ventanaMs: MINUTO }, r.leer);
    expect([l.registrarFallo('1.2.3.4'), l.registrarFallo('1.2.3.4')]).toEqual([false, false]);
    expect(l.espera('1.2.3.4')).toBeNull();
    expect(l.registrarFallo('1.2.3.4')).toBe(true);
    expect(l.espera('1.2.3.4')).toBe(60);
    expect(l.espera('5.6.7.8')).toBeNull();
    r.ahora += 45_500;
    expect(l.espera('1.2.3.4')).toBe(15);
    r.ahora += 14_500;
    expect(l.espera('1.2.3.4')).toBeNull();
    expect(l.registrarFallo('1.2.3.4')).toBe(false);
  });

  it('no crece sin límite: olvida primero las ventanas vencidas y luego las más viejas', () => {
    const r = reloj();
    const l = crearLimiteDeFallos({ maximo: 1, ventanaMs: MINUTO, maxDirecciones: 100 }, r.leer);
    for (let i = 0; i < 100; i++) l.registrarFallo(`10.0.0.${i}`);
    expect(l.direcciones).toBe(100);
    r.ahora += MINUTO;
    l.registrarFallo('10.0.1.1');
    expect(l.direcciones).toBe(1);
    for (let i = 0; i < 10_000; i++) {
      r.ahora += 1;
      l.registrarFallo(`10.1.${Math.floor(i / 256)}.${i % 256}`);
    }
    expect(l.direcciones).toBe(100);
    // The newest blocked address is still remembered.
    expect(l.espera('10.1.39.15')).not.toBeNull();
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
    const fallos = crearLimiteDeFallos({ maximo: 2, ventanaMs: MINUTO }, r.leer);
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
    soloOperador({ token, fallos: crearLimiteDeFallos({ maximo: 3, ventanaMs: MINUTO }, reloj().leer) });

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
