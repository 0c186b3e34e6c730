import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import express from 'express';
import { crearMetricasApi } from '../../api/metricas';
import { contexto } from '../../api/middleware/contexto';
import { manejadorErrores, rutaNoEncontrada } from '../../api/middleware/manejador-errores';
import { crearServidor } from '../../api/servidor';
import { CatalogosEnMemoria, hoyEnMexico } from '../../db/catalogos/memoria';
import { crearKnex, type Knex } from '../../db/conexion';
import { crearRepositorioPendientes } from '../../db/repositorios/pendientes';
import { crearLogger } from '../../log/logger';

// The API's HTTP server over real HTTP with the catalogs of the test database (the global setup loaded
// every SAT catalog); behind it a bare Express app, since catalog reads never reach Express. No API key.

let db: Knex;
let servidor: Server;
let url: string;

beforeAll(async () => {
  db = crearKnex(process.env.DATABASE_URL!);
  const logger = crearLogger('prueba', 'silent');
  const metricas = crearMetricasApi(crearRepositorioPendientes(db));
  const app = express();
  app.use(contexto(logger, metricas));
  app.use(rutaNoEncontrada);
  app.use(manejadorErrores);
  const s = crearServidor({ app, catalogos: await CatalogosEnMemoria.cargar(db), logger, metricas });
  servidor = await new Promise<Server>((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
  url = `http://127.0.0.1:${(servidor.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (servidor ? servidor.close(() => resolve()) : resolve()));
  await db?.destroy();
});

type Registro = Record<string, unknown>;

async function obtener(ruta: string) {
  const r = await fetch(`${url}${ruta}`);
  return { status: r.status, headers: r.headers, cuerpo: (await r.json()) as Record<string, unknown> };
}

async function datos(ruta: string): Promise<Registro[]> {
  const { status, cuerpo } = await obtener(ruta);
  expect(status).toBe(200);
  return cuerpo.datos as Registro[];
}

const texto = expect.any(String);
const textoONulo = (v: unknown) => v === null || typeof v === 'string';

/** Each catalog: its table, and the exact record shape of the conventions. */
const CATALOGOS: Record<string, { tabla: string; forma: (r: Registro) => boolean }> = {
  claves_prod_serv: {
    tabla: 'cat_clave_prod_serv',
    forma: (r) => textoONulo(r.palabras_similares),
  },
  claves_unidad: { tabla: 'cat_clave_unidad', forma: (r) => textoONulo(r.simbolo) },
  codigos_postales: {
    tabla: 'cat_codigo_postal',
    forma: (r) =>
      typeof r.estado === 'string' &&
      textoONulo(r.municipio) &&
      textoONulo(r.localidad) &&
      typeof r.huso_horario === 'string',
  },
  regimenes_fiscales: {
    tabla: 'cat_regimen_fiscal',
    forma: (r) => typeof r.aplica_fisica === 'boolean' && typeof r.aplica_moral === 'boolean',
  },
  usos_cfdi: {
    tabla: 'cat_uso_cfdi',
    forma: (r) =>
      typeof r.aplica_fisica === 'boolean' &&
      typeof r.aplica_moral === 'boolean' &&
      Array.isArray(r.regimenes_receptor),
  },
  formas_pago: { tabla: 'cat_forma_pago', forma: (r) => typeof r.bancarizado === 'boolean' },
  metodos_pago: { tabla: 'cat_metodo_pago', forma: () => true },
  monedas: { tabla: 'cat_moneda', forma: (r) => Number.isInteger(r.decimales) },
  exportaciones: { tabla: 'cat_exportacion', forma: () => true },
  objetos_imp: { tabla: 'cat_objeto_imp', forma: () => true },
  tipos_relacion: { tabla: 'cat_tipo_relacion', forma: () => true },
};

const CAMPOS: Record<string, string[]> = {
  claves_prod_serv: ['clave', 'descripcion', 'palabras_similares'],
  claves_unidad: ['clave', 'descripcion', 'simbolo'],
  codigos_postales: ['clave', 'descripcion', 'estado', 'municipio', 'localidad', 'huso_horario'],
  regimenes_fiscales: ['clave', 'descripcion', 'aplica_fisica', 'aplica_moral'],
  usos_cfdi: ['clave', 'descripcion', 'aplica_fisica', 'aplica_moral', 'regimenes_receptor'],
  formas_pago: ['clave', 'descripcion', 'bancarizado'],
  metodos_pago: ['clave', 'descripcion'],
  monedas: ['clave', 'descripcion', 'decimales'],
  exportaciones: ['clave', 'descripcion'],
  objetos_imp: ['clave', 'descripcion'],
  tipos_relacion: ['clave', 'descripcion'],
};

const BUSCABLES = ['claves_prod_serv', 'claves_unidad', 'codigos_postales'];

const porCodigo = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('GET /v1/catalogos/:nombre', () => {
  it.each(Object.keys(CATALOGOS))('%s answers 200 with the documented record shape', async (nombre) => {
    const { status, headers, cuerpo } = await obtener(`/v1/catalogos/${nombre}`);
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('public, max-age=3600');
    expect(headers.get('x-request-id')).toMatch(/^req_/);
    expect(cuerpo).toEqual({ objeto: 'lista', catalogo: nombre, datos: expect.any(Array) });
    const registros = cuerpo.datos as Registro[];
    expect(registros.length).toBeGreaterThan(0);
    for (const r of registros) {
      expect(Object.keys(r).sort()).toEqual([...CAMPOS[nombre]!].sort());
      expect(r).toMatchObject({ clave: texto, descripcion: texto });
      expect(CATALOGOS[nombre]!.forma(r)).toBe(true);
    }
    const codigos = registros.map((r) => r.clave as string);
    expect(codigos).toEqual([...codigos].sort(porCodigo));
    // Searchable catalogs without q: the first `limite` (default 20) by code.
    if (BUSCABLES.includes(nombre)) expect(registros).toHaveLength(20);
  });

  it('revalidates with the data fingerprint as ETag: 304 while the data is unchanged', async () => {
    const primera = await fetch(`${url}/v1/catalogos/monedas`);
    const etag = primera.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const busqueda = await fetch(`${url}/v1/catalogos/claves_prod_serv?q=leche`);
    expect(busqueda.headers.get('etag')).toBe(etag);
    // As a browser revalidates; without a Cache-Control of its own, fetch would add "no-cache".
    const segunda = await fetch(`${url}/v1/catalogos/monedas`, {
      headers: { 'If-None-Match': etag!, 'Cache-Control': 'max-age=0' },
    });
    expect(segunda.status).toBe(304);
    expect(await segunda.text()).toBe('');
  });

  it('non-searchable catalogs list every currently valid row of their table', async () => {
    const hoy = hoyEnMexico();
    for (const [nombre, { tabla }] of Object.entries(CATALOGOS)) {
      if (BUSCABLES.includes(nombre)) continue;
      const fila = await db(tabla)
        .where((w) => w.whereNull('vigencia_desde').orWhere('vigencia_desde', '<=', hoy))
        .andWhere((w) => w.whereNull('vigencia_hasta').orWhere('vigencia_hasta', '>=', hoy))
        .count({ n: '*' })
        .first();
      const registros = await datos(`/v1/catalogos/${nombre}`);
      expect({ nombre, filas: registros.length }).toEqual({ nombre, filas: Number(fila?.n) });
    }
  });

  it('finds "Servicios de facturación" without the accent and in capitals', async () => {
    for (const q of ['facturacion', 'FACTURACI%C3%93N', 'servicios%20facturacion']) {
      const registros = await datos(`/v1/catalogos/claves_prod_serv?q=${q}`);
      expect(registros).toContainEqual({
        clave: '84111506',
        descripcion: 'Servicios de facturación',
        palabras_similares: null,
      });
    }
    const registros = await datos('/v1/catalogos/claves_prod_serv?q=facturacion');
    expect(registros[0]!.clave).toBe('84111506');
  });

  it('searches codes by prefix, by code, limited by limite', async () => {
    const registros = await datos('/v1/catalogos/claves_prod_serv?q=8411');
    expect(registros).toHaveLength(20);
    const codigos = registros.map((r) => r.clave as string);
    expect(codigos.every((c) => c.startsWith('8411'))).toBe(true);
    expect(codigos).toEqual([...codigos].sort(porCodigo));
    expect(codigos).toContain('84111506');

    expect(await datos('/v1/catalogos/claves_prod_serv?q=84111506')).toEqual([
      expect.objectContaining({ clave: '84111506' }),
    ]);
    expect(await datos('/v1/catalogos/claves_prod_serv?q=servicio&limite=100')).toHaveLength(100);
    expect(await datos('/v1/catalogos/claves_prod_serv?q=8411&limite=3')).toHaveLength(3);
    expect(await datos('/v1/catalogos/claves_prod_serv?q=zzzzqqq')).toEqual([]);
  });

  it('finds a postal code with its time zone', async () => {
    const registros = await datos('/v1/catalogos/codigos_postales?q=06600');
    expect(registros[0]).toEqual({
      clave: '06600',
      descripcion: 'Ciudad de México, Cuauhtémoc',
      estado: 'DIF',
      municipio: '015',
      localidad: '06',
      huso_horario: 'Tiempo del Centro',
    });
  });

  it('searches units by code and name', async () => {
    const porCodigo = await datos('/v1/catalogos/claves_unidad?q=H87');
    expect(porCodigo[0]).toEqual({ clave: 'H87', descripcion: 'Pieza', simbolo: null });
    expect((await datos('/v1/catalogos/claves_unidad?q=kgm'))[0]).toEqual({
      clave: 'KGM',
      descripcion: 'Kilogramo',
      simbolo: 'kg',
    });
    // By name, words starting a word come by code: "Pieza" (H87) after "Libra por pieza…" (3G).
    const porNombre = await datos('/v1/catalogos/claves_unidad?q=pieza&limite=100');
    expect(porNombre).toContainEqual({ clave: 'H87', descripcion: 'Pieza', simbolo: null });
  });

  it('usos_cfdi carries regimenes_receptor as arrays of codes', async () => {
    const usos = await datos('/v1/catalogos/usos_cfdi');
    for (const u of usos) {
      expect((u.regimenes_receptor as unknown[]).length).toBeGreaterThan(0);
      for (const c of u.regimenes_receptor as unknown[]) expect(c).toMatch(/^\d{3}$/);
    }
    expect(usos.find((u) => u.clave === 'G03')?.regimenes_receptor).toContain('601');
  });

  it('answers 404 catalogo_no_encontrado for an unknown catalog', async () => {
    const { status, headers, cuerpo } = await obtener('/v1/catalogos/planetas');
    expect(status).toBe(404);
    expect(headers.get('cache-control')).toBeNull();
    expect(cuerpo).toEqual({
      error: {
        tipo: 'no_encontrado',
        codigo: 'catalogo_no_encontrado',
        mensaje: 'El catálogo planetas no existe.',
        parametro: 'nombre',
      },
    });
  });

  it.each(['0', '101', 'abc', '1.5', '-1', ''])('answers 400 for limite=%s', async (limite) => {
    const { status, cuerpo } = await obtener(`/v1/catalogos/claves_prod_serv?q=leche&limite=${limite}`);
    expect(status).toBe(400);
    expect(cuerpo).toEqual({
      error: {
        tipo: 'solicitud_invalida',
        codigo: 'parametro_invalido',
        mensaje: texto,
        parametro: 'limite',
      },
    });
  });

  it('accepts limite at both ends of 1..100', async () => {
    expect(await datos('/v1/catalogos/codigos_postales?limite=1')).toHaveLength(1);
    expect(await datos('/v1/catalogos/codigos_postales?limite=100')).toHaveLength(100);
  });

  it('answers 400 for an empty, too long or repeated q', async () => {
    for (const q of ['q=', `q=${'a'.repeat(101)}`, 'q=leche&q=vaca']) {
      const { status, cuerpo } = await obtener(`/v1/catalogos/claves_unidad?${q}`);
      expect(status).toBe(400);
      expect(cuerpo).toMatchObject({ error: { codigo: 'parametro_invalido', parametro: 'q' } });
    }
  });

  it('refuses query parameters the route does not take, naming them', async () => {
    for (const [ruta, parametro] of [
      ['/v1/catalogos/claves_prod_serv?q=leche&limit=5', 'limit'],
      ['/v1/catalogos/monedas?q=peso', 'q'],
      ['/v1/catalogos/usos_cfdi?limite=5', 'limite'],
    ] as const) {
      const { status, cuerpo } = await obtener(ruta);
      expect(status).toBe(400);
      expect(cuerpo).toEqual({
        error: {
          tipo: 'solicitud_invalida',
          codigo: 'parametro_invalido',
          mensaje: `El parámetro de consulta ${parametro} no existe en esta ruta.`,
          parametro,
        },
      });
    }
  });

  it('answers a repeated search with the same bytes, and HEAD with the headers only', async () => {
    const ruta = `${url}/v1/catalogos/claves_prod_serv?q=leche&limite=7`;
    const primera = await (await fetch(ruta)).text();
    const segunda = await fetch(ruta);
    expect(await segunda.text()).toBe(primera);
    expect(JSON.parse(primera).datos).toHaveLength(7);
    // A different limite is another answer, not the cached one.
    expect((await datos('/v1/catalogos/claves_prod_serv?q=leche&limite=2')).length).toBe(2);

    const cabeza = await fetch(ruta, { method: 'HEAD' });
    expect(cabeza.status).toBe(200);
    expect(cabeza.headers.get('content-length')).toBe(String(Buffer.byteLength(primera)));
    expect(await cabeza.text()).toBe('');
  });

  it('gives each request its own id and keeps a sane one from the client', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const { headers } = await obtener('/v1/catalogos/monedas');
      ids.add(headers.get('x-request-id')!);
    }
    expect(ids.size).toBe(5);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
    const propia = await fetch(`${url}/v1/catalogos/monedas`, { headers: { 'X-Request-Id': 'mi-id-12345' } });
    expect(propia.headers.get('x-request-id')).toBe('mi-id-12345');
  });

  it('leaves other methods to the Express app and answers malformed names with 404', async () => {
    const post = await fetch(`${url}/v1/catalogos/monedas`, { method: 'POST' });
    expect(post.status).toBe(404);
    expect((await post.json()).error.codigo).toBe('ruta_no_encontrada');
    const { status, cuerpo } = await obtener('/v1/catalogos/Monedas%20X');
    expect(status).toBe(404);
    expect(cuerpo).toMatchObject({ error: { codigo: 'ruta_no_encontrada' } });
  });

  it('answers q without letters or digits with 400 instead of the first records', async () => {
    for (const q of ['%25', '--', '%20%20']) {
      const { status, cuerpo } = await obtener(`/v1/catalogos/claves_prod_serv?q=${q}`);
      expect(status).toBe(400);
      expect(cuerpo).toMatchObject({ error: { codigo: 'parametro_invalido', parametro: 'q' } });
    }
  });

  it('answers a request Node cannot parse (raw UTF-8 in the URL) in the JSON envelope', async () => {
    const { port } = servidor.address() as AddressInfo;
    const respuesta = await new Promise<string>((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => {
        s.write(
          Buffer.from('GET /v1/catalogos/claves_prod_serv?q=FACTURACIÓN HTTP/1.1\r\nHost: x\r\n\r\n', 'utf8'),
        );
      });
      let texto = '';
      s.on('data', (d) => (texto += d.toString('utf8')));
      s.on('end', () => resolve(texto));
      s.on('error', reject);
    });
    const [cabeza, cuerpo] = respuesta.split('\r\n\r\n');
    expect(cabeza).toMatch(/^HTTP\/1\.1 400 /);
    expect(cabeza).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(cuerpo!)).toMatchObject({
      error: { tipo: 'solicitud_invalida', codigo: 'solicitud_malformada' },
    });
  });
});
