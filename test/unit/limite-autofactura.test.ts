import type { Request, Response } from 'express';
import { ApiError } from '../../api/errores';
import { crearLimitesAutofactura, CUBETA_POR_CLAVE } from '../../api/middleware/limite-autofactura';
import { nuevaClaveRecibo } from '../../seguridad/claves-recibo';
import { Almacen } from '../support/memoria';
import { crearLimitesEnMemoria } from '../support/memoria/limites';

const MINUTO = 60_000;

function reloj(inicio = 1_000_000) {
  const r = { ahora: inicio, leer: () => r.ahora };
  return r;
}

const solicitud = (ip: string) => ({ ip, socket: { remoteAddress: ip } }) as unknown as Request;

/** The ApiError a call threw, or 'paso' when it let the request through. */
async function resultado(f: () => Promise<unknown>): Promise<ApiError | 'paso'> {
  try {
    await f();
    return 'paso';
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
}

function limites(almacen = new Almacen(), r = reloj()) {
  const l = crearLimitesAutofactura(
    crearLimitesEnMemoria(almacen),
    { porDireccion: { rafaga: 3, porSegundo: 1 }, fallos: { maximo: 2, ventanaMs: MINUTO } },
    r.leer,
  );
  const porDireccion = (ip: string) =>
    resultado(
      () =>
        new Promise<void>((ok, mal) =>
          Promise.resolve(l.porDireccion(solicitud(ip), {} as Response, () => ok())).catch(mal),
        ),
    );
  return { l, r, porDireccion };
}

describe('límites del portal de autofacturación', () => {
  it('cubeta por dirección: la ráfaga pasa, la siguiente es 429 con Retry-After; otra dirección no se afecta', async () => {
    const { porDireccion, r } = limites();
    for (let i = 0; i < 3; i++) expect(await porDireccion('1.2.3.4')).toBe('paso');
    const e = (await porDireccion('1.2.3.4')) as ApiError;
    expect([e.status, e.codigo, e.encabezados['Retry-After']]).toEqual([
      429,
      'limite_de_solicitudes_excedido',
      '1',
    ]);
    expect(e.message).toMatch(/^Demasiadas solicitudes desde esta dirección: espere 1 s/);
    expect(await porDireccion('5.6.7.8')).toBe('paso');
    r.ahora += 1000;
    expect(await porDireccion('1.2.3.4')).toBe('paso');
  });

  it('claves que no abren nada: pasado el máximo, toda clave de esa dirección es 429 hasta el fin de la ventana', async () => {
    const { l, r } = limites();
    const ip = solicitud('1.2.3.4');
    const buena = nuevaClaveRecibo();
    await l.claveFallida(ip);
    expect(await resultado(() => l.antesDeClave(ip, buena))).toBe('paso');
    await l.claveFallida(ip);
    const e = (await resultado(() => l.antesDeClave(ip, buena))) as ApiError;
    expect([e.status, e.codigo, e.encabezados['Retry-After']]).toEqual([
      429,
      'demasiadas_claves_invalidas',
      '60',
    ]);
    // Other addresses, and the API keys' failed authentications of this one, are counted apart.
    expect(await resultado(() => l.antesDeClave(solicitud('5.6.7.8'), buena))).toBe('paso');
    r.ahora += MINUTO;
    expect(await resultado(() => l.antesDeClave(ip, buena))).toBe('paso');
  });

  it('cubeta por clave, compartida por las direcciones que la usen; una clave mal formada no tiene cubeta', async () => {
    const { l } = limites();
    const clave = nuevaClaveRecibo();
    for (let i = 0; i < CUBETA_POR_CLAVE.rafaga; i++)
      expect(await resultado(() => l.antesDeClave(solicitud(`10.0.0.${i}`), clave.toLowerCase()))).toBe(
        'paso',
      );
    const e = (await resultado(() => l.antesDeClave(solicitud('10.0.1.1'), clave))) as ApiError;
    expect([e.codigo, e.message]).toEqual([
      'limite_de_solicitudes_excedido',
      'Demasiadas solicitudes con esta clave: espere 1 s y vuelva a intentarlo.',
    ]);
    for (let i = 0; i < 30; i++)
      expect(await resultado(() => l.antesDeClave(solicitud('10.0.2.1'), 'x'))).toBe('paso');
  });

  it('la cuenta es de la base compartida: otra réplica ve los fallos y las cubetas', async () => {
    const almacen = new Almacen();
    const r = reloj();
    const uno = limites(almacen, r);
    const otro = limites(almacen, r);
    const ip = solicitud('1.2.3.4');
    await uno.l.claveFallida(ip);
    await otro.l.claveFallida(ip);
    expect(((await resultado(() => uno.l.antesDeClave(ip, nuevaClaveRecibo()))) as ApiError).codigo).toBe(
      'demasiadas_claves_invalidas',
    );
    for (let i = 0; i < 3; i++) await uno.porDireccion('9.9.9.9');
    expect(((await otro.porDireccion('9.9.9.9')) as ApiError).codigo).toBe('limite_de_solicitudes_excedido');
  });

  it('olvida las cubetas ya llenas de nuevo, y solo las suyas', async () => {
    const almacen = new Almacen();
    const { porDireccion, r } = limites(almacen);
    for (let i = 0; i < 50; i++) await porDireccion(`10.1.0.${i}`);
    const cubetas = almacen.tabla<{ id: string }>('limites_llaves');
    cubetas.insertar({ id: 'cta_x|llave_x', milifichas: 0, actualizado_ms: 0 } as never);
    expect(cubetas.todas()).toHaveLength(51);
    // A minute later the purge runs on the next request, off its path.
    r.ahora += MINUTO;
    await porDireccion('10.2.0.1');
    await new Promise((ok) => setImmediate(ok));
    expect(
      cubetas
        .todas()
        .map((c) => c.id)
        .sort(),
    ).toEqual(['autofactura:direccion|10.2.0.1', 'cta_x|llave_x']);
  });
});
