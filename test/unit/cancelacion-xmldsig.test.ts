import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, sign, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignedXml } from 'xml-crypto';
import { abrirLlave } from '../../cfdi/csd';
import {
  construirCancelacion,
  firmanteConLlave,
  verificarCancelacion,
  type DatosCancelacion,
} from '../../pac/finkok/cancelacion';
import { leerXml } from '../../pac/soap/xml';
import {
  ALGORITMOS_DSIG,
  firmarEnvuelta,
  firmaEnvuelta,
  NS_DSIG,
  verificarEnvuelta,
  type VerificacionFirma,
} from '../../pac/soap/xmldsig';
import { archivoSat, CONTRASENA_PRUEBA, CSD_VALIDO } from '../support/certificados';

/**
 * The cancellation signature through xml-crypto (pac/soap/xmldsig), checked against what it replaced and
 * against libxml2: the same bytes the hand-written C14N + RSA code wrote, and a verification that takes
 * its canonical forms from `xmllint --c14n` instead of from xml-crypto.
 */

const xmllintC14n = (xml: string): string =>
  execFileSync('xmllint', ['--c14n', '-'], { input: xml, encoding: 'utf8' });

const sha = (hash: 'sha1' | 'sha256', texto: string): string =>
  createHash(hash).update(texto, 'utf8').digest('base64');

const entre = (xml: string, etiqueta: string): string => {
  const m = new RegExp(`<${etiqueta}>([^<]*)</${etiqueta}>`).exec(xml);
  if (!m) throw new Error(`sin <${etiqueta}>`);
  return m[1] as string;
};

/**
 * The old verifier's steps with libxml2 as the canonicalizer: digest of the document without its
 * Signature, then the signature over SignedInfo carrying every namespace in scope (inclusive C14N of a
 * subset), declared here on a standalone copy.
 */
function verificarConXmllint(
  xml: string,
  heredados: string,
  llave: KeyObject,
  hash: 'sha1' | 'sha256',
): void {
  const sinFirma = xml.replace(/<Signature [^>]*>[\s\S]*<\/Signature>/, '');
  expect(sha(hash, xmllintC14n(sinFirma))).toBe(entre(xml, 'DigestValue'));
  const info = /<SignedInfo>[\s\S]*<\/SignedInfo>/.exec(xml)?.[0] ?? '';
  const suelta = info.replace('<SignedInfo>', `<SignedInfo xmlns="${NS_DSIG}" ${heredados}>`);
  const valor = Buffer.from(entre(xml, 'SignatureValue'), 'base64');
  expect(verify(hash, Buffer.from(xmllintC14n(suelta), 'utf8'), llave, valor)).toBe(true);
}

const cer = archivoSat(CSD_VALIDO.cer);
const abierta = abrirLlave(archivoSat(CSD_VALIDO.key), CONTRASENA_PRUEBA);
if (!abierta.ok) throw new Error('no abre la llave de prueba');
const llavePrivada = abierta.llave;
const certificado = new X509Certificate(cer);

// Motivo 01 with its replacement, and 02 without: the FolioSustitucion="" case too.
const [UUID_A, UUID_B, UUID_C] = ['a2d530d5', 'b2d530d5', 'c2d530d5'].map(
  (p) => `${p}-86ee-4ed6-afb7-1c965d72a3e2`,
);
const datos: DatosCancelacion = {
  rfcEmisor: CSD_VALIDO.rfc,
  fecha: '2026-11-22T10:00:00',
  folios: [
    { uuid: UUID_A as string, motivo: '01', folioSustitucion: UUID_B as string },
    { uuid: UUID_C as string, motivo: '02' },
  ],
  firmante: firmanteConLlave(cer, llavePrivada),
};

// Written by the hand-written C14N + signature code (commit 44b860d) for `datos`; RSA PKCS#1 v1.5 is
// deterministic, so the same request must come out byte for byte.
const ANTERIOR = readFileSync(
  join(__dirname, '..', 'fixtures', 'cancelacion', 'solicitud-firmada-eku.xml'),
  'utf8',
);

describe('solicitud de cancelación firmada con xml-crypto', () => {
  it('escribe los mismos bytes que el firmador anterior, y ambos verificadores la aceptan', async () => {
    const xml = await construirCancelacion(datos);
    expect(xml).toBe(ANTERIOR);
    // The root's xsd and xsi are in scope at SignedInfo, so inclusive C14N writes them there.
    verificarConXmllint(
      xml,
      'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"',
      certificado.publicKey,
      'sha1',
    );
    expect(verificarCancelacion(xml)).toMatchObject({
      ok: true,
      rfcEmisor: 'EKU9003173C9',
      folios: [
        { uuid: 'A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2', motivo: '01' },
        { uuid: 'C2D530D5-86EE-4ED6-AFB7-1C965D72A3E2', motivo: '02' },
      ],
    });
  });

  it('un firmante asíncrono (la bóveda) firma igual; su error llega al llamador', async () => {
    const asincrono = {
      certificado: cer,
      firmar: async (d: Buffer, h: 'sha1' | 'sha256') => {
        await new Promise((r) => setTimeout(r, 5));
        return sign(h, d, llavePrivada);
      },
    };
    expect(await construirCancelacion({ ...datos, firmante: asincrono })).toBe(ANTERIOR);
    const roto = { certificado: cer, firmar: () => Promise.reject(new Error('bóveda cerrada')) };
    await expect(construirCancelacion({ ...datos, firmante: roto })).rejects.toThrow('bóveda cerrada');
  });

  it('lo que devuelve el verificador sale de los bytes firmados', () => {
    const v = verificarCancelacion(ANTERIOR);
    if (!v.ok) throw new Error(v.motivo);
    expect(v.fecha).toBe('2026-11-22T10:00:00');
    expect(v.certificado.noCertificado).toBe(CSD_VALIDO.noCertificado);
    expect(v.folios[1]).toEqual({ uuid: 'C2D530D5-86EE-4ED6-AFB7-1C965D72A3E2', motivo: '02' });
  });

  it('sin certificado legible en KeyInfo: falla de certificado, pero solo si la digestión cuadra', () => {
    const sinCertificado = ANTERIOR.replace(/<X509Certificate>[^<]*/, '<X509Certificate>AAAA');
    expect(verificarCancelacion(sinCertificado)).toMatchObject({ ok: false, deCertificado: true });
    const ademasAlterada = sinCertificado.replace('Motivo="02"', 'Motivo="03"');
    expect(verificarCancelacion(ademasAlterada)).toMatchObject({
      ok: false,
      motivo: expect.stringMatching(/digestión/),
    });
  });
});

describe('firma envuelta (pac/soap/xmldsig) y C14N inclusiva contra xmllint --c14n', () => {
  const firmar = (xml: string, hash: 'sha1' | 'sha256' = 'sha1'): Promise<string> =>
    firmarEnvuelta(xml, {
      hash,
      firmar: (d, h) => sign(h, d, llavePrivada),
      infoLlave: '<X509Data><X509Certificate>x</X509Certificate></X509Data>',
    });
  const verificar = (
    xml: string,
    llave: KeyObject | undefined = certificado.publicKey,
  ): VerificacionFirma => {
    const raiz = leerXml(xml);
    const firma = firmaEnvuelta(raiz);
    if (!firma) throw new Error('sin firma');
    return verificarEnvuelta(xml, raiz, firma, llave);
  };

  it.each([
    [
      'espacios de nombres, orden de atributos y escapes',
      '<?xml version="1.0"?>\n<a:r xmlns:a="urn:a" xmlns="urn:d" z="1" a:y="2" b="&amp;&lt;&quot;&#9;&#10;&gt;">' +
        '<b xmlns:a="urn:a" xmlns:c="urn:c" c:k="v" k="w">t &amp; &gt; x&#13;<c/></b>\n<d xmlns=""><e xmlns="urn:d"/></d></a:r>',
    ],
    [
      'una solicitud de cancelación con espacios entre elementos',
      '<Cancelacion xmlns="http://cancelacfd.sat.gob.mx" xmlns:xsd="http://www.w3.org/2001/XMLSchema" ' +
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" RfcEmisor="EKU9003173C9" Fecha="2026-11-22T10:00:00">\n  ' +
        '<Folios>\n    <Folio UUID="X" Motivo="02" FolioSustitucion=""/>\n  </Folios>\n</Cancelacion>',
    ],
  ])('%s', async (_nombre, xml) => {
    for (const hash of ['sha1', 'sha256'] as const) {
      const firmado = await firmar(xml, hash);
      const v = verificar(firmado);
      // What xml-crypto digests is libxml2's canonical form, byte for byte.
      expect(v).toEqual({ ok: true, firmado: xmllintC14n(xml) });
      expect(entre(firmado, 'DigestValue')).toBe(sha(hash, xmllintC14n(xml)));
    }
  });

  it('una firma con prefijo ds: declarado en la raíz también se verifica', () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const sx = new SignedXml({
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      canonicalizationAlgorithm: ALGORITMOS_DSIG.c14n,
      signatureAlgorithm: ALGORITMOS_DSIG.rsaSha256,
    });
    sx.addReference({
      xpath: '/*',
      transforms: [ALGORITMOS_DSIG.envuelta],
      digestAlgorithm: ALGORITMOS_DSIG.sha256,
      isEmptyUri: true,
    });
    sx.computeSignature(`<r xmlns:ds="${NS_DSIG}" xmlns:q="urn:q"><q:a>1</q:a></r>`, {
      prefix: 'ds',
      existingPrefixes: { ds: NS_DSIG },
    });
    // xml-crypto repeats the declaration on Signature; without it the prefix comes from the root only.
    const xml = sx.getSignedXml().replace(`<ds:Signature xmlns:ds="${NS_DSIG}">`, '<ds:Signature>');
    expect(xml).toContain('<q:a>1</q:a><ds:Signature><ds:SignedInfo>');
    expect(verificar(xml, publicKey)).toMatchObject({ ok: true });
    expect(verificar(xml)).toMatchObject({ ok: false, causa: 'firma' });
  });

  it('rechaza lo que sale del perfil: C14N exclusiva, otra Reference, una copia de la firma', async () => {
    const base = await firmar('<r><a>1</a></r>');
    const exclusiva = base.replace(
      `<CanonicalizationMethod Algorithm="${ALGORITMOS_DSIG.c14n}"/>`,
      '<CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>',
    );
    expect(verificar(exclusiva)).toMatchObject({ ok: false, causa: 'perfil' });
    const porId = base.replace('<Reference URI="">', '<Reference URI="#a">');
    expect(verificar(porId)).toMatchObject({ ok: false, causa: 'perfil' });
    const firma = /<Signature [\s\S]*<\/Signature>/.exec(base)?.[0] ?? '';
    const duplicada = base.replace('<a>1</a>', `<a>1</a><x>${firma}</x>`);
    expect(verificar(duplicada)).toMatchObject({ ok: false });
    const raiz = leerXml(base);
    expect(verificarEnvuelta(base, raiz, firmaEnvuelta(raiz)!, undefined)).toMatchObject({
      ok: false,
      causa: 'llave',
    });
  });
});
