import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { Knex } from 'knex';
import { registrosCsv } from './csv';
import {
  DEFINICIONES,
  convertirValor,
  directorioDatos,
  type DefinicionCatalogo,
  type ValorSql,
} from './definiciones';

export interface ResultadoCarga {
  catalogo: string;
  /** Rows in the table: just inserted, or recorded by the load that is still current. */
  filas: number;
  omitido: boolean;
}

export type Fila = Record<string, ValorSql>;

// 2,000 rows keep each INSERT around 1 MB at most, far below the default max_allowed_packet.
const FILAS_POR_INSERT = 2000;
const AVISO_CADA = 20000;

const descomprimir = promisify(gunzip);

/** The file's bytes as stored: what the sha256 in cat_cargas covers. */
export const leerBytes = (def: DefinicionCatalogo): Promise<Buffer> =>
  readFile(join(directorioDatos(), def.archivo));

/** The CSV text of a catalog file, gunzipped when its name ends in .gz. */
export async function decodificar(def: DefinicionCatalogo, bytes: Buffer): Promise<string> {
  const crudo = def.archivo.endsWith('.gz') ? await descomprimir(bytes) : bytes;
  // fatal: invalid UTF-8 must fail instead of becoming U+FFFD in a catalog description.
  return new TextDecoder('utf-8', { fatal: true }).decode(crudo);
}

/** Parses and converts a catalog's CSV text into table rows; errors name the file, line and column. */
export function convertirFilas(def: DefinicionCatalogo, texto: string): Fila[] {
  const registros = registrosCsv(texto);
  const primero = registros.next();
  if (primero.done) throw new Error(`${def.archivo}: archivo vacío`);
  const encabezado = primero.value.campos;

  const faltantes = def.columnas.filter((c) => !encabezado.includes(c.nombre)).map((c) => c.nombre);
  const sobrantes = encabezado.filter((h) => !def.columnas.some((c) => c.nombre === h));
  if (faltantes.length > 0 || sobrantes.length > 0 || new Set(encabezado).size !== encabezado.length) {
    throw new Error(
      `${def.archivo}: el encabezado [${encabezado.join(', ')}] no coincide con la definición ` +
        `(faltan: ${faltantes.join(', ') || '-'}; sin definir: ${sobrantes.join(', ') || '-'})`,
    );
  }
  const posiciones = def.columnas.map((c) => encabezado.indexOf(c.nombre));

  const filas: Fila[] = [];
  for (const { campos, linea } of registros) {
    if (campos.length !== encabezado.length) {
      throw new Error(
        `${def.archivo}, línea ${linea}: ${campos.length} campos, se esperaban ${encabezado.length}`,
      );
    }
    const fila: Fila = {};
    def.columnas.forEach((columna, k) => {
      const valor = campos[posiciones[k]!]!;
      try {
        fila[columna.nombre] = convertirValor(columna, valor);
      } catch (error) {
        throw new Error(
          `${def.archivo}, línea ${linea}, columna ${columna.nombre}: ${(error as Error).message}`,
        );
      }
    });
    filas.push(fila);
  }
  return filas;
}

/**
 * Loads every SAT catalog from db/catalogos/datos. Idempotent: a catalog whose file hash matches its
 * cat_cargas row is skipped; otherwise its table is replaced in one transaction, so readers never see
 * it half loaded and a failed load leaves the previous contents in place.
 */
export async function cargarCatalogos(
  db: Knex,
  progreso: (linea: string) => void = () => {},
): Promise<ResultadoCarga[]> {
  const resultados: ResultadoCarga[] = [];
  for (const def of DEFINICIONES) resultados.push(await cargarCatalogo(db, def, progreso));
  return resultados;
}

async function cargarCatalogo(
  db: Knex,
  def: DefinicionCatalogo,
  progreso: (linea: string) => void,
): Promise<ResultadoCarga> {
  const inicio = performance.now();
  const segundos = () => ((performance.now() - inicio) / 1000).toFixed(2);

  const bytes = await leerBytes(def);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const previa = (await db('cat_cargas').where({ catalogo: def.catalogo }).first('sha256', 'filas')) as
    | { sha256: string; filas: number | string }
    | undefined;
  if (previa?.sha256 === sha256) {
    const filas = Number(previa.filas);
    progreso(`${def.tabla}: sin cambios, omitido (${filas} filas, ${segundos()} s)`);
    return { catalogo: def.catalogo, filas, omitido: true };
  }

  // Parse and convert before opening the transaction: a bad file fails without holding locks.
  const filas = convertirFilas(def, await decodificar(def, bytes));

  await db.transaction(async (trx) => {
    // DELETE, not TRUNCATE: TRUNCATE commits implicitly and would break the all-or-nothing swap.
    await trx(def.tabla).del();
    for (let i = 0; i < filas.length; i += FILAS_POR_INSERT) {
      await trx(def.tabla).insert(filas.slice(i, i + FILAS_POR_INSERT));
      const hechas = Math.min(i + FILAS_POR_INSERT, filas.length);
      if (hechas < filas.length && Math.floor(hechas / AVISO_CADA) > Math.floor(i / AVISO_CADA)) {
        progreso(`${def.tabla}: ${hechas}/${filas.length} filas (${segundos()} s)`);
      }
    }
    await trx('cat_cargas')
      .insert({ catalogo: def.catalogo, sha256, filas: filas.length, cargado_en: trx.fn.now(3) })
      .onConflict('catalogo')
      .merge();
  });

  progreso(`${def.tabla}: ${filas.length} filas cargadas en ${segundos()} s`);
  return { catalogo: def.catalogo, filas: filas.length, omitido: false };
}
