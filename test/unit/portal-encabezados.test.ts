import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { abrirSolicitud, CSP_PORTAL } from '../../api/middleware/contexto';
import { crearLogger } from '../../log/logger';
import { nuevaClaveRecibo } from '../../seguridad/claves-recibo';

/** A response that keeps its headers and can be finished, as Node's would. */
function respuesta() {
  const encabezados: Record<string, string> = {};
  const res = Object.assign(new EventEmitter(), {
    statusCode: 200,
    setHeader: (k: string, v: string) => void (encabezados[k.toLowerCase()] = v),
  });
  return { res: res as unknown as ServerResponse, encabezados, terminar: () => res.emit('finish') };
}

function registro() {
  const lineas: string[] = [];
  const destino = new Writable({
    write(trozo, _c, listo) {
      lineas.push(String(trozo));
      listo();
    },
  });
  return { lineas, logger: crearLogger('prueba', 'info', destino) };
}

const medidor = { solicitud: () => undefined };

describe('respuestas del portal: encabezados y registro', () => {
  it('la página con la clave del QR: CSP estricta, no-store, sin referer; el registro no guarda la clave', async () => {
    const clave = nuevaClaveRecibo();
    const { lineas, logger } = registro();
    const { res, encabezados, terminar } = respuesta();
    const req = { url: `/autofactura?clave=${clave}`, method: 'GET', headers: {} } as IncomingMessage;
    abrirSolicitud(logger, req, res, medidor);
    terminar();
    await new Promise((ok) => setImmediate(ok));
    expect(encabezados).toMatchObject({
      'content-security-policy': CSP_PORTAL,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
    });
    expect(CSP_PORTAL).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(lineas.join('')).toContain('"ruta":"/autofactura"');
    expect(lineas.join('')).not.toContain(clave);
    expect(lineas.join('')).not.toContain(clave.slice(0, 4));
  });

  it('una clave que llegue a un registro por descuido sale redactada', () => {
    const clave = nuevaClaveRecibo();
    const { lineas, logger } = registro();
    logger.info({ clave, cuerpo: { clave }, req: { body: { clave } } }, 'x');
    expect(lineas.join('')).not.toContain(clave);
    expect(lineas.join('')).toContain('[REDACTADO]');
  });

  it('toda ruta del portal lleva la CSP del portal y no-store; las demás no cambian', () => {
    const ver = (url: string) => {
      const { res, encabezados } = respuesta();
      abrirSolicitud(
        registro().logger,
        { url, method: 'POST', headers: {} } as IncomingMessage,
        res,
        medidor,
      );
      return [encabezados['content-security-policy'], encabezados['cache-control']];
    };
    for (const url of ['/autofactura/recibo', '/autofactura/pdf', '/autofactura/autofactura.js'])
      expect(ver(url)).toEqual([CSP_PORTAL, 'no-store']);
    expect(ver('/v1/catalogos/usos_cfdi')).toEqual(["default-src 'none'; frame-ancestors 'none'", undefined]);
    expect(ver('/autofacturas')[0]).not.toBe(CSP_PORTAL);
  });
});
