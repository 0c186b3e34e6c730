import type { Request, Response } from 'express';
import { ApiError } from '../../api/errores';
import { limiteDeSolicitudes, type OpcionesLimite } from '../../api/middleware/limite';
import { aApiError } from '../../api/middleware/manejador-errores';
import { Almacen } from '../support/memoria';
import { crearLimitesEnMemoria } from '../support/memoria/limites';

const alcance = (llaveId: string) => ({ cuentaId: 'cta_1', modo: 'test' as const, llaveId });

/** One request through the middleware: its status (200 when it passed) and the headers it set. */
async function pedir(mw: ReturnType<typeof limiteDeSolicitudes>, llaveId = 'llave_1') {
  const encabezados: Record<string, string> = {};
  const res = { setHeader: (k: string, v: string) => void (encabezados[k] = v) } as unknown as Response;
  let status = 200;
  try {
    await mw({ alcance: alcance(llaveId) } as Request, res, () => undefined);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    status = e.status;
    Object.assign(encabezados, e.encabezados);
    expect(e).toMatchObject({ tipo: 'limite_de_solicitudes', codigo: 'limite_de_solicitudes_excedido' });
  }
  return { status, encabezados };
}

function replicas(n: number, op: OpcionesLimite) {
  const almacen = new Almacen();
  const r = { ahora: 1_000_000 };
  const mws = Array.from({ length: n }, () =>
    limiteDeSolicitudes(crearLimitesEnMemoria(almacen), op, () => r.ahora),
  );
  return { mws, r };
}

describe('límite de solicitudes por llave', () => {
  it('concede la ráfaga, luego 429 con Retry-After; los encabezados dicen cuánto queda y cuándo se llena', async () => {
    const { mws, r } = replicas(1, { rafaga: 3, porSegundo: 2 });
    const [mw] = mws as [ReturnType<typeof limiteDeSolicitudes>];
    expect(await pedir(mw)).toEqual({
      status: 200,
      encabezados: { 'RateLimit-Limit': '3', 'RateLimit-Remaining': '2', 'RateLimit-Reset': '1' },
    });
    await pedir(mw);
    expect((await pedir(mw)).encabezados).toMatchObject({
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '2',
    });
    expect(await pedir(mw)).toEqual({
      status: 429,
      encabezados: {
        'RateLimit-Limit': '3',
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': '2',
        'Retry-After': '1',
      },
    });
    // Another key has its own bucket.
    expect((await pedir(mw, 'llave_2')).status).toBe(200);
    r.ahora += 500;
    expect(await pedir(mw)).toMatchObject({ status: 200, encabezados: { 'RateLimit-Remaining': '0' } });
  });

  it('la cubeta es de la llave en todas las réplicas: entre dos, exactamente `rafaga` concedidas', async () => {
    const { mws, r } = replicas(2, { rafaga: 10, porSegundo: 1 });
    const estados = await Promise.all(Array.from({ length: 30 }, (_, i) => pedir(mws[i % 2]!)));
    expect(estados.filter((e) => e.status === 200)).toHaveLength(10);
    expect(estados.filter((e) => e.status === 429)).toHaveLength(20);
    r.ahora += 1000;
    expect([(await pedir(mws[1]!)).status, (await pedir(mws[0]!)).status]).toEqual([200, 429]);
  });

  it('con la base caída la solicitud responde 503 base_de_datos_no_disponible, no 500', async () => {
    const caida = Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' });
    const mw = limiteDeSolicitudes({ tomarFicha: () => Promise.reject(caida) }, { rafaga: 1, porSegundo: 1 });
    const error = await Promise.resolve(
      mw({ alcance: alcance('llave_1') } as Request, {} as Response, () => undefined),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(aApiError(error)).toMatchObject({ status: 503, codigo: 'base_de_datos_no_disponible' });
  });
});
