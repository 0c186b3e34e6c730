import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { extraerTimbre } from '../../cfdi/timbre';
import type { Nodo } from '../../cfdi/xml/nodo';
import { serializar } from '../../cfdi/xml/serializar';
import { directorioSat } from '../../config/rutas';

/**
 * The SAT's own tools as test oracles: `xsltproc` with the shipped XSLTs prints the cadena original,
 * `xmllint` validates against the shipped XSDs. Both read files, so XML strings go through a temp file.
 */

// The SAT's files live next to the repository (../shared/sat), as the project's notes describe.
export const DIRECTORIO_SAT = directorioSat();
const CFD = join(DIRECTORIO_SAT, 'xml', 'www.sat.gob.mx', 'sitio_internet', 'cfd');
export const XSLT_CADENA_40 = join(CFD, '4', 'cadenaoriginal_4_0', 'cadenaoriginal_4_0.xslt');
export const XSLT_CADENA_TFD = join(CFD, 'TimbreFiscalDigital', 'cadenaoriginal_TFD_1_1.xslt');
export const XSD_CFDI = join(CFD, 'cfdi-all.xsd');

export const DIRECTORIO_EJEMPLOS = join(DIRECTORIO_SAT, 'examples');

const ejecutarAsync = promisify(execFile);

/** Every `.xml` under examples/ (signed/, pagos20-calculator-cases/, unsigned-structure-gobl/), sorted. */
export function archivosDeEjemplo(dir = DIRECTORIO_EJEMPLOS): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? archivosDeEjemplo(join(dir, e.name))
        : e.name.endsWith('.xml')
          ? [join(dir, e.name)]
          : [],
    )
    .sort();
}

function comprobarHerramienta(programa: 'xsltproc' | 'xmllint', paquete: string): void {
  try {
    execFileSync(programa, ['--version'], { stdio: 'ignore' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(
        `${programa} no está instalado: instale el paquete ${paquete} (apt-get install ${paquete})`,
      );
    }
    throw e;
  }
}

let xsltprocComprobado = false;
function exigirXsltproc(): void {
  if (!xsltprocComprobado) comprobarHerramienta('xsltproc', 'xsltproc');
  xsltprocComprobado = true;
}

/** Runs `xsltproc xslt archivo` and returns stdout. The SAT XSLTs say version 2.0, so libxslt warns on stderr: ignored. */
export function xsltprocArchivo(archivo: string, xslt = XSLT_CADENA_40): string {
  exigirXsltproc();
  try {
    return execFileSync('xsltproc', [xslt, archivo], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    const stderr = String((e as { stderr?: unknown }).stderr ?? '');
    throw new Error(`xsltproc falló con ${archivo}:\n${stderr.slice(-2000)}`);
  }
}

/** One xsltproc process per file, a few at a time; results in the order of `archivos`. */
export async function xsltprocArchivos(
  archivos: readonly string[],
  xslt = XSLT_CADENA_40,
  paralelo = 4,
): Promise<string[]> {
  exigirXsltproc();
  return enParalelo(archivos, paralelo, async (archivo) => {
    try {
      const { stdout } = await ejecutarAsync('xsltproc', [xslt, archivo], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout;
    } catch (e) {
      throw new Error(
        `xsltproc falló con ${archivo}:\n${String((e as { stderr?: unknown }).stderr ?? e).slice(-2000)}`,
      );
    }
  });
}

/**
 * Many files through few processes: xsltproc accepts several inputs and prints each result in turn, so a
 * wrapper stylesheet imports the SAT XSLT unchanged and only adds a newline after each result (a cadena
 * never contains one: normalize-space removes them). Compiling the SAT XSLT and its 33 includes is most
 * of xsltproc's time, so this is an order of magnitude faster than one process per file.
 */
export async function xsltprocLote(
  archivos: readonly string[],
  xslt = XSLT_CADENA_40,
  porProceso = 40,
  paralelo = 2,
): Promise<string[]> {
  exigirXsltproc();
  const { ruta, borrar } = directorioTemporal('cfdi-xslt-lote-');
  try {
    const envoltura = join(ruta, 'lote.xslt');
    writeFileSync(
      envoltura,
      `<?xml version="1.0" encoding="UTF-8"?>
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:import href="${pathToFileURL(xslt).href}"/>
  <xsl:output method="text" encoding="UTF-8"/>
  <xsl:template match="/"><xsl:apply-imports/><xsl:text>&#10;</xsl:text></xsl:template>
</xsl:stylesheet>
`,
      'utf8',
    );
    const lotes: string[][] = [];
    for (let k = 0; k < archivos.length; k += porProceso) lotes.push(archivos.slice(k, k + porProceso));
    const salidas = await enParalelo(lotes, paralelo, async (lote) => {
      const { stdout } = await ejecutarAsync('xsltproc', [envoltura, ...lote], {
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      });
      const cadenas = stdout.split('\n');
      if (cadenas.pop() !== '' || cadenas.length !== lote.length) {
        throw new Error(
          `xsltproc devolvió ${cadenas.length} resultados para ${lote.length} archivos (${lote[0]}…)`,
        );
      }
      return cadenas;
    });
    return salidas.flat();
  } finally {
    borrar();
  }
}

async function enParalelo<E, R>(
  entradas: readonly E[],
  paralelo: number,
  hacer: (e: E) => Promise<R>,
): Promise<R[]> {
  const resultados = new Array<R>(entradas.length);
  let siguiente = 0;
  const trabajador = async (): Promise<void> => {
    while (siguiente < entradas.length) {
      const k = siguiente++;
      resultados[k] = await hacer(entradas[k] as E);
    }
  };
  await Promise.all(Array.from({ length: Math.min(paralelo, entradas.length) }, trabajador));
  return resultados;
}

/** A scratch directory removed by the returned function (call it in afterAll). */
export function directorioTemporal(prefijo = 'cfdi-xslt-'): { ruta: string; borrar: () => void } {
  const ruta = mkdtempSync(join(tmpdir(), prefijo));
  return { ruta, borrar: () => rmSync(ruta, { recursive: true, force: true }) };
}

function conArchivo<T>(xml: string, usar: (archivo: string) => T): T {
  const { ruta, borrar } = directorioTemporal();
  try {
    const archivo = join(ruta, 'doc.xml');
    writeFileSync(archivo, xml, 'utf8');
    return usar(archivo);
  } finally {
    borrar();
  }
}

/** Cadena original of a CFDI 4.0 XML string according to the SAT XSLT. */
export const cadenaPorXslt = (xml: string): string =>
  conArchivo(xml, (a) => xsltprocArchivo(a, XSLT_CADENA_40));

/** TFD cadena of an XML string whose root is the tfd:TimbreFiscalDigital, according to the SAT XSLT. */
export const cadenaTfdPorXslt = (xml: string): string =>
  conArchivo(xml, (a) => xsltprocArchivo(a, XSLT_CADENA_TFD));

/** TFD cadena, per the SAT XSLT, of the TimbreFiscalDigital inside a stamped Comprobante. */
export function cadenaTfdDeComprobantePorXslt(comprobante: Nodo): string {
  const tfd = extraerTimbre(comprobante);
  if (!tfd) throw new Error('El comprobante no tiene TimbreFiscalDigital');
  return cadenaTfdPorXslt(serializar(tfdIndependiente(comprobante, tfd)));
}

/**
 * The TFD as a document of its own: namespace declarations it relies on but that sit on the Comprobante
 * or the Complemento (tfd, xsi, as in some PAC outputs) are copied onto it.
 */
function tfdIndependiente(comprobante: Nodo, tfd: Nodo): Nodo {
  const declaradas: Record<string, string> = {};
  const complemento = comprobante.hijos.find((h) => h.hijos.includes(tfd));
  for (const origen of [comprobante, complemento ?? comprobante]) {
    for (const [k, v] of Object.entries(origen.atributos)) if (k.startsWith('xmlns:')) declaradas[k] = v;
  }
  const prefijos = new Set(
    [tfd.nombre, ...Object.keys(tfd.atributos)].filter((n) => n.includes(':')).map((n) => n.split(':')[0]),
  );
  const faltantes = Object.entries(declaradas).filter(
    ([k]) => prefijos.has(k.slice(6)) && !(k in tfd.atributos),
  );
  return { ...tfd, atributos: { ...Object.fromEntries(faltantes), ...tfd.atributos } };
}

let xmllintComprobado = false;

/**
 * `xmllint --noout --schema cfdi-all.xsd` over many files in one process (loading the catalogs takes most
 * of the time). Returns, per file, the list of errors: empty when it validates.
 */
export function validarConEsquema(archivos: readonly string[]): Map<string, string[]> {
  if (!xmllintComprobado) comprobarHerramienta('xmllint', 'libxml2-utils');
  xmllintComprobado = true;
  const r = spawnSync('xmllint', ['--noout', '--schema', XSD_CFDI, ...archivos], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  // Exit status 3 only says some file failed: the verdict for each one is on stderr either way.
  const stderr = r.stderr;
  const errores = new Map<string, string[]>(archivos.map((a) => [a, []]));
  const vistos = new Set<string>();
  for (const linea of stderr.split('\n')) {
    for (const archivo of archivos) {
      if (linea === `${archivo} validates`) vistos.add(archivo);
      else if (linea === `${archivo} fails to validate`) {
        vistos.add(archivo);
        if (errores.get(archivo)?.length === 0) errores.get(archivo)?.push('no valida (sin detalle)');
      } else if (linea.startsWith(`${archivo}:`)) errores.get(archivo)?.push(linea.slice(archivo.length + 1));
      else continue;
      break;
    }
  }
  for (const archivo of archivos) {
    if (!vistos.has(archivo))
      errores.get(archivo)?.push(`xmllint no informó sobre el archivo:\n${stderr.slice(-2000)}`);
  }
  return errores;
}
