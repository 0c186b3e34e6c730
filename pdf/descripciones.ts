import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registrosCsv } from '../db/catalogos/csv';
import { directorioDatos } from '../db/catalogos/definiciones';
import type { CatalogoDescripcion, Descripciones } from './representacion';

const ARCHIVOS: Readonly<Record<CatalogoDescripcion, string>> = {
  regimen_fiscal: 'c_RegimenFiscal.csv',
  uso_cfdi: 'c_UsoCFDI.csv',
  forma_pago: 'c_FormaPago.csv',
  metodo_pago: 'c_MetodoPago.csv',
  moneda: 'c_Moneda.csv',
  clave_unidad: 'c_ClaveUnidad.csv',
  objeto_imp: 'c_ObjetoImp.csv',
  exportacion: 'c_Exportacion.csv',
  tipo_relacion: 'c_TipoRelacion.csv',
  tipo_comprobante: 'c_TipoDeComprobante.csv',
  impuesto: 'c_Impuesto.csv',
  periodicidad: 'c_Periodicidad.csv',
  meses: 'c_Meses.csv',
};

/**
 * Descriptions straight from the SAT catalog files the project ships, each file read once on first use.
 * Expired codes keep their description: an invoice printed today may carry a code valid when stamped.
 * When a code appears more than once, the current row wins.
 */
export function descripcionesDesdeCsv(directorio = directorioDatos()): Descripciones {
  const mapas = new Map<CatalogoDescripcion, Map<string, string>>();
  return (catalogo, clave) => {
    let mapa = mapas.get(catalogo);
    if (!mapa) {
      mapa = leer(join(directorio, ARCHIVOS[catalogo]));
      mapas.set(catalogo, mapa);
    }
    return mapa.get(clave);
  };
}

function leer(ruta: string): Map<string, string> {
  const mapa = new Map<string, string>();
  const registros = registrosCsv(readFileSync(ruta, 'utf8'));
  const encabezado = registros.next();
  if (encabezado.done) return mapa;
  const columnas = encabezado.value.campos;
  const id = columnas.indexOf('id');
  const texto = columnas.indexOf('texto');
  const hasta = columnas.indexOf('vigencia_hasta');
  if (id < 0 || texto < 0) throw new Error(`${ruta}: faltan las columnas id y texto`);
  for (const { campos } of registros) {
    const clave = campos[id];
    const descripcion = campos[texto];
    if (!clave || !descripcion) continue;
    const vigente = hasta < 0 || !campos[hasta];
    if (vigente || !mapa.has(clave)) mapa.set(clave, descripcion);
  }
  return mapa;
}
