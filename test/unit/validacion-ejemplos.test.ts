import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validarComprobante, type CatalogosValidacion } from '../../cfdi/validacion';
import { parsear } from '../../cfdi/xml/parsear';
import { convertirFilas } from '../../db/catalogos/cargar';
import { DEFINICIONES, directorioDatos } from '../../db/catalogos/definiciones';
import { catalogosCsv } from '../support/catalogos-csv';
import { directorioSat } from '../../config/rutas';

/** The CSV catalogs plus c_Pais, which CatalogosEnMemoria does not offer yet (CFDI40150/40156). */
function catalogosConPaises(fecha: string): CatalogosValidacion {
  const def = DEFINICIONES.find((d) => d.catalogo === 'pais')!;
  const filas = convertirFilas(def, readFileSync(join(directorioDatos(), def.archivo), 'utf8'));
  const paises = new Map(
    filas.map((f) => [
      String(f['id']),
      {
        clave: String(f['id']),
        patron_identidad_tributaria:
          typeof f['patron_identidad_tributaria'] === 'string' ? f['patron_identidad_tributaria'] : null,
      },
    ]),
  );
  return { ...catalogosCsv(fecha), pais: (clave: string) => paises.get(clave) };
}

const catalogos = catalogosConPaises('2026-06-01');
const AHORA = new Date('2026-06-01T18:00:00Z');
const EJEMPLOS = join(directorioSat(), 'examples');

const violaciones = (archivo: string) =>
  validarComprobante(parsear(readFileSync(join(EJEMPLOS, archivo), 'utf8')), catalogos, { ahora: AHORA });
const codigosSat = (archivo: string) =>
  [...new Set(violaciones(archivo).map((v) => v.sat ?? v.codigo))].sort();
const xmls = (dir: string) =>
  readdirSync(join(EJEMPLOS, dir))
    .filter((f) => f.endsWith('.xml'))
    .map((f) => `${dir}/${f}`);

describe('ejemplos firmados', () => {
  it.each([
    'signed/ingreso-real-stamped-pue-iva16.xml',
    'signed/ingreso-sandbox-stamped-descuento.xml',
    'signed/ingreso-usd-descuentos-signed-eku.xml',
    'signed/pago20-signed-eku.xml',
  ])('%s no tiene violaciones', (archivo) => {
    expect(violaciones(archivo)).toEqual([]);
  });

  it('el ingreso PPD con timbre fabricado lleva dos errores reales', () => {
    // MetodoPago PPD without FormaPago ("99" is required), and a persona física (XIQB891116QE4) with the
    // persona moral regime 601: the library that made it never had it stamped.
    expect(codigosSat('signed/ingreso-ppd-iva16-ret-isr10-iva-2tercios-fake-tfd.xml')).toEqual([
      'CFDI40105',
      'CFDI40141',
    ]);
  });

  it('el ejemplo con todos los nodos y valores sin sentido dispara reglas de catálogo, importes y tipo P', () => {
    expect(codigosSat('signed/all-nodes-example-signed-aaa010101aaa.xml')).toEqual([
      'CFDI40103', // FormaPago in a type P
      'CFDI40109', // SubTotal 1000 in a type P
      'CFDI40111', // Descuento in a type P
      'CFDI40119', // Total 1500 ≠ 1000 + 360000 − 247500
      'CFDI40125', // MetodoPago in a type P
      'CFDI40130', // InformacionGlobal with a nominative receiver
      'CFDI40132', // bimonthly period outside regime 621
      'CFDI40136', // Año 2021
      'CFDI40137', // TipoRelacion 09
      'CFDI40140', // emisor regime 630
      'CFDI40151', // ResidenciaFiscal with a Mexican RFC
      'CFDI40154', // NumRegIdTrib with a Mexican RFC
      'CFDI40157', // receptor regime 630
      'CFDI40172', // ObjetoImp 01 and 03 with taxes
      'CFDI40179', // IVA at 1.600000
      'CFDI40180', // traslado Importe 10× off
      'CFDI40186', // retención Importe off
      'CFDI40188', // third party with the emisor's RFC
      'CFDI40191', // third party regime 630
      'CFDI40201', // Impuestos in a type P
      'complemento_pagos_requerido',
      'pago_concepto',
      'pago_valor_fijo',
    ]);
  });
});

describe('otros ejemplos', () => {
  it.each(xmls('pagos20-calculator-cases'))('%s (tipo P) no tiene violaciones', (archivo) => {
    expect(violaciones(archivo)).toEqual([]);
  });

  it.each(xmls('unsigned-structure-gobl').filter((f) => !f.endsWith('invoice-global.xml')))(
    '%s no tiene violaciones',
    (archivo) => {
      expect(violaciones(archivo)).toEqual([]);
    },
  );

  it('la factura global de gobl escribe "PÚBLICO EN GENERAL" con acento, que el SAT no reconoce', () => {
    expect(violaciones('unsigned-structure-gobl/invoice-global.xml').map((v) => [v.sat, v.codigo])).toEqual([
      ['CFDI40130', 'informacion_global_no_aplica'],
    ]);
  });
});
