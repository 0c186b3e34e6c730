import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { convertirFilas, type Fila } from '../../db/catalogos/cargar';
import { DEFINICIONES, directorioDatos } from '../../db/catalogos/definiciones';
import type {
  ClaveDescripcion,
  ConsultaCatalogos,
  Moneda,
  RegimenFiscal,
  ReglaTasaOCuota,
  UsoCfdi,
} from '../../cfdi/reglas/catalogos';

// The rules' catalog interface over the very CSV files the loader puts in the cat_* tables, converted by
// the loader's own code so tests see the same values the database holds.

const filasCache = new Map<string, Fila[]>();

function filas(catalogo: string): Fila[] {
  let cargadas = filasCache.get(catalogo);
  if (!cargadas) {
    const def = DEFINICIONES.find((d) => d.catalogo === catalogo);
    if (!def) throw new Error(`catálogo desconocido: ${catalogo}`);
    const bytes = readFileSync(join(directorioDatos(), def.archivo));
    const texto = new TextDecoder('utf-8', { fatal: true }).decode(
      def.archivo.endsWith('.gz') ? gunzipSync(bytes) : bytes,
    );
    cargadas = convertirFilas(def, texto);
    filasCache.set(catalogo, cargadas);
  }
  return cargadas;
}

const texto = (valor: unknown): string => (typeof valor === 'string' ? valor : '');
const hoy = (): string => new Date().toISOString().slice(0, 10);

/** Valid on `fecha` (YYYY-MM-DD): empty bounds are open, as in the catalogs. */
function vigente(fila: Fila, fecha: string): boolean {
  const desde = fila['vigencia_desde'];
  const hasta = fila['vigencia_hasta'];
  return (typeof desde !== 'string' || desde <= fecha) && (typeof hasta !== 'string' || fecha <= hasta);
}

/** The keys of a catalog's rows valid on `fecha`, in the file's order: what a list of the catalog offers. */
export function clavesVigentes(catalogo: string, fecha: string = hoy()): string[] {
  return filas(catalogo)
    .filter((f) => vigente(f, fecha))
    .map((f) => texto(f['id']));
}

/** Index of a catalog's rows valid on `fecha`, by `id`, built on first use. */
function indice<T>(
  catalogo: string,
  fecha: string,
  convertir: (fila: Fila) => T,
): (clave: string) => T | undefined {
  let mapa: Map<string, T> | undefined;
  return (clave) => {
    mapa ??= new Map(
      filas(catalogo)
        .filter((f) => vigente(f, fecha))
        .map((f) => [texto(f['id']), convertir(f)]),
    );
    return mapa.get(clave);
  };
}

/**
 * A ConsultaCatalogos answering what was valid on `fecha` (default: today, UTC). Tests pin the date so
 * that catalog rows with a future start (IEPS cuota 2026) behave the same every day.
 */
export function catalogosCsv(fecha: string = hoy()): ConsultaCatalogos {
  const conDescripcion =
    (columna: string) =>
    (f: Fila): ClaveDescripcion => ({ clave: texto(f['id']), descripcion: texto(f[columna]) });

  const regimenFiscal = indice(
    'regimen_fiscal',
    fecha,
    (f): RegimenFiscal => ({
      clave: texto(f['id']),
      descripcion: texto(f['texto']),
      aplica_fisica: f['aplica_fisica'] === true,
      aplica_moral: f['aplica_moral'] === true,
    }),
  );
  const usoCfdi = indice(
    'uso_cfdi',
    fecha,
    (f): UsoCfdi => ({
      clave: texto(f['id']),
      descripcion: texto(f['texto']),
      aplica_fisica: f['aplica_fisica'] === true,
      aplica_moral: f['aplica_moral'] === true,
      regimenes_receptor: texto(f['regimenes_fiscales_receptores']).split(','),
    }),
  );
  const codigoPostal = indice('codigo_postal', fecha, (f) => ({
    clave: texto(f['id']),
    huso_horario: texto(f['huso_horario']),
  }));

  let reglas: ReglaTasaOCuota[] | undefined;
  return {
    regimenFiscal,
    usoCfdi,
    codigoPostal,
    claveProdServ: indice('clave_prod_serv', fecha, conDescripcion('descripcion')),
    claveUnidad: indice('clave_unidad', fecha, conDescripcion('texto')),
    objetoImp: indice('objeto_imp', fecha, conDescripcion('texto')),
    formaPago: indice('forma_pago', fecha, conDescripcion('texto')),
    metodoPago: indice('metodo_pago', fecha, conDescripcion('texto')),
    moneda: indice(
      'moneda',
      fecha,
      (f): Moneda => ({
        clave: texto(f['id']),
        descripcion: texto(f['texto']),
        decimales: Number(f['decimales']),
      }),
    ),
    exportacion: indice('exportacion', fecha, conDescripcion('texto')),
    tipoRelacion: indice('tipo_relacion', fecha, conDescripcion('texto')),
    reglasTasaOCuota: () =>
      (reglas ??= filas('tasa_o_cuota')
        .filter((f) => vigente(f, fecha))
        .map(
          (f): ReglaTasaOCuota => ({
            tipo: f['tipo'] === 'Rango' ? 'Rango' : 'Fijo',
            minimo: typeof f['minimo'] === 'string' ? f['minimo'] : null,
            valor: texto(f['valor']),
            impuesto: texto(f['impuesto']),
            factor: texto(f['factor']),
            traslado: f['traslado'] === true,
            retencion: f['retencion'] === true,
          }),
        )),
  };
}
