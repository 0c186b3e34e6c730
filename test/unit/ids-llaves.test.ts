import { generarLlave, hashLlave, modoDeLlave } from '../../seguridad/llaves-api';
import { esId, nuevoId } from '../../db/ids';

describe('identificadores', () => {
  it('llevan prefijo y ordenan por tiempo de creación', () => {
    const a = nuevoId('fac', 1_700_000_000_000);
    const b = nuevoId('fac', 1_700_000_000_001);
    expect(a).toMatch(/^fac_[0-9a-z]{26}$/);
    expect(a < b).toBe(true);
  });

  it('en el mismo milisegundo no se repiten y ordenan en el orden en que se crearon', () => {
    const ids = Array.from({ length: 5000 }, () => nuevoId('cli', 1));
    expect(new Set(ids).size).toBe(5000);
    expect([...ids].sort()).toEqual(ids);
    // The next millisecond starts from fresh randomness, still after them.
    expect(nuevoId('cli', 2) > ids.at(-1)!).toBe(true);
  });
});

describe('forma de un identificador', () => {
  it('reconoce los que da nuevoId con alguno de los prefijos pedidos, y nada más', () => {
    const id = nuevoId('fac');
    expect([esId(id, ['fac']), esId(id, ['ent', 'fac']), esId(id, ['ent'])]).toEqual([true, true, false]);
    expect([esId(`${id}x`, ['fac']), esId(id.toUpperCase(), ['fac']), esId('fac_x', ['fac'])]).toEqual([
      false,
      false,
      false,
    ]);
  });
});

describe('material de llaves API', () => {
  it('genera llaves sk_test_/sk_live_ con 40 caracteres base62 y prefijo visible', () => {
    const t = generarLlave('test');
    expect(t.secreto).toMatch(/^sk_test_[A-Za-z0-9]{40}$/);
    expect(t.prefijo).toBe(t.secreto.slice(0, 12));
    expect(modoDeLlave(t.secreto)).toBe('test');
    expect(modoDeLlave(generarLlave('live').secreto)).toBe('live');
    expect(modoDeLlave('sk_prod_x')).toBeNull();
  });

  it('guarda solo un hash SHA-256 de 32 bytes, distinto para cada llave', () => {
    const a = generarLlave('test');
    const b = generarLlave('test');
    expect(a.hash).toHaveLength(32);
    expect(a.hash.equals(hashLlave(a.secreto))).toBe(true);
    expect(a.hash.equals(b.hash)).toBe(false);
  });

  it('usa todo el alfabeto de forma pareja', () => {
    const cuenta = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      for (const c of generarLlave('test').secreto.slice(8)) cuenta.set(c, (cuenta.get(c) ?? 0) + 1);
    }
    expect(cuenta.size).toBe(62);
    const esperado = (2000 * 40) / 62;
    for (const n of cuenta.values()) expect(Math.abs(n - esperado) / esperado).toBeLessThan(0.15);
  });
});
