import { nuevaCuenta, ORGANIZACION } from '../support/cuentas';
import { iniciarPila, type Pila } from '../support/pila';

describe('paginación por cursor', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, pac: false });
  });
  afterAll(() => pila.detener());

  it('un recorrido ve cada elemento exactamente una vez aunque se inserten otros durante el recorrido', async () => {
    const c = await nuevaCuenta(pila.db, pila.url);
    const org = (await c.http.post('/v1/organizaciones', ORGANIZACION)).body.id;
    const crear = (i: number) =>
      c.http.post('/v1/productos', {
        organizacion: org,
        descripcion: `Producto ${i}`,
        valor_unitario: '1',
        clave_prod_serv: '01010101',
        clave_unidad: 'H87',
        objeto_imp: '01',
      });
    const iniciales: string[] = [];
    for (let i = 0; i < 45; i++) iniciales.push((await crear(i)).body.id);

    const vistos: string[] = [];
    let cursor: string | null = null;
    let paginas = 0;
    do {
      const q: string = cursor ? `&paginacion.cursor_inicio=${encodeURIComponent(cursor)}` : '';
      const r = await c.http.get(`/v1/productos?paginacion.limite=10${q}`);
      expect(r.status).toBe(200);
      expect(r.body.datos.length).toBeLessThanOrEqual(10);
      vistos.push(...r.body.datos.map((p: { id: string }) => p.id));
      cursor = r.body.paginacion.siguiente_cursor;
      expect(r.body.paginacion.hay_mas).toBe(cursor !== null);
      // Concurrent inserts while walking.
      await Promise.all([crear(100 + paginas), crear(200 + paginas)]);
      paginas++;
    } while (cursor);

    expect(paginas).toBe(5);
    expect(new Set(vistos).size).toBe(vistos.length);
    expect([...vistos].sort()).toEqual([...iniciales].sort());
    // Newest first.
    expect(vistos).toEqual([...iniciales].reverse());
  });

  it('usa 20 por defecto, acepta hasta 100 y rechaza fuera de rango o cursores inventados', async () => {
    const c = await nuevaCuenta(pila.db, pila.url);
    expect((await c.http.get('/v1/llaves_api')).body.datos).toHaveLength(1);
    for (const limite of ['0', '101', 'abc']) {
      const r = await c.http.get(`/v1/organizaciones?paginacion.limite=${limite}`);
      expect(r.status).toBe(400);
      expect(r.body.error.parametro).toBe('paginacion.limite');
    }
    const r = await c.http.get('/v1/organizaciones?paginacion.cursor_inicio=inventado');
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ codigo: 'cursor_invalido', parametro: 'paginacion.cursor_inicio' });
    expect((await c.http.get('/v1/organizaciones?paginacion.limite=100')).status).toBe(200);
  });

  it('un cursor solo sirve para la lista que lo dio', async () => {
    const c = await nuevaCuenta(pila.db, pila.url);
    for (const nombre of ['a', 'b']) await c.http.post('/v1/llaves_api', { nombre, modo: 'test' });
    const pagina = await c.http.get('/v1/llaves_api?paginacion.limite=1');
    const cursor = pagina.body.paginacion.siguiente_cursor as string;
    expect(cursor).toBeTruthy();
    expect((await c.http.get(`/v1/llaves_api?paginacion.cursor_inicio=${cursor}`)).status).toBe(200);
    for (const lista of ['organizaciones', 'clientes', 'productos', 'facturas', 'eventos', 'certificados']) {
      const r = await c.http.get(`/v1/${lista}?paginacion.cursor_inicio=${cursor}`);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({
        codigo: 'cursor_invalido',
        parametro: 'paginacion.cursor_inicio',
      });
    }
  });

  it('un parámetro desconocido responde 400 en lugar de ignorarse', async () => {
    const c = await nuevaCuenta(pila.db, pila.url);
    const r = await c.http.get('/v1/organizaciones?limit=5');
    expect(r.status).toBe(400);
  });
});
