import { CacheLru } from '../../api/cache-lru';

describe('CacheLru', () => {
  it('creates a value once and returns it while it is kept', () => {
    const cache = new CacheLru<number>(2);
    let llamadas = 0;
    const crear = () => ++llamadas;
    expect(cache.obtener('a', crear)).toBe(1);
    expect(cache.obtener('a', crear)).toBe(1);
    expect(llamadas).toBe(1);
  });

  it('forgets the least recently used entry beyond its size', () => {
    const cache = new CacheLru<string>(2);
    cache.obtener('a', () => 'A');
    cache.obtener('b', () => 'B');
    cache.obtener('a', () => 'otra'); // a is now the most recent
    cache.obtener('c', () => 'C'); // b goes
    expect(cache.tamano).toBe(2);
    expect(cache.obtener('a', () => 'nueva')).toBe('A');
    expect(cache.obtener('b', () => 'B2')).toBe('B2');
  });

  it('keeps nothing when creating throws', () => {
    const cache = new CacheLru<string>(2);
    expect(() =>
      cache.obtener('a', () => {
        throw new Error('no');
      }),
    ).toThrow('no');
    expect(cache.tamano).toBe(0);
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => new CacheLru(0)).toThrow();
    expect(() => new CacheLru(1.5)).toThrow();
  });
});
