import { Writable } from 'node:stream';
import { crearLogger } from '../../log/logger';

function capturar() {
  const lineas: string[] = [];
  const destino = new Writable({
    write(chunk, _enc, cb) {
      lineas.push(String(chunk));
      cb();
    },
  });
  return { lineas, logger: crearLogger('prueba', 'info', destino) };
}

describe('logs estructurados', () => {
  it('nunca escriben credenciales, llaves ni secretos', () => {
    const { lineas, logger } = capturar();
    logger.info(
      {
        req: { headers: { authorization: 'Basic c2tfdGVzdF9hYmM6' } },
        body: { contrasena: '12345678a', llave: 'MIIE-llave-privada', secreto: 'sk_test_abc' },
        webhook: { secreto_firma: 'whsec_xyz' },
      },
      'solicitud',
    );
    const texto = lineas.join('');
    for (const s of ['c2tfdGVzdF9hYmM6', '12345678a', 'MIIE-llave-privada', 'sk_test_abc', 'whsec_xyz']) {
      expect(texto).not.toContain(s);
    }
    expect(texto).toContain('[REDACTADO]');
  });

  it('escribe JSON con proceso, nivel y mensaje', () => {
    const { lineas, logger } = capturar();
    logger.child({ request_id: 'req_1' }).warn({ codigo: 'x' }, 'hola');
    const l = JSON.parse(lineas[0]!);
    expect(l).toMatchObject({
      proceso: 'prueba',
      nivel: 'warn',
      mensaje: 'hola',
      request_id: 'req_1',
      codigo: 'x',
    });
    expect(typeof l.time).toBe('string');
  });
});
