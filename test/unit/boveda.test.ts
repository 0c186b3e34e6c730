import { randomBytes } from 'node:crypto';
import { cargarConfig } from '../../config/config';
import { bovedaSinClave, crearBoveda, ErrorBoveda, type ContextoBoveda } from '../../seguridad/boveda';

const K1 = randomBytes(32);
const K2 = randomBytes(32);
const CTX: ContextoBoveda = { cuentaId: 'cta_01', modo: 'live', registroId: 'cert_01' };
const LLAVE = randomBytes(1298); // the size of a SAT .key
const CONTRASENA = Buffer.from('12345678a');

const sellado = () =>
  crearBoveda({ clave: K1, version: 1 }).sellar(CTX, { llave: LLAVE, contrasena: CONTRASENA });

/** Runs `f` and returns the ErrorBoveda it throws (failing the test if it does not). */
function errorDe(f: () => unknown): ErrorBoveda {
  try {
    f();
  } catch (e) {
    if (e instanceof ErrorBoveda) return e;
    throw e;
  }
  throw new Error('se esperaba un ErrorBoveda');
}

describe('boveda: round trip and format', () => {
  it('opens what it sealed', () => {
    const boveda = crearBoveda({ clave: K1, version: 1 });
    const s = boveda.sellar(CTX, { llave: LLAVE, contrasena: CONTRASENA });
    expect(s.version).toBe(1);
    expect(boveda.version).toBe(1);
    const abierto = boveda.abrir(CTX, s.dekCifrada, s.campos, s.version);
    expect(abierto.llave?.equals(LLAVE)).toBe(true);
    expect(abierto.contrasena?.equals(CONTRASENA)).toBe(true);
  });

  it('opens only the fields asked for', () => {
    const s = sellado();
    const abierto = crearBoveda({ clave: K1, version: 1 }).abrir(
      CTX,
      s.dekCifrada,
      { contrasena: s.campos.contrasena as Buffer },
      1,
    );
    expect(Object.keys(abierto)).toEqual(['contrasena']);
  });

  it('stores [format 1][iv 12][tag 16][ciphertext] per field and for the DEK', () => {
    const s = sellado();
    const contrasena = s.campos.contrasena as Buffer;
    expect(contrasena[0]).toBe(1);
    expect(contrasena.length).toBe(1 + 12 + 16 + CONTRASENA.length);
    expect((s.campos.llave as Buffer).length).toBe(29 + LLAVE.length);
    expect(s.dekCifrada[0]).toBe(1);
    expect(s.dekCifrada.length).toBe(29 + 32);
    expect(contrasena.includes(CONTRASENA)).toBe(false);
  });

  it('uses a fresh DEK and fresh IVs every time', () => {
    const a = sellado();
    const b = sellado();
    expect(a.dekCifrada.equals(b.dekCifrada)).toBe(false);
    expect((a.campos.contrasena as Buffer).equals(b.campos.contrasena as Buffer)).toBe(false);
    const ivs = [a.dekCifrada, b.dekCifrada, a.campos.llave, a.campos.contrasena].map((c) =>
      (c as Buffer).subarray(1, 13).toString('hex'),
    );
    expect(new Set(ivs).size).toBe(4);
  });

  it('round-trips an empty secret', () => {
    const boveda = crearBoveda({ clave: K1, version: 1 });
    const s = boveda.sellar(CTX, { vacio: Buffer.alloc(0) });
    expect(boveda.abrir(CTX, s.dekCifrada, s.campos, 1).vacio?.length).toBe(0);
  });

  it('works with the configured master key', () => {
    const { claveMaestra } = cargarConfig({ NODE_ENV: 'test' });
    const boveda = crearBoveda(claveMaestra);
    const s = boveda.sellar(CTX, { contrasena: CONTRASENA });
    expect(boveda.abrir(CTX, s.dekCifrada, s.campos, s.version).contrasena?.toString()).toBe('12345678a');
  });
});

describe('boveda: tampering', () => {
  const boveda = crearBoveda({ clave: K1, version: 1 });
  const s = boveda.sellar(CTX, { contrasena: CONTRASENA });
  const campo = s.campos.contrasena as Buffer;
  const regiones = (largo: number) => (i: number) =>
    i === 0 ? 'version' : i < 13 ? 'iv' : i < 29 ? 'tag' : i < largo ? 'ciphertext' : '?';

  it.each([...campo.keys()].map((i) => [i, regiones(campo.length)(i)] as const))(
    'a flipped bit at byte %i of a field (%s) is detected',
    (i) => {
      const alterado = Buffer.from(campo);
      alterado[i] = (alterado[i] as number) ^ 0x01;
      const e = errorDe(() => boveda.abrir(CTX, s.dekCifrada, { contrasena: alterado }, 1));
      expect(e.motivo).toBe(i === 0 ? 'formato_invalido' : 'no_autentica');
      expect(e.message).toContain('contrasena');
    },
  );

  it.each([...s.dekCifrada.keys()].map((i) => [i, regiones(s.dekCifrada.length)(i)] as const))(
    'a flipped bit at byte %i of the wrapped DEK (%s) is detected',
    (i) => {
      const alterado = Buffer.from(s.dekCifrada);
      alterado[i] = (alterado[i] as number) ^ 0x80;
      expect(() => boveda.abrir(CTX, alterado, s.campos, 1)).toThrow(ErrorBoveda);
    },
  );

  it('detects truncation and appended bytes', () => {
    for (const alterado of [
      campo.subarray(0, campo.length - 1),
      campo.subarray(0, 28),
      Buffer.concat([campo, Buffer.of(0)]),
    ]) {
      expect(() => boveda.abrir(CTX, s.dekCifrada, { contrasena: alterado }, 1)).toThrow(ErrorBoveda);
    }
    expect(errorDe(() => boveda.abrir(CTX, s.dekCifrada, { contrasena: Buffer.alloc(0) }, 1)).motivo).toBe(
      'formato_invalido',
    );
    expect(() => boveda.abrir(CTX, s.dekCifrada.subarray(0, 40), s.campos, 1)).toThrow(ErrorBoveda);
  });

  it('never returns partial plaintext nor names it in the error', () => {
    const alterado = Buffer.from(campo);
    alterado[alterado.length - 1] = (alterado[alterado.length - 1] as number) ^ 0x01;
    const e = errorDe(() => boveda.abrir(CTX, s.dekCifrada, { contrasena: alterado }, 1));
    expect(e.message).not.toContain('12345678');
  });
});

describe('boveda: binding to row and field (AAD)', () => {
  const boveda = crearBoveda({ clave: K1, version: 1 });
  const s = sellado();

  it.each([
    ['another record id', { ...CTX, registroId: 'cert_02' }],
    ['another account', { ...CTX, cuentaId: 'cta_02' }],
    ['another mode', { ...CTX, modo: 'test' as const }],
  ])('refuses %s', (_, otro) => {
    expect(errorDe(() => boveda.abrir(otro, s.dekCifrada, s.campos, 1)).motivo).toBe('no_autentica');
  });

  it('refuses fields swapped between columns', () => {
    const cruzados = { llave: s.campos.contrasena as Buffer, contrasena: s.campos.llave as Buffer };
    expect(errorDe(() => boveda.abrir(CTX, s.dekCifrada, cruzados, 1)).motivo).toBe('no_autentica');
  });

  it('refuses a field or a DEK moved from another row', () => {
    const otro = { ...CTX, registroId: 'cert_02' };
    const t = boveda.sellar(otro, { llave: LLAVE, contrasena: CONTRASENA });
    // The other row's field under this row's DEK, and the other row's DEK with this row's fields.
    expect(() => boveda.abrir(CTX, s.dekCifrada, { contrasena: t.campos.contrasena as Buffer }, 1)).toThrow(
      ErrorBoveda,
    );
    expect(() => boveda.abrir(CTX, t.dekCifrada, s.campos, 1)).toThrow(ErrorBoveda);
    // Both moved together still fail: the AAD names the row.
    expect(() => boveda.abrir(CTX, t.dekCifrada, t.campos, 1)).toThrow(ErrorBoveda);
  });

  it('rejects identifiers that could make two contexts share an AAD', () => {
    expect(() => boveda.sellar({ ...CTX, cuentaId: 'cta|01' }, { a: CONTRASENA })).toThrow(/Contexto/);
    expect(() => boveda.sellar({ ...CTX, registroId: '' }, { a: CONTRASENA })).toThrow(/Contexto/);
    expect(() => boveda.sellar(CTX, { 'a|b': CONTRASENA })).toThrow(/campo/);
  });
});

describe('boveda: master keys and rotation', () => {
  it('refuses the wrong master key', () => {
    const s = sellado();
    const otra = crearBoveda({ clave: K2, version: 1 });
    expect(errorDe(() => otra.abrir(CTX, s.dekCifrada, s.campos, 1)).motivo).toBe('no_autentica');
  });

  it('refuses an unknown key version', () => {
    const s = sellado();
    const nueva = crearBoveda({ clave: K2, version: 2 });
    expect(errorDe(() => nueva.abrir(CTX, s.dekCifrada, s.campos, 1)).motivo).toBe('version_desconocida');
  });

  it('the key version is bound into the wrapped DEK', () => {
    const s = sellado();
    // Same bytes registered as version 1 and 3: the DEK wrapped as version 1 does not open as 3.
    const boveda = crearBoveda({ clave: K1, version: 3, anteriores: new Map([[1, K1]]) });
    expect(errorDe(() => boveda.abrir(CTX, s.dekCifrada, s.campos, 3)).motivo).toBe('no_autentica');
    expect(boveda.abrir(CTX, s.dekCifrada, s.campos, 1).contrasena?.equals(CONTRASENA)).toBe(true);
  });

  it('reads old versions through `anteriores`, seals with the current one and re-wraps', () => {
    const s = sellado();
    const rotada = crearBoveda({ clave: K2, version: 2, anteriores: new Map([[1, K1]]) });
    expect(rotada.abrir(CTX, s.dekCifrada, s.campos, 1).llave?.equals(LLAVE)).toBe(true);
    expect(rotada.sellar(CTX, { a: CONTRASENA }).version).toBe(2);

    const reenvuelta = rotada.reenvolver(CTX, s.dekCifrada, 1);
    expect(reenvuelta.version).toBe(2);
    // After re-wrapping, the old key can be dropped; the field ciphertexts are untouched.
    const soloNueva = crearBoveda({ clave: K2, version: 2 });
    expect(soloNueva.abrir(CTX, reenvuelta.dekCifrada, s.campos, 2).contrasena?.equals(CONTRASENA)).toBe(
      true,
    );
    expect(() => soloNueva.abrir(CTX, s.dekCifrada, s.campos, 1)).toThrow(ErrorBoveda);
  });

  it('keeps its own copy of the key', () => {
    const clave = Buffer.from(K1);
    const boveda = crearBoveda({ clave, version: 1 });
    const s = boveda.sellar(CTX, { contrasena: CONTRASENA });
    clave.fill(0);
    expect(boveda.abrir(CTX, s.dekCifrada, s.campos, 1).contrasena?.equals(CONTRASENA)).toBe(true);
  });

  it('refuses a bad configuration', () => {
    expect(() => crearBoveda({ clave: randomBytes(16), version: 1 })).toThrow(/32 bytes/);
    expect(() => crearBoveda({ clave: K1, version: 0 })).toThrow(/Versión/);
    expect(() => crearBoveda({ clave: K1, version: 1.5 })).toThrow(/Versión/);
    expect(() => crearBoveda({ clave: K1, version: 2, anteriores: new Map([[2, K2]]) })).toThrow(
      /dos claves/,
    );
    expect(() => crearBoveda({ clave: K1, version: 2, anteriores: new Map([[1, randomBytes(31)]]) })).toThrow(
      /32 bytes/,
    );
  });
});

describe('bovedaSinClave', () => {
  it('un proceso sin clave maestra no sella ni abre: falla diciendo por qué', () => {
    const b = bovedaSinClave('WORKER_COLAS=pdf solo genera PDF');
    expect(() => b.sellar({ cuentaId: 'cta_x', tabla: 't', id: 'x' } as never, {})).toThrow(
      /no tiene la clave maestra: WORKER_COLAS=pdf/,
    );
    expect(() => b.abrir({} as never, Buffer.alloc(0), {}, 1)).toThrow(/clave maestra/);
    expect(() => b.reenvolver({} as never, Buffer.alloc(0), 1)).toThrow(/clave maestra/);
  });
});
