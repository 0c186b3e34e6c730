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

  it('un error bajo `error` (como lo registra el SDK de Temporal) sale con mensaje, tipo, código y causa, no {}', () => {
    const { lineas, logger } = capturar();
    const causa = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED' });
    class ActivityFailure extends Error {}
    const err = new ActivityFailure('la actividad falló', { cause: causa });
    logger.warn({ error: err }, 'Activity failed');
    const l = JSON.parse(lineas[0]!);
    expect(l.error).toMatchObject({
      type: 'ActivityFailure',
      message: expect.stringContaining('la actividad falló'),
    });
    expect(l.error.stack).toContain('la actividad falló');
    expect(JSON.stringify(l.error)).toContain('ECONNREFUSED');
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

/** An error as knex 3 over mysql2 throws it (shape taken from a real failed insert). */
function errorDeKnex(valor: string) {
  const sql = `insert into \`facturas\` (\`documento\`, \`id\`) values ('{"descripcion":"${valor}"}', 'fac_1')`;
  const sqlMessage = `Incorrect string value: '${valor}' for column \`cfdi\`.\`facturas\`.\`documento\` at row 1`;
  const e = Object.assign(new Error(sqlMessage), {
    code: 'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD',
    errno: 1366,
    sqlState: '22007',
    sqlMessage,
    sql,
  });
  e.message = `${sql} - ${sqlMessage}`;
  e.stack = `Error: ${e.message}\n    at Packet.asError (packet.js:740:17)`;
  return Object.assign(e, { bindings: [valor, 'fac_1'] });
}

describe('errores de base de datos en los logs', () => {
  it('no llevan la sentencia ni los valores de la fila; sí el código, errno, sqlState y el texto', () => {
    const { lineas, logger } = capturar();
    logger.error({ err: errorDeKnex('DATO-PRIVADO-123') }, 'error no controlado');
    const texto = lineas.join('');
    expect(texto).not.toContain('DATO-PRIVADO-123');
    expect(texto).not.toContain('insert into');
    const { err } = JSON.parse(lineas[0]!);
    expect(err).toMatchObject({ code: 'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD', errno: 1366, sqlState: '22007' });
    expect(err.message).toBe(
      "Incorrect string value: '[REDACTADO]' for column `cfdi`.`facturas`.`documento` at row 1",
    );
    expect(err.stack).toMatch(/^Error: Incorrect string value: '\[REDACTADO\]'[^\n]*\n\s+at Packet/);
    for (const k of ['sql', 'bindings']) expect(err).not.toHaveProperty(k);
  });

  it('tampoco cuando el error de knex viaja como causa o dentro de otro error', () => {
    const { lineas, logger } = capturar();
    const causa = errorDeKnex('DATO-PRIVADO-456');
    logger.error({ err: new Error('al guardar la factura', { cause: causa }) }, 'uno');
    logger.error({ err: Object.assign(new Error('registro duplicado'), { causa }) }, 'dos');
    logger.error(causa, 'tres');
    const texto = lineas.join('');
    expect(lineas).toHaveLength(3);
    expect(texto).not.toContain('DATO-PRIVADO-456');
    expect(texto).not.toContain('insert into');
    expect(JSON.parse(lineas[0]!).err.message).toContain('al guardar la factura');
  });

  it('un duplicado no muestra el valor de la clave única', () => {
    const { lineas, logger } = capturar();
    const e = Object.assign(new Error("Duplicate entry 'EKU9003173C9-test' for key 'rfc'"), {
      code: 'ER_DUP_ENTRY',
      errno: 1062,
    });
    logger.error({ err: e }, 'x');
    expect(lineas.join('')).not.toContain('EKU9003173C9');
    expect(JSON.parse(lineas[0]!).err.message).toBe("Duplicate entry '[REDACTADO]' for key 'rfc'");
  });
});
