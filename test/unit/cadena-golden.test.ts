import { X509Certificate } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { cadenaOriginal, cadenaTfd } from '../../cfdi/cadena';
import { verificarSello } from '../../cfdi/sello';
import { extraerTimbre, verificarTimbre } from '../../cfdi/timbre';
import type { Nodo } from '../../cfdi/xml/nodo';
import { parsear } from '../../cfdi/xml/parsear';
import {
  archivosDeEjemplo,
  cadenaTfdDeComprobantePorXslt,
  DIRECTORIO_EJEMPLOS,
  DIRECTORIO_SAT,
  xsltprocArchivo,
} from '../support/xslt';

// Every example of ../shared/sat/examples: our cadena against the stored golden one and against the SAT
// XSLT run by xsltproc; seals and stamps verified.

const CERTIFICADOS_PAC = join(DIRECTORIO_SAT, 'csd', 'sat-pac-tfd-certs');

const archivos = archivosDeEjemplo();
const nombre = (archivo: string): string => relative(DIRECTORIO_EJEMPLOS, archivo);
const vecino = (archivo: string, sufijo: string): string =>
  join(dirname(archivo), basename(archivo, '.xml') + sufijo);
const leer = (archivo: string): string => readFileSync(archivo, 'utf8');

// Stamped by a real PAC / the SAT sandbox (README of the examples): their SelloSAT verifies.
const TIMBRADOS = [
  'signed/ingreso-real-stamped-pue-iva16.xml',
  'signed/ingreso-sandbox-stamped-descuento.xml',
];

describe('ejemplos dorados del SAT', () => {
  it('encuentra los ejemplos de las tres carpetas', () => {
    const carpetas = new Set(archivos.map((a) => nombre(a).split('/')[0]));
    expect([...carpetas].sort()).toEqual(['pagos20-calculator-cases', 'signed', 'unsigned-structure-gobl']);
    expect(archivos.length).toBeGreaterThanOrEqual(22);
  });

  describe.each(archivos.map((a) => [nombre(a), a]))('%s', (_n, archivo) => {
    const xml = leer(archivo);
    const comprobante = parsear(xml);
    const cadena = cadenaOriginal(comprobante);

    it('la cadena original es la del XSLT del SAT (xsltproc)', () => {
      expect(cadena).toBe(xsltprocArchivo(archivo));
    });

    const dorada = vecino(archivo, '.cadena.txt');
    if (existsSync(dorada)) {
      it('la cadena original es la guardada en .cadena.txt', () => {
        expect(cadena).toBe(leer(dorada));
      });
    }

    if (nombre(archivo).startsWith('signed/')) {
      it('el Sello verifica con el Certificado incluido', () => {
        const { Sello: sello, Certificado: certificado } = comprobante.atributos;
        const x509 = new X509Certificate(Buffer.from(certificado ?? '', 'base64'));
        expect(verificarSello(cadena, sello ?? '', x509)).toBe(true);
      });
    }

    const tfd = extraerTimbre(comprobante);
    if (tfd) {
      it('la cadena del TFD es la del XSLT del SAT', () => {
        expect(cadenaTfd(tfd)).toBe(cadenaTfdDeComprobantePorXslt(comprobante));
      });
    }
    const doradaTfd = vecino(archivo, '.tfd-cadena.txt');
    if (existsSync(doradaTfd)) {
      it('la cadena del TFD es la guardada en .tfd-cadena.txt', () => {
        expect(cadenaTfd(tfd as Nodo)).toBe(leer(doradaTfd));
      });
    }

    if (TIMBRADOS.includes(nombre(archivo))) {
      it('el timbre verifica con el certificado del SAT/PAC de su NoCertificadoSAT', () => {
        const no = tfd?.atributos['NoCertificadoSAT'];
        const certificado = new X509Certificate(readFileSync(join(CERTIFICADOS_PAC, `${no}.cer`)));
        expect(verificarTimbre(comprobante, certificado)).toBe(true);
        // Any other SAT certificate must not verify it.
        const otro = readdirSync(CERTIFICADOS_PAC).find((f) => f !== `${no}.cer`) as string;
        expect(
          verificarTimbre(comprobante, new X509Certificate(readFileSync(join(CERTIFICADOS_PAC, otro)))),
        ).toBe(false);
      });
    }
  });
});
