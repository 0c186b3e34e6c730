import { ErrorDer, extensionesUso, formaLlave, hijos, leerTlv, oid } from '../../cfdi/csd/der';
import { archivoSat, CSD_VALIDO } from '../support/certificados';

const hex = (h: string) => Buffer.from(h.replace(/\s/g, ''), 'hex');

describe('the minimal DER reader', () => {
  it('reads short and long lengths', () => {
    expect(leerTlv(hex('04 03 010203'), 0)).toEqual({ etiqueta: 0x04, inicio: 2, fin: 5 });
    const largo = Buffer.concat([hex('04 82 0100'), Buffer.alloc(256)]);
    expect(leerTlv(largo, 0)).toEqual({ etiqueta: 0x04, inicio: 4, fin: 260 });
  });

  it('refuses truncated values, indefinite lengths and multi-byte tags', () => {
    expect(() => leerTlv(hex('04 05 0102'), 0)).toThrow(ErrorDer);
    expect(() => leerTlv(hex('04'), 0)).toThrow(ErrorDer);
    expect(() => leerTlv(hex('30 80 0000'), 0)).toThrow(ErrorDer);
    expect(() => leerTlv(hex('04 85 0000000001'), 0)).toThrow(ErrorDer);
    expect(() => leerTlv(hex('1f 01 00'), 0)).toThrow(ErrorDer);
    // A child that runs past its parent.
    const padre = leerTlv(hex('30 03 04 05 00 0000'), 0);
    expect(() => hijos(hex('30 03 04 05 00 0000'), padre)).toThrow(ErrorDer);
  });

  it('decodes object identifiers with multi-byte arcs', () => {
    const d = hex('06 09 2a864886f70d01050d');
    expect(oid(d, leerTlv(d, 0))).toBe('1.2.840.113549.1.5.13');
    const e = hex('06 03 551d0f');
    expect(oid(e, leerTlv(e, 0))).toBe('2.5.29.15');
  });

  it('finds no usage extensions where there are none', () => {
    // Certificate ::= SEQUENCE { tbs SEQUENCE { INTEGER 1 } }: no [3] extensions.
    expect(extensionesUso(hex('30 05 30 03 020101'))).toEqual({ usosLlave: null, usosExtendidos: null });
  });

  it('reads the iteration count of the SAT keys and refuses trailing bytes', () => {
    const llave = archivoSat(CSD_VALIDO.key);
    expect(formaLlave(llave)).toEqual({ cifrada: true, iteraciones: 2048 });
    expect(() => formaLlave(Buffer.concat([llave, Buffer.of(0)]))).toThrow(ErrorDer);
  });
});
