import { createPrivateKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';
import { abrirLlave, validarCsd, type EntradaCsd } from '../../cfdi/csd';
import { archivoSat, CSD_VALIDO, DIRECTORIO_CSD_SAT, manifiestoCsd } from '../support/certificados';

const valido = (): EntradaCsd => ({
  cer: archivoSat(CSD_VALIDO.cer),
  llave: archivoSat(CSD_VALIDO.key),
  contrasena: '12345678a',
  rfcEsperado: CSD_VALIDO.rfc,
  ahora: CSD_VALIDO.vigente,
  modo: 'test',
});

const codigos = (entrada: EntradaCsd): string[] => {
  const r = validarCsd(entrada);
  return r.ok ? [] : r.violaciones.map((v) => v.codigo);
};

describe('validarCsd with the SAT test files', () => {
  it('accepts the valid test CSD in test mode', () => {
    const r = validarCsd(valido());
    if (!r.ok) throw new Error(JSON.stringify(r.violaciones));
    expect(r.certificado.noCertificado).toBe(CSD_VALIDO.noCertificado);
    expect(r.certificado.rfc).toBe('EKU9003173C9');
    expect(r.certificado.emisorEsPrueba).toBe(true);
    expect(r.llave.type).toBe('private');
  });

  it('its key reproduces the Sello of a golden invoice byte for byte, and the certificate verifies it', () => {
    const r = validarCsd(valido());
    if (!r.ok) throw new Error('the valid CSD was refused');
    const ejemplos = join(DIRECTORIO_CSD_SAT, '..', 'examples', 'signed');
    const xml = readFileSync(join(ejemplos, 'ingreso-usd-descuentos-signed-eku.xml'), 'utf8');
    const cadena = readFileSync(join(ejemplos, 'ingreso-usd-descuentos-signed-eku.cadena.txt'));
    const sello = sign('sha256', cadena, r.llave).toString('base64');
    expect(sello).toBe(/\sSello="([^"]+)"/.exec(xml)?.[1]);
    expect(/\sCertificado="([^"]+)"/.exec(xml)?.[1]).toBe(r.certificado.certificadoBase64);
    expect(verify('sha256', cadena, r.certificado.x509.publicKey, Buffer.from(sello, 'base64'))).toBe(true);
    expect(
      verify(
        'sha256',
        Buffer.from('otra cadena'),
        r.certificado.x509.publicKey,
        Buffer.from(sello, 'base64'),
      ),
    ).toBe(false);
  });

  it('refuses the test CSD in live mode with certificado_de_prueba', () => {
    const r = validarCsd({ ...valido(), modo: 'live' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.violaciones).toEqual([
      expect.objectContaining({
        codigo: 'certificado_de_prueba',
        parametro: 'cer',
        mensaje: expect.stringMatching(/AC UAT/),
      }),
    ]);
  });

  it('refuses a wrong password with contrasena_incorrecta and never repeats it', () => {
    const contrasena = 'Secreto-Que-No-Debe-Salir-42';
    const r = validarCsd({ ...valido(), contrasena });
    expect(r).toEqual({
      ok: false,
      violaciones: [expect.objectContaining({ codigo: 'contrasena_incorrecta', parametro: 'contrasena' })],
    });
    expect(JSON.stringify(r)).not.toContain(contrasena);
    expect(codigos({ ...valido(), contrasena: '' })).toEqual(['contrasena_incorrecta']);
    expect(codigos({ ...valido(), contrasena: '12345678A' })).toEqual(['contrasena_incorrecta']);
  });

  it('refuses the key of another CSD with llave_no_corresponde', () => {
    expect(
      codigos({
        ...valido(),
        llave: archivoSat('expired-2023-sat-test-set/persona-moral/EKU9003173C9_CSD.key'),
      }),
    ).toEqual(['llave_no_corresponde']);
    expect(codigos({ ...valido(), llave: archivoSat('valid-fiel/CACX7605101P8_FIEL.key') })).toEqual([
      'llave_no_corresponde',
    ]);
  });

  it('refuses a FIEL (with its own key, in force) with certificado_no_es_csd', () => {
    const r = validarCsd({
      ...valido(),
      cer: archivoSat('valid-fiel/CACX7605101P8_FIEL.cer'),
      llave: archivoSat('valid-fiel/CACX7605101P8_FIEL.key'),
      rfcEsperado: 'CACX7605101P8',
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.violaciones).toEqual([
      expect.objectContaining({
        codigo: 'certificado_no_es_csd',
        mensaje: expect.stringMatching(/e\.firma \(FIEL\)/),
      }),
    ]);
  });

  it('a FIEL certificate with a CSD key reports the FIEL first', () => {
    expect(
      codigos({
        ...valido(),
        cer: archivoSat('valid-fiel/FUNK671228PH6_FIEL.cer'),
        rfcEsperado: 'FUNK671228PH6',
      }),
    ).toEqual(['certificado_no_es_csd', 'llave_no_corresponde']);
  });

  it('refuses another organization RFC with rfc_no_coincide, naming both', () => {
    const r = validarCsd({ ...valido(), rfcEsperado: 'URE180429TM6' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.violaciones).toHaveLength(1);
    expect(r.violaciones[0]).toMatchObject({ codigo: 'rfc_no_coincide', parametro: 'cer' });
    expect(r.violaciones[0]?.mensaje).toContain('EKU9003173C9');
    expect(r.violaciones[0]?.mensaje).toContain('URE180429TM6');
  });

  it('compares the RFC without regard to case or surrounding spaces', () => {
    expect(codigos({ ...valido(), rfcEsperado: ' eku9003173c9 ' })).toEqual([]);
  });

  const expirados = manifiestoCsd().filter((f) => f.tipo === 'CSD' && f.cer.startsWith('expired-'));

  it.each(expirados.map((f) => [f.cer, f] as const))('%s is refused as certificado_vencido', (_, fila) => {
    const r = validarCsd({
      cer: archivoSat(fila.cer),
      llave: archivoSat(fila.key),
      contrasena: fila.contrasena,
      rfcEsperado: fila.rfc,
      ahora: CSD_VALIDO.vigente,
      modo: 'test',
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.violaciones.map((v) => v.codigo)).toEqual(['certificado_vencido']);
    expect(r.violaciones[0]?.mensaje).toContain(fila.validoHasta.toISOString().slice(0, 10));
  });

  it('accepts an expired CSD at a moment inside its validity', () => {
    const fila = expirados[0];
    if (!fila) throw new Error('no expired CSD in the manifest');
    expect(
      codigos({
        cer: archivoSat(fila.cer),
        llave: archivoSat(fila.key),
        contrasena: fila.contrasena,
        rfcEsperado: fila.rfc,
        ahora: new Date((fila.validoDesde.getTime() + fila.validoHasta.getTime()) / 2),
        modo: 'test',
      }),
    ).toEqual([]);
  });

  it('an expired FIEL gets both refusals', () => {
    expect(
      codigos({
        ...valido(),
        cer: archivoSat('expired-2021-aaa010101aaa/AAA010101AAA_FIEL.cer'),
        llave: archivoSat('expired-2021-aaa010101aaa/AAA010101AAA_FIEL.key'),
        rfcEsperado: 'AAA010101AAA',
      }),
    ).toEqual(['certificado_no_es_csd', 'certificado_vencido']);
  });

  it('refuses unreadable files with certificado_ilegible and llave_ilegible', () => {
    expect(codigos({ ...valido(), cer: Buffer.from('hola') })).toEqual(['certificado_ilegible']);
    expect(codigos({ ...valido(), llave: Buffer.from('hola') })).toEqual(['llave_ilegible']);
    expect(codigos({ ...valido(), llave: Buffer.alloc(0) })).toEqual(['llave_ilegible']);
    expect(codigos({ ...valido(), llave: archivoSat(CSD_VALIDO.key).subarray(0, 600) })).toEqual([
      'llave_ilegible',
    ]);
    // The two files swapped: both reported.
    expect(
      codigos({ ...valido(), cer: archivoSat(CSD_VALIDO.key), llave: archivoSat(CSD_VALIDO.cer) }),
    ).toEqual(['certificado_ilegible', 'llave_ilegible']);
  });

  it('a corrupted ciphertext inside a well-formed key reads as a wrong password', () => {
    const llave = Buffer.from(archivoSat(CSD_VALIDO.key));
    llave[llave.length - 3] = (llave[llave.length - 3] as number) ^ 0xff;
    expect(codigos({ ...valido(), llave })).toEqual(['contrasena_incorrecta']);
  });

  it('no message ever carries the password or key bytes', () => {
    const contrasena = 'zz-contrasena-unica-zz';
    const llave = archivoSat(CSD_VALIDO.key);
    const casos: EntradaCsd[] = [
      { ...valido(), contrasena },
      { ...valido(), contrasena, modo: 'live', rfcEsperado: 'XIA190128J61', ahora: new Date('2030-01-01') },
      { ...valido(), contrasena, cer: llave },
      { ...valido(), contrasena, llave: llave.subarray(0, 100) },
    ];
    const trozos = [llave.toString('base64').slice(100, 140), llave.toString('hex').slice(200, 260)];
    for (const caso of casos) {
      const r = validarCsd(caso);
      expect(r.ok).toBe(false);
      const texto = JSON.stringify(r);
      expect(texto).not.toContain(contrasena);
      for (const t of trozos) expect(texto).not.toContain(t);
    }
  });
});

describe('abrirLlave', () => {
  // forge writes PBES2/PBKDF2 for 'aes256' and the PKCS#12 scheme for '3des': both carry a count.
  it.each([
    ['PBES2 + PBKDF2', 'aes256', [0, 1, 0, 1, 1]],
    ['PKCS#12 PBE', '3des', [0, 1, 1]],
  ] as const)('rejects a %s key asking for too many iterations, without trying it', (_, algorithm, ruta) => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const info = forge.pki.wrapRsaPrivateKey(
      forge.pki.privateKeyToAsn1(
        forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }) as string),
      ),
    );
    const cifrada = forge.pki.encryptPrivateKeyInfo(info, 'clave', { algorithm, count: 4096 });
    const der = (asn1: forge.asn1.Asn1) => Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
    // Rewrite the iteration count in place (forge recomputes the lengths): deriving a key with that
    // many rounds would take minutes, so the test only passes if the count is checked first.
    const conIteraciones = (n: number) => {
      const copia = forge.asn1.fromDer(forge.asn1.toDer(cifrada));
      const nodo = ruta.reduce(
        (a: forge.asn1.Asn1, i: number) => (a.value as forge.asn1.Asn1[])[i] as forge.asn1.Asn1,
        copia,
      );
      nodo.value = forge.asn1.integerToDer(n).getBytes();
      return der(copia);
    };

    // A key written by another encoder opens, and the count sits where the rewrite expects it.
    expect(conIteraciones(4096).equals(der(cifrada))).toBe(true);
    expect(abrirLlave(der(cifrada), 'clave').ok).toBe(true);

    const inicio = Date.now();
    const bomba = abrirLlave(conIteraciones(50_000_000), 'clave');
    expect(Date.now() - inicio).toBeLessThan(1000);
    expect(bomba).toEqual({
      ok: false,
      violaciones: [
        expect.objectContaining({
          codigo: 'llave_ilegible',
          mensaje: expect.stringMatching(/50000000 iteraciones/),
        }),
      ],
    });
  });

  it('accepts an unencrypted PKCS#8 key and a PEM one', () => {
    const abierta = abrirLlave(archivoSat(CSD_VALIDO.key), '12345678a');
    if (!abierta.ok) throw new Error('the valid key did not open');
    const sinCifrar = abierta.llave.export({ format: 'der', type: 'pkcs8' });
    expect(abrirLlave(sinCifrar, 'cualquiera').ok).toBe(true);
    const pem = abierta.llave.export({
      format: 'pem',
      type: 'pkcs8',
      cipher: 'aes-256-cbc',
      passphrase: 'otra',
    }) as string;
    expect(abrirLlave(Buffer.from(pem), 'otra').ok).toBe(true);
    expect(abrirLlave(Buffer.from(pem), '12345678a')).toMatchObject({ ok: false });
  });

  it('refuses a key that is not RSA: the CFDI seal needs one', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const der = privateKey.export({ format: 'der', type: 'pkcs8', cipher: 'aes-128-cbc', passphrase: 'x' });
    expect(createPrivateKey({ key: der, format: 'der', type: 'pkcs8', passphrase: 'x' }).type).toBe(
      'private',
    );
    expect(abrirLlave(der, 'x')).toEqual({
      ok: false,
      violaciones: [
        expect.objectContaining({ codigo: 'llave_ilegible', mensaje: expect.stringMatching(/RSA/) }),
      ],
    });
  });

  it('a PKCS#1 key (not PKCS#8) is unreadable', () => {
    const abierta = abrirLlave(archivoSat(CSD_VALIDO.key), '12345678a');
    if (!abierta.ok) throw new Error('the valid key did not open');
    const pkcs1 = abierta.llave.export({ format: 'der', type: 'pkcs1' });
    expect(abrirLlave(pkcs1, '12345678a')).toMatchObject({
      ok: false,
      violaciones: [expect.objectContaining({ codigo: 'llave_ilegible' })],
    });
  });
});
