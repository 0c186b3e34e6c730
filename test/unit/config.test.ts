import { randomBytes } from 'node:crypto';
import { CLAVE_MAESTRA_DESARROLLO, ConfigError, VARIABLES, cargarConfig } from '../../config/config';

describe('configuración', () => {
  it('tiene valores seguros por defecto para desarrollo local', () => {
    const c = cargarConfig({});
    expect(c.entorno).toBe('development');
    expect(c.api.port).toBe(3000);
    expect(c.databaseUrl).toBe('mysql://root@127.0.0.1:3306/cfdi');
    expect(c.temporal).toEqual({
      address: '127.0.0.1:7233',
      namespace: 'default',
      taskQueue: 'cfdi',
      uiUrl: 'http://localhost:8233',
    });
    expect(c.claveMaestra.clave).toHaveLength(32);
    expect(c.pac.live).toBeUndefined();
  });

  it('lee PORT y trata las variables vacías como no definidas', () => {
    const c = cargarConfig({ PORT: '4100', PAC_LIVE_URL: '' });
    expect(c.api.port).toBe(4100);
    expect(c.pac.live).toBeUndefined();
  });

  it('en production se niega a arrancar sin clave maestra', () => {
    expect(() => cargarConfig({ NODE_ENV: 'production' })).toThrow(/CFDI_CLAVE_MAESTRA: es obligatoria/);
  });

  it('en production rechaza la clave pública de desarrollo', () => {
    expect(() =>
      cargarConfig({ NODE_ENV: 'production', CFDI_CLAVE_MAESTRA: CLAVE_MAESTRA_DESARROLLO }),
    ).toThrow(/clave pública de desarrollo/);
  });

  it('en production acepta una clave de 32 bytes', () => {
    const clave = randomBytes(32);
    const c = cargarConfig({ NODE_ENV: 'production', CFDI_CLAVE_MAESTRA: clave.toString('base64') });
    expect(c.claveMaestra.clave.equals(clave)).toBe(true);
  });

  it('nombra cada variable inválida', () => {
    let error: unknown;
    try {
      cargarConfig({ PORT: 'abc', DATABASE_URL: 'no-es-url', CFDI_CLAVE_MAESTRA: 'corta' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const m = (error as Error).message;
    expect(m).toContain('PORT');
    expect(m).toContain('DATABASE_URL');
    expect(m).toContain('CFDI_CLAVE_MAESTRA: debe ser 32 bytes');
  });

  it('PROXIES_CONFIABLES: vacío = ninguno; acepta IP, IP/prefijo y los rangos con nombre de Express', () => {
    expect(cargarConfig({}).proxiesConfiables).toEqual([]);
    expect(cargarConfig({ PROXIES_CONFIABLES: '' }).proxiesConfiables).toEqual([]);
    expect(
      cargarConfig({ PROXIES_CONFIABLES: 'loopback, 10.0.0.0/8,fd00::/8,192.0.2.7, uniquelocal' })
        .proxiesConfiables,
    ).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8', '192.0.2.7', 'uniquelocal']);
    for (const malo of [
      'cualquiera',
      '10.0.0.0/33',
      'fd00::/129',
      '10.0.0.0/8/1',
      'balanceador:80',
      'loopback,',
    ])
      expect(() => cargarConfig({ PROXIES_CONFIABLES: malo })).toThrow(/PROXIES_CONFIABLES/);
  });

  it('correo: Mailpit de make up por omisión; SMTP_URL sin credenciales (van en SMTP_USUARIO y SMTP_CONTRASENA)', () => {
    expect(cargarConfig({}).correo).toEqual({
      smtpUrl: 'smtp://127.0.0.1:1025',
      smtpUrlTest: undefined,
      usuario: undefined,
      contrasena: undefined,
      remitente: 'facturas@cfdi-api.localhost',
      esperaMaximaS: 600,
      plazoS: 259_200,
    });
    const c = cargarConfig({
      SMTP_URL: 'smtps://smtp.ejemplo.mx:465',
      SMTP_USUARIO: 'u',
      SMTP_CONTRASENA: 'p',
    });
    expect(c.correo).toMatchObject({ smtpUrl: 'smtps://smtp.ejemplo.mx:465', usuario: 'u', contrasena: 'p' });
    for (const malo of ['smtps://u:p@smtp.ejemplo.mx:465', 'http://smtp.ejemplo.mx', 'smtp.ejemplo.mx:25'])
      expect(() => cargarConfig({ SMTP_URL: malo })).toThrow(/SMTP_URL/);
    expect(() => cargarConfig({ CORREO_REMITENTE: 'no-es-correo' })).toThrow(/CORREO_REMITENTE/);
  });

  it('documenta cada variable y ningún secreto tiene valor por defecto', () => {
    for (const [nombre, v] of Object.entries(VARIABLES)) {
      expect(v.descripcion.length).toBeGreaterThan(10);
      if ('secreto' in v && v.secreto) expect('defecto' in v).toBe(false);
      expect(nombre).toMatch(/^[A-Z][A-Z0-9_]+$/);
    }
  });
});
