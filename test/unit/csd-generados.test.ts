import { sign, verify } from 'node:crypto';
import { leerCertificado, validarCsd, type EntradaCsd } from '../../cfdi/csd';
import { generarCsd, type CsdPrueba, type OpcionesCsdPrueba } from '../support/certificados';

const AHORA = new Date('2026-03-01T12:00:00Z');
const ANTES = new Date('2025-03-01T00:00:00Z');
const DESPUES = new Date('2029-03-01T00:00:00Z');

const opciones = (o: OpcionesCsdPrueba = {}): OpcionesCsdPrueba => ({
  validoDesde: ANTES,
  validoHasta: DESPUES,
  ...o,
});

const entrada = (g: CsdPrueba, rfcEsperado: string, e: Partial<EntradaCsd> = {}): EntradaCsd => ({
  cer: g.cer,
  llave: g.llave,
  contrasena: g.contrasena,
  rfcEsperado,
  ahora: AHORA,
  modo: 'test',
  ...e,
});

const codigos = (e: EntradaCsd): string[] => {
  const r = validarCsd(e);
  return r.ok ? [] : r.violaciones.map((v) => v.codigo);
};

describe('generated CSD-like certificates', () => {
  it('read back as the options say', () => {
    const g = generarCsd(
      opciones({
        rfc: 'XIQB891116QE4',
        nombre: 'BERENICE XIMO QUEZADA',
        curp: 'XIQB891116MGRMZR05',
        noCertificado: '30001000000500009999',
      }),
    );
    const c = leerCertificado(g.cer);
    expect(c).toMatchObject({
      noCertificado: '30001000000500009999',
      rfc: 'XIQB891116QE4',
      nombre: 'BERENICE XIMO QUEZADA',
      curp: 'XIQB891116MGRMZR05',
      sucursal: 'Sucursal 1',
      validoDesde: ANTES,
      validoHasta: DESPUES,
      esCsd: true,
      tipo: 'csd',
      emisorEsPrueba: true,
    });
    expect(g.noCertificado).toBe('30001000000500009999');
  });

  it('default serials are 20 digits and unique', () => {
    const a = generarCsd(opciones({ rfc: 'AAA010101AAA' }));
    const b = generarCsd(opciones({ rfc: 'AAA010101AAA', emisor: 'produccion' }));
    expect(a.noCertificado).toMatch(/^3\d{19}$/);
    expect(b.noCertificado).toMatch(/^0\d{19}$/);
    expect(leerCertificado(b.cer).noCertificado).toBe(b.noCertificado);
  });

  it('keeps Ñ and & in RFC and names', () => {
    const g = generarCsd(
      opciones({ rfc: 'HAÑ930228SM9', nombre: 'HERMANOS & ÑARVAEZ SA DE CV', sucursal: 'Matriz Ñ' }),
    );
    expect(leerCertificado(g.cer)).toMatchObject({
      rfc: 'HAÑ930228SM9',
      nombre: 'HERMANOS & ÑARVAEZ SA DE CV',
      sucursal: 'Matriz Ñ',
    });
    expect(codigos(entrada(g, 'HAÑ930228SM9'))).toEqual([]);
  });

  it('the key is a PBES2 des-ede3-cbc PKCS#8 that signs for its certificate', () => {
    const g = generarCsd(opciones());
    // OIDs PBES2 (1.2.840.113549.1.5.13) and des-ede3-cbc (1.2.840.113549.3.7).
    expect(g.llave.includes(Buffer.from('2a864886f70d01050d', 'hex'))).toBe(true);
    expect(g.llave.includes(Buffer.from('2a864886f70d0307', 'hex'))).toBe(true);
    const r = validarCsd(entrada(g, 'EKU9003173C9'));
    if (!r.ok) throw new Error(JSON.stringify(r.violaciones));
    const firma = sign('sha256', Buffer.from('||4.0|A|1|'), r.llave);
    expect(verify('sha256', Buffer.from('||4.0|A|1|'), r.certificado.x509.publicKey, firma)).toBe(true);
  });
});

describe('validarCsd with generated certificates', () => {
  it('accepts a test-CA CSD in test mode and refuses it in live mode', () => {
    const g = generarCsd(opciones());
    expect(codigos(entrada(g, 'EKU9003173C9'))).toEqual([]);
    expect(codigos(entrada(g, 'EKU9003173C9', { modo: 'live' }))).toEqual(['certificado_de_prueba']);
  });

  it('accepts a production-CA CSD in both modes', () => {
    const g = generarCsd(opciones({ emisor: 'produccion', rfc: 'URE180429TM6' }));
    expect(leerCertificado(g.cer).emisorEsPrueba).toBe(false);
    expect(codigos(entrada(g, 'URE180429TM6', { modo: 'live' }))).toEqual([]);
    expect(codigos(entrada(g, 'URE180429TM6', { modo: 'test' }))).toEqual([]);
  });

  it('refuses a certificate not yet valid with certificado_aun_no_vigente', () => {
    const g = generarCsd(opciones({ validoDesde: new Date('2026-06-01T00:00:00Z') }));
    const r = validarCsd(entrada(g, 'EKU9003173C9'));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.violaciones).toEqual([
      expect.objectContaining({
        codigo: 'certificado_aun_no_vigente',
        mensaje: expect.stringContaining('2026-06-01'),
      }),
    ]);
  });

  it('validity includes both ends, to the second', () => {
    const desde = new Date('2026-01-01T00:00:00Z');
    const hasta = new Date('2026-12-31T23:59:59Z');
    const g = generarCsd({ validoDesde: desde, validoHasta: hasta });
    const en = (t: number) => codigos(entrada(g, 'EKU9003173C9', { ahora: new Date(t) }));
    expect(en(desde.getTime())).toEqual([]);
    expect(en(hasta.getTime())).toEqual([]);
    expect(en(desde.getTime() - 1)).toEqual(['certificado_aun_no_vigente']);
    expect(en(hasta.getTime() + 1)).toEqual(['certificado_vencido']);
  });

  it('refuses another RFC, persona física or moral', () => {
    const fisica = generarCsd(opciones({ rfc: 'KAHO641101B39', nombre: 'OSCAR KALA HAAK' }));
    expect(codigos(entrada(fisica, 'KAHO641101B39'))).toEqual([]);
    expect(codigos(entrada(fisica, 'EKU9003173C9'))).toEqual(['rfc_no_coincide']);
    const moral = generarCsd(opciones({ rfc: 'XIA190128J61', rfcRepresentante: 'KAHO641101B39' }));
    expect(leerCertificado(moral.cer).rfc).toBe('XIA190128J61');
    // The legal representative's RFC is in the certificate too, but it is not the holder's.
    expect(codigos(entrada(moral, 'KAHO641101B39'))).toEqual(['rfc_no_coincide']);
  });

  it('refuses a generated FIEL', () => {
    const g = generarCsd(opciones({ tipo: 'fiel', rfc: 'FUNK671228PH6' }));
    expect(leerCertificado(g.cer)).toMatchObject({ tipo: 'fiel', esCsd: false, sucursal: null });
    expect(codigos(entrada(g, 'FUNK671228PH6'))).toEqual(['certificado_no_es_csd']);
  });

  it('refuses a CSD-shaped certificate without the OU, or with FIEL key usage plus an OU', () => {
    const sinSucursal = generarCsd(opciones({ sucursal: null }));
    expect(leerCertificado(sinSucursal.cer).tipo).toBe('otro');
    const r = validarCsd(entrada(sinSucursal, 'EKU9003173C9'));
    expect(r.ok ? [] : r.violaciones).toEqual([
      expect.objectContaining({ codigo: 'certificado_no_es_csd', mensaje: expect.stringMatching(/OU/) }),
    ]);
    const fielConSucursal = generarCsd(opciones({ tipo: 'fiel', sucursal: 'Sucursal 1' }));
    expect(leerCertificado(fielConSucursal.cer).tipo).toBe('otro');
    expect(codigos(entrada(fielConSucursal, 'EKU9003173C9'))).toEqual(['certificado_no_es_csd']);
  });

  it('refuses a serial number that is not a SAT NoCertificado', () => {
    const g = generarCsd(opciones({ serieHex: '0f1e2d3c4b5a69788796' }));
    expect(leerCertificado(g.cer).noCertificado).toBe('0F1E2D3C4B5A69788796');
    expect(codigos(entrada(g, 'EKU9003173C9'))).toEqual(['certificado_no_es_csd']);
  });

  it('refuses the key of another generated certificate with llave_no_corresponde', () => {
    const a = generarCsd(opciones({ llave: 0 }));
    const b = generarCsd(opciones({ llave: 1, contrasena: 'otra-contrasena' }));
    expect(codigos(entrada(a, 'EKU9003173C9', { llave: b.llave, contrasena: b.contrasena }))).toEqual([
      'llave_no_corresponde',
    ]);
    expect(codigos(entrada(a, 'EKU9003173C9', { llave: b.llave }))).toEqual(['contrasena_incorrecta']);
  });

  it('reports every independent problem, certificate before key', () => {
    const g = generarCsd({
      validoDesde: new Date('2020-01-01T00:00:00Z'),
      validoHasta: new Date('2024-01-01T00:00:00Z'),
    });
    expect(codigos(entrada(g, 'URE180429TM6', { modo: 'live', contrasena: 'mala' }))).toEqual([
      'rfc_no_coincide',
      'certificado_vencido',
      'certificado_de_prueba',
      'contrasena_incorrecta',
    ]);
  });
});
