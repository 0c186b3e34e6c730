import {
  CLASES_POR_TIPO,
  ErrorApi,
  ErrorConflicto,
  ErrorLimiteDeSolicitudes,
  ErrorNoEncontrado,
  ErrorRed,
  ErrorReglaDeNegocio,
  ErrorServicioNoDisponible,
  ErrorSolicitudInvalida,
  leerRetryAfter,
  respuestaDe,
  type TipoError,
} from '../../sdk/src';
import { errorApi, sdkDePrueba, servidorFalso, type Manejador } from '../support/sdk-servidor';
import { TIPOS } from '../../api/errores';

const FACTURA = { id: 'fac_1', objeto: 'factura', timbrado: { estado: 'timbrada' } };

async function conServidor(
  manejar: Manejador,
  fn: (s: Awaited<ReturnType<typeof servidorFalso>>) => Promise<void>,
) {
  const s = await servidorFalso(manejar);
  try {
    await fn(s);
  } finally {
    await s.cerrar();
  }
}

describe('SDK: autenticación, idempotencia y reintentos', () => {
  it('HTTP Basic con la llave como usuario y contraseña vacía; JSON con su tipo; sin clave de idempotencia en GET', () =>
    conServidor(
      () => ({ json: FACTURA }),
      async (s) => {
        const { sdk } = sdkDePrueba(s.url);
        const f = await sdk.facturas.obtener('fac_1');
        expect(f.id).toBe('fac_1');
        const [r] = s.recibidas;
        expect(r!.encabezados.authorization).toBe(
          `Basic ${Buffer.from('sk_test_abc123:').toString('base64')}`,
        );
        expect(r!.encabezados['clave-idempotencia']).toBeUndefined();
        expect(r!.encabezados['user-agent']).toMatch(/^cfdi-api-sdk\/0\.1\.0$/);
        expect(respuestaDe(f)).toMatchObject({
          estado: 200,
          idSolicitud: 'req_1',
          idempotenciaRepetida: false,
        });
      },
    ));

  it('todo POST lleva una Clave-Idempotencia UUID, la MISMA en cada reintento; una clave del llamador se respeta', () =>
    conServidor(
      (_r, n) =>
        n === 1 || n === 3
          ? errorApi(409, 'conflicto', 'solicitud_en_curso')
          : n === 2
            ? { estado: 503, json: { error: { tipo: 'servicio_no_disponible', codigo: 'x', mensaje: '' } } }
            : { estado: 201, json: FACTURA, encabezados: { 'idempotencia-repetida': 'true' } },
      async (s) => {
        const { sdk, esperas } = sdkDePrueba(s.url);
        const f = await sdk.clientes.crear({ organizacion: 'org_1' } as never);
        expect(s.recibidas).toHaveLength(4);
        const claves = s.recibidas.map((r) => r.encabezados['clave-idempotencia']);
        expect(claves[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(new Set(claves).size).toBe(1);
        // Same bytes each time: the server compares the body of a repeated key.
        expect(new Set(s.recibidas.map((r) => r.cuerpo.toString())).size).toBe(1);
        expect(s.recibidas[0]!.encabezados['content-type']).toBe('application/json');
        expect(esperas).toHaveLength(3);
        expect(respuestaDe(f)).toMatchObject({ estado: 201, idempotenciaRepetida: true });

        await sdk.facturas.timbrar('fac_1', { claveIdempotencia: 'mi-clave-1' });
        await sdk.facturas.timbrar('fac_1');
        const [propia, otra] = s.recibidas.slice(4).map((r) => r.encabezados['clave-idempotencia']);
        expect(propia).toBe('mi-clave-1');
        expect(otra).not.toBe(claves[0]);
        // No body on a bodiless POST.
        expect(s.recibidas[4]!.cuerpo.length).toBe(0);
      },
    ));

  it('429 y 503 respetan Retry-After (segundos); sin él, espera exponencial con variación, creciente', () =>
    conServidor(
      (_r, n) =>
        n === 1
          ? {
              ...errorApi(429, 'limite_de_solicitudes', 'limite_de_solicitudes_excedido'),
              encabezados: { 'retry-after': '2' },
            }
          : n <= 4
            ? errorApi(503, 'servicio_no_disponible', 'temporal_no_disponible')
            : { json: FACTURA },
      async (s) => {
        const { sdk, esperas } = sdkDePrueba(s.url, {
          reintentos: { maximo: 4, esperaBaseMs: 100, esperaMaximaMs: 5000 },
          aleatorio: () => 0.5,
        });
        await sdk.facturas.obtener('fac_1');
        expect(s.recibidas).toHaveLength(5);
        // Retry-After first; then base·2ⁿ⁻¹ with equal jitter at 0.5 → 0.75 of the step.
        expect(esperas).toEqual([2000, 150, 300, 600]);
      },
    ));

  it('agotados los intentos lanza el error tipado; un Retry-After más largo que la espera máxima no se espera', () =>
    conServidor(
      (r) =>
        r.ruta.endsWith('fac_lento')
          ? {
              ...errorApi(429, 'limite_de_solicitudes', 'demasiados_intentos_fallidos'),
              encabezados: { 'retry-after': '60' },
            }
          : errorApi(503, 'servicio_no_disponible', 'pac_no_disponible'),
      async (s) => {
        const { sdk, esperas } = sdkDePrueba(s.url, { reintentos: 2 });
        const e = await sdk.facturas.obtener('fac_1').catch((x: unknown) => x);
        expect(e).toBeInstanceOf(ErrorServicioNoDisponible);
        expect(s.recibidas).toHaveLength(3);
        expect(esperas).toHaveLength(2);

        const lento = await sdk.facturas.obtener('fac_lento').catch((x: unknown) => x);
        expect(lento).toBeInstanceOf(ErrorLimiteDeSolicitudes);
        expect(lento).toMatchObject({ codigo: 'demasiados_intentos_fallidos', reintentarEnMs: 60_000 });
        expect(s.recibidas).toHaveLength(4);
      },
    ));

  it('nunca reintenta otros 4xx (400, 404, 409 distinto de solicitud_en_curso, 422) ni 500', async () => {
    const casos = [
      errorApi(400, 'solicitud_invalida', 'parametro_invalido'),
      errorApi(404, 'no_encontrado', 'factura_no_encontrada'),
      errorApi(409, 'conflicto', 'timbrado_en_curso'),
      errorApi(422, 'regla_de_negocio', 'clave_idempotencia_reutilizada'),
      errorApi(500, 'interno', 'error_interno'),
    ];
    for (const caso of casos) {
      await conServidor(
        () => caso,
        async (s) => {
          const { sdk, esperas } = sdkDePrueba(s.url);
          await expect(sdk.facturas.timbrar('fac_1')).rejects.toBeInstanceOf(ErrorApi);
          expect(s.recibidas).toHaveLength(1);
          expect(esperas).toEqual([]);
        },
      );
    }
  });

  it('errores de red: se reintentan en GET y en POST (con su clave), no en PATCH ni DELETE', () =>
    conServidor(
      (r) => (r.encabezados['x-n'] === 'ok' ? { json: FACTURA } : { cortar: true }),
      async (s) => {
        const { sdk } = sdkDePrueba(s.url, { reintentos: 2 });
        await expect(sdk.facturas.obtener('fac_1')).rejects.toBeInstanceOf(ErrorRed);
        expect(s.recibidas).toHaveLength(3);
        await expect(sdk.facturas.cancelar('fac_1', { motivo: '02' })).rejects.toBeInstanceOf(ErrorRed);
        expect(s.recibidas).toHaveLength(6);
        expect(new Set(s.recibidas.slice(3).map((r) => r.encabezados['clave-idempotencia'])).size).toBe(1);
        await expect(sdk.clientes.actualizar('cli_1', { nombre: 'X' })).rejects.toBeInstanceOf(ErrorRed);
        await expect(sdk.clientes.eliminar('cli_1')).rejects.toBeInstanceOf(ErrorRed);
        expect(s.recibidas).toHaveLength(8);
        // A connection that cannot even open is a network error too.
        const { sdk: otro } = sdkDePrueba('http://127.0.0.1:9', { reintentos: 0 });
        await expect(otro.facturas.obtener('fac_1')).rejects.toBeInstanceOf(ErrorRed);
      },
    ));
});

describe('SDK: errores tipados', () => {
  it('una clase por tipo del contrato, con tipo, codigo, parametro, estado e idSolicitud', async () => {
    const tipos = Object.keys(CLASES_POR_TIPO) as TipoError[];
    // The server's own status for each kind.
    const estados: Record<TipoError, number> = TIPOS;
    await conServidor(
      (r) => {
        const tipo = r.consulta.get('tipo') as TipoError;
        return {
          ...errorApi(estados[tipo], tipo, `codigo_${tipo}`, {
            parametro: 'conceptos[0].cantidad',
            factura: 'fac_9',
          }),
          encabezados: { 'x-request-id': `req_${tipo}` },
        };
      },
      async (s) => {
        const { sdk } = sdkDePrueba(s.url, { reintentos: 0 });
        for (const tipo of tipos) {
          const e = await sdk.facturas
            .listar({ tipo: tipo as never })
            .pagina()
            .catch((x: unknown) => x);
          expect(e).toBeInstanceOf(CLASES_POR_TIPO[tipo]);
          expect(e).toBeInstanceOf(ErrorApi);
          expect(e).toMatchObject({
            tipo,
            codigo: `codigo_${tipo}`,
            parametro: 'conceptos[0].cantidad',
            factura: 'fac_9',
            estado: estados[tipo],
            idSolicitud: `req_${tipo}`,
            message: `mensaje de codigo_${tipo}`,
            name: CLASES_POR_TIPO[tipo].name,
          });
        }
      },
    );
  });

  it('subclases esperadas y una respuesta sin sobre (un proxy) se describe por su status', () =>
    conServidor(
      (r) =>
        r.ruta === '/v1/facturas/fac_404'
          ? errorApi(404, 'no_encontrado', 'factura_no_encontrada')
          : r.ruta === '/v1/facturas/fac_422'
            ? errorApi(422, 'regla_de_negocio', 'timbrado_rechazado', { factura: 'fac_422' })
            : { estado: 502, cuerpo: '<html>Bad Gateway</html>' },
      async (s) => {
        const { sdk } = sdkDePrueba(s.url, { reintentos: 0 });
        await expect(sdk.facturas.obtener('fac_404')).rejects.toBeInstanceOf(ErrorNoEncontrado);
        await expect(sdk.facturas.obtener('fac_422')).rejects.toBeInstanceOf(ErrorReglaDeNegocio);
        const e = await sdk.facturas.obtener('fac_x').catch((x: unknown) => x);
        expect(e).toBeInstanceOf(ErrorServicioNoDisponible);
        expect(e).toMatchObject({ estado: 502, codigo: 'http_502', tipo: 'servicio_no_disponible' });
        expect(ErrorConflicto.prototype).toBeInstanceOf(ErrorApi);
        expect(
          new ErrorSolicitudInvalida(
            { tipo: 'solicitud_invalida', codigo: 'x', mensaje: 'm' },
            {
              estado: 400,
              idSolicitud: null,
              reintentarEnMs: null,
            },
          ).name,
        ).toBe('ErrorSolicitudInvalida');
      },
    ));

  it('Retry-After en segundos o como fecha HTTP', () => {
    expect(leerRetryAfter('3')).toBe(3000);
    expect(leerRetryAfter(null)).toBeNull();
    expect(leerRetryAfter('mañana')).toBeNull();
    const ahora = Date.parse('2026-01-01T00:00:00Z');
    expect(leerRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', ahora)).toBe(5000);
  });
});
