import { cargarCatalogos, type ResultadoCarga } from '../../db/catalogos/cargar';
import { DEFINICIONES } from '../../db/catalogos/definiciones';
import { borrarBase, crearKnex, partesUrl, recrearBase, type Knex } from '../../db/conexion';
import { migrar } from '../../db/migraciones';

// Its own database, so this suite never touches the one other integration tests share.
const BASE = 'cfdi_test_catalogos';
const servidor = partesUrl(process.env.DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/cfdi').servidor;
const urlBase = new URL(BASE, servidor).toString();

// Data rows per catalog, as listed in /work/shared/sat/SOURCES.md.
const FILAS_ESPERADAS: Record<string, number> = {
  clave_prod_serv: 52514,
  clave_unidad: 2418,
  codigo_postal: 95748,
  regimen_fiscal: 19,
  uso_cfdi: 24,
  forma_pago: 22,
  metodo_pago: 2,
  moneda: 183,
  exportacion: 4,
  objeto_imp: 8,
  tipo_relacion: 7,
  impuesto: 3,
  tasa_o_cuota: 19,
  tipo_factor: 3,
  tipo_comprobante: 5,
  pais: 250,
  meses: 18,
  periodicidad: 5,
  estado: 95,
  municipio: 2478,
  localidad: 664,
  motivo_cancelacion: 4,
  tipo_cadena_pago: 1,
};

let db: Knex;
let primera: ResultadoCarga[];
const lineas: string[] = [];

beforeAll(async () => {
  await recrearBase(urlBase);
  db = crearKnex(urlBase);
  await migrar(db);
});

afterAll(async () => {
  await db?.destroy();
  await borrarBase(urlBase);
});

const contar = async (tabla: string) => Number((await db(tabla).count({ n: '*' }).first())?.n);

describe('cargarCatalogos', () => {
  it('creates one table per definition, with every defined column', async () => {
    for (const def of DEFINICIONES) {
      const columnas = Object.keys(await db(def.tabla).columnInfo());
      expect(columnas).toEqual(expect.arrayContaining(def.columnas.map((c) => c.nombre)));
    }
  });

  it('loads every catalog the first time', async () => {
    primera = await cargarCatalogos(db, (linea) => lineas.push(linea));

    expect(Object.fromEntries(primera.map((r) => [r.catalogo, r.filas]))).toEqual(FILAS_ESPERADAS);
    expect(primera.every((r) => !r.omitido)).toBe(true);
    for (const def of DEFINICIONES) {
      expect(await contar(def.tabla)).toBe(FILAS_ESPERADAS[def.catalogo]);
    }
    expect(await contar('cat_cargas')).toBe(DEFINICIONES.length);

    // One final line per catalog, plus periodic ones for the two big catalogs.
    for (const def of DEFINICIONES) {
      expect(lineas).toContainEqual(
        expect.stringMatching(new RegExp(`^${def.tabla}: \\d+ filas cargadas en`)),
      );
    }
    expect(lineas).toContainEqual(expect.stringMatching(/^cat_codigo_postal: 20000\/95748 filas/));
    expect(lineas).toContainEqual(expect.stringMatching(/^cat_clave_prod_serv: 40000\/52514 filas/));
  }, 180_000);

  it('skips every catalog when the files did not change', async () => {
    const segunda = await cargarCatalogos(db);
    expect(segunda.every((r) => r.omitido)).toBe(true);
    expect(segunda.map((r) => r.filas)).toEqual(primera.map((r) => r.filas));
    expect(await contar('cat_codigo_postal')).toBe(95748);
  });

  it('reloads only a catalog whose recorded hash differs, replacing its rows', async () => {
    await db('cat_cargas')
      .where({ catalogo: 'moneda' })
      .update({ sha256: '0'.repeat(64) });
    const tercera = await cargarCatalogos(db);
    expect(tercera.filter((r) => !r.omitido)).toEqual([{ catalogo: 'moneda', filas: 183, omitido: false }]);
    expect(await contar('cat_moneda')).toBe(183);
  });

  it('stores typed values', async () => {
    const moneda = await db('cat_moneda').where({ id: 'MXN' }).first();
    expect(moneda).toMatchObject({ decimales: 2, porcentaje_variacion: '5.00', vigencia_hasta: null });
    expect(moneda.vigencia_desde).toEqual(new Date('2022-01-01T00:00:00Z'));

    const nomina = await db('cat_tipo_comprobante').where({ id: 'N' }).first();
    expect(nomina).toMatchObject({
      texto: 'Nómina',
      valor_maximo: '999999999999999999.999999',
      vigencia_desde: null,
    });

    const regimen = await db('cat_regimen_fiscal').where({ id: '601' }).first();
    expect([Boolean(regimen.aplica_fisica), Boolean(regimen.aplica_moral)]).toEqual([false, true]);

    const uso = await db('cat_uso_cfdi').where({ id: 'CP01' }).first();
    expect(uso.regimenes_fiscales_receptores).toMatch(/^601,603,605,/);

    const tasas = await db('cat_tasa_o_cuota')
      .where({ impuesto: 'IVA', factor: 'Tasa', tipo: 'Fijo' })
      .pluck('valor');
    expect(tasas).toEqual(expect.arrayContaining(['0.000000', '0.160000']));

    expect(await db('cat_municipio').where({ estado: 'CMX', municipio: '003' }).first()).toMatchObject({
      texto: 'Coyoacán',
    });
    expect(await db('cat_codigo_postal').where({ id: '01000' }).first()).toMatchObject({
      estado: 'DIF',
      municipio: '010',
      localidad: '01',
      estimulo_franja_fronteriza: 0,
    });
  });

  it('searches text ignoring accents and case', async () => {
    const filas = await db.raw('SELECT id, descripcion FROM cat_clave_prod_serv WHERE descripcion LIKE ?', [
      '%FACTURACION%',
    ]);
    const descripciones = (filas[0] as { descripcion: string }[]).map((f) => f.descripcion);
    expect(descripciones).toContain('Servicios de facturación');
  });

  it('matches codes exactly', async () => {
    expect(await db('cat_metodo_pago').where({ id: 'PUE' }).first()).toBeDefined();
    expect(await db('cat_metodo_pago').where({ id: 'pue' }).first()).toBeUndefined();
  });
});
