import type { AddressInfo } from 'node:net';
import { request } from 'node:http';
import express from 'express';
import type { Server } from 'node:http';
import { validacionContrato } from '../../api/app';
import { exigirUtf8 } from '../../api/middleware/entrada';
import { manejadorErrores } from '../../api/middleware/manejador-errores';

/**
 * Operations the contract declares without a body, through the contract's checks as the app runs them: the
 * route behind answers 200, so what is refused is refused by the checks.
 */
let servidor: Server;
let base: string;

beforeAll(async () => {
  const app = express();
  app.use((req, _res, next) => {
    (req as unknown as { log: unknown }).log = { info: () => undefined, error: () => undefined };
    next();
  });
  app.use(express.json({ limit: '2mb', verify: exigirUtf8 }));
  app.use(validacionContrato());
  app.use((_req, res) => void res.json({ llego: true }));
  app.use(manejadorErrores);
  servidor = app.listen(0, '127.0.0.1');
  await new Promise((r) => servidor.once('listening', r));
  base = `http://127.0.0.1:${(servidor.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((r) => servidor.close(r)));

/** Raw, so chunked bodies without Content-Length can be sent too. */
function pedir(
  metodo: string,
  ruta: string,
  o: { cuerpo?: string; tipo?: string; fragmentado?: boolean } = {},
): Promise<{ status: number; json: { error?: { tipo: string; codigo: string; parametro?: string } } }> {
  return new Promise((resolver, rechazar) => {
    const headers: Record<string, string> = {};
    if (o.tipo) headers['content-type'] = o.tipo;
    if (o.fragmentado) headers['transfer-encoding'] = 'chunked';
    else if (o.cuerpo !== undefined) headers['content-length'] = String(Buffer.byteLength(o.cuerpo));
    const r = request(`${base}${ruta}`, { method: metodo, headers }, (res) => {
      let texto = '';
      res.on('data', (c) => (texto += c));
      res.on('end', () => resolver({ status: res.statusCode!, json: JSON.parse(texto) }));
    });
    r.on('error', rechazar);
    if (o.cuerpo) r.write(o.cuerpo);
    r.end();
  });
}

const SIN_CUERPO: [string, string][] = [
  ['POST', '/v1/facturas/fac_abc/timbrar'],
  ['POST', '/v1/facturas/fac_abc/timbrado/reintentar'],
  ['DELETE', '/v1/clientes/cli_abc'],
  ['DELETE', '/v1/productos/prod_abc'],
  ['DELETE', '/v1/webhooks/wh_abc'],
  ['DELETE', '/v1/llaves_api/llave_abc'],
];
// Declares an optional `{}` in JSON: the validator judges it, and the others must answer as it does.
const ROTAR: [string, string] = ['POST', '/v1/webhooks/wh_abc/rotar_secreto'];

describe.each([...SIN_CUERPO, ROTAR])('%s %s (no body in the contract)', (metodo, ruta) => {
  it('takes no body, or {} in JSON', async () => {
    expect((await pedir(metodo, ruta)).status).toBe(200);
    expect((await pedir(metodo, ruta, { cuerpo: '{}', tipo: 'application/json' })).status).toBe(200);
    expect((await pedir(metodo, ruta, { cuerpo: '', tipo: 'application/json' })).status).toBe(200);
  });

  it.each([
    ['text/plain', 'hola'],
    ['application/x-www-form-urlencoded', 'a=1'],
    ['application/xml', '<a/>'],
    ['application/octet-stream', '{}'],
  ])('refuses a body in %s with the 415', async (tipo, cuerpo) => {
    for (const fragmentado of [false, true]) {
      const { status, json } = await pedir(metodo, ruta, { cuerpo, tipo, fragmentado });
      expect(status).toBe(415);
      expect(json.error).toMatchObject({
        tipo: 'tipo_de_contenido',
        codigo: 'tipo_de_contenido_no_soportado',
      });
    }
  });
});

it.each(SIN_CUERPO)('%s %s refuses a JSON body with fields: 400 naming the first', async (metodo, ruta) => {
  const { status, json } = await pedir(metodo, ruta, { cuerpo: '{"motivo":"x"}', tipo: 'application/json' });
  expect(status).toBe(400);
  expect(json.error).toMatchObject({ tipo: 'solicitud_invalida', parametro: 'motivo' });
});

it.each(SIN_CUERPO)('%s %s takes an empty body in any type', async (metodo, ruta) => {
  expect((await pedir(metodo, ruta, { cuerpo: '', tipo: 'text/plain' })).status).toBe(200);
  expect((await pedir(metodo, ruta, { cuerpo: '', tipo: 'text/plain', fragmentado: true })).status).toBe(200);
});

it('an operation that takes a body is left to the validator', async () => {
  const { status } = await pedir('POST', '/v1/organizaciones', { cuerpo: 'rfc=x', tipo: 'text/plain' });
  expect(status).toBe(415);
});
