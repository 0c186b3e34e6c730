import { createHmac } from 'node:crypto';
import {
  encabezadosFirma,
  firmaConTiempo,
  firmaCuerpo,
  nuevoSecretoWebhook,
  PREFIJO_SECRETO,
  verificarFirmaConTiempo,
  verificarFirmaCuerpo,
} from '../../webhooks/firma';

const SECRETO = 'whsec_c2VjcmV0by1kZS1wcnVlYmEtcGFyYS1maXJtYXM';
const ANTERIOR = 'whsec_YW50ZXJpb3ItZGUtcHJ1ZWJhLXBhcmEtZmlybWFz';
const CUERPO = Buffer.from('{"id":"evt_01","tipo":"factura.timbrada","datos":{"total":"116.00"}}', 'utf8');
const T = 1_767_225_600; // 2026-01-01T00:00:00Z

/** The receiver's side, written out here rather than reusing the module under test. */
const hmacHex = (clave: string, datos: Buffer | string) =>
  createHmac('sha256', Buffer.from(clave, 'utf8')).update(datos).digest('hex');

describe('webhooks: secrets', () => {
  it('are whsec_ + 32 random bytes in base64url without padding', () => {
    const s = nuevoSecretoWebhook();
    expect(PREFIJO_SECRETO).toBe('whsec_');
    expect(s).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(s.slice(6), 'base64url')).toHaveLength(32);
    expect(new Set(Array.from({ length: 50 }, nuevoSecretoWebhook)).size).toBe(50);
  });
});

describe('webhooks: signatures', () => {
  it('signs the raw body with the whole secret string as the key (known answer)', () => {
    const esperada = hmacHex(SECRETO, CUERPO);
    expect(firmaCuerpo(CUERPO, SECRETO)).toBe(esperada);
    expect(firmaCuerpo(CUERPO, SECRETO)).toMatch(/^[0-9a-f]{64}$/);
    // The prefix is part of the key: signing with the part after it gives something else.
    expect(firmaCuerpo(CUERPO, SECRETO)).not.toBe(hmacHex(SECRETO.slice(6), CUERPO));
  });

  it('a fixed vector: HMAC-SHA256("whsec_prueba", "{}")', () => {
    expect(firmaCuerpo(Buffer.from('{}'), 'whsec_prueba')).toBe(hmacHex('whsec_prueba', '{}'));
    expect(firmaCuerpo(Buffer.from('{}'), 'whsec_prueba')).toBe(
      createHmac('sha256', 'whsec_prueba').update('{}').digest('hex'),
    );
  });

  it('the timed signature covers "<t>." followed by the raw body', () => {
    const f = firmaConTiempo(CUERPO, [SECRETO], T);
    const esperada = hmacHex(SECRETO, Buffer.concat([Buffer.from(`${T}.`), CUERPO]));
    expect(f).toBe(`t=${T},v1=${esperada}`);
    expect(f).not.toContain(firmaCuerpo(CUERPO, SECRETO));
  });

  it('two secrets give two v1, newest first', () => {
    const f = firmaConTiempo(CUERPO, [SECRETO, ANTERIOR], T);
    const firmado = Buffer.concat([Buffer.from(`${T}.`), CUERPO]);
    expect(f).toBe(`t=${T},v1=${hmacHex(SECRETO, firmado)},v1=${hmacHex(ANTERIOR, firmado)}`);
  });

  it('headers: the previous signature appears only during a rotation', () => {
    expect(encabezadosFirma(CUERPO, [SECRETO], T)).toEqual({
      'X-Facturacion-Firma': hmacHex(SECRETO, CUERPO),
      'X-Facturacion-Firma-Tiempo': firmaConTiempo(CUERPO, [SECRETO], T),
    });
    expect(encabezadosFirma(CUERPO, [SECRETO, ANTERIOR], T)).toEqual({
      'X-Facturacion-Firma': hmacHex(SECRETO, CUERPO),
      'X-Facturacion-Firma-Anterior': hmacHex(ANTERIOR, CUERPO),
      'X-Facturacion-Firma-Tiempo': firmaConTiempo(CUERPO, [SECRETO, ANTERIOR], T),
    });
  });

  it('refuses no secret, more than two, an empty one or a bad time', () => {
    expect(() => encabezadosFirma(CUERPO, [], T)).toThrow(TypeError);
    expect(() => encabezadosFirma(CUERPO, [SECRETO, ANTERIOR, 'whsec_x'], T)).toThrow(TypeError);
    expect(() => firmaCuerpo(CUERPO, '')).toThrow(TypeError);
    expect(() => firmaConTiempo(CUERPO, [SECRETO], 1.5)).toThrow(TypeError);
    expect(() => firmaConTiempo(CUERPO, [], T)).toThrow(TypeError);
  });
});

describe('webhooks: what a receiver verifies', () => {
  const encabezado = firmaConTiempo(CUERPO, [SECRETO, ANTERIOR], T);

  it('accepts the body signature, case-insensitively, and refuses tampering and other secrets', () => {
    const firma = firmaCuerpo(CUERPO, SECRETO);
    expect(verificarFirmaCuerpo(CUERPO, firma, SECRETO)).toBe(true);
    expect(verificarFirmaCuerpo(CUERPO, firma.toUpperCase(), SECRETO)).toBe(true);
    expect(
      verificarFirmaCuerpo(Buffer.from(CUERPO.toString().replace('116.00', '1.00')), firma, SECRETO),
    ).toBe(false);
    expect(verificarFirmaCuerpo(CUERPO, firma, ANTERIOR)).toBe(false);
    expect(verificarFirmaCuerpo(CUERPO, firma.slice(0, 63), SECRETO)).toBe(false);
    expect(verificarFirmaCuerpo(CUERPO, '', SECRETO)).toBe(false);
  });

  it('accepts the timed signature with either secret of a rotation, within the tolerance', () => {
    expect(verificarFirmaConTiempo(CUERPO, encabezado, SECRETO, T)).toBe(true);
    expect(verificarFirmaConTiempo(CUERPO, encabezado, ANTERIOR, T + 300)).toBe(true);
    expect(verificarFirmaConTiempo(CUERPO, encabezado, SECRETO, T - 300)).toBe(true);
  });

  it('refuses a tampered body, a wrong secret and an old or future timestamp', () => {
    const alterado = Buffer.from(CUERPO);
    alterado[10] = alterado[10]! ^ 1;
    expect(verificarFirmaConTiempo(alterado, encabezado, SECRETO, T)).toBe(false);
    expect(verificarFirmaConTiempo(CUERPO, encabezado, 'whsec_otro', T)).toBe(false);
    expect(verificarFirmaConTiempo(CUERPO, encabezado, SECRETO, T + 301)).toBe(false);
    expect(verificarFirmaConTiempo(CUERPO, encabezado, SECRETO, T - 301)).toBe(false);
    expect(verificarFirmaConTiempo(CUERPO, encabezado, SECRETO, T + 3600, 7200)).toBe(true);
  });

  it('refuses a timestamp changed after signing (the time is signed too)', () => {
    const movido = encabezado.replace(`t=${T}`, `t=${T + 100}`);
    expect(verificarFirmaConTiempo(CUERPO, movido, SECRETO, T + 100)).toBe(false);
  });

  it('refuses malformed headers', () => {
    const v1 = encabezado.split(',')[1]!;
    for (const h of [
      '',
      v1,
      `t=${T}`,
      `t=abc,${v1}`,
      `t=${T},t=${T},${v1}`,
      `t=${T},${v1},basura`,
      `v0=x,t=${T}`,
    ]) {
      expect(verificarFirmaConTiempo(CUERPO, h, SECRETO, T)).toBe(false);
    }
    // Unknown schemes are ignored, not fatal.
    expect(verificarFirmaConTiempo(CUERPO, `t=${T},v0=abc,${v1}`, SECRETO, T)).toBe(true);
  });
});
