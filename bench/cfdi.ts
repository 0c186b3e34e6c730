import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cadenaOriginal } from '../cfdi/cadena';
import { construirComprobante } from '../cfdi/comprobante/construir';
import { sellarComprobante } from '../cfdi/comprobante/sellar';
import type { ComprobanteEntrada } from '../cfdi/comprobante/tipos';
import { sellar } from '../cfdi/sello';
import { raizProyecto } from '../config/rutas';

/**
 * `npm run bench:cfdi`: build + cadena original + RSA-SHA256 seal + XML of a 10-concept invoice, on one
 * core (this process, one thread), with the SAT's public test CSD. Last line: cfdi_sellados_por_segundo=<n>.
 */
const CSD = join(raizProyecto(), '..', 'shared', 'sat', 'csd', 'valid-csd');
const archivos = readFileSync(join(CSD, '..', 'MANIFEST.csv'), 'utf8')
  .split('\n')
  .find((l) => l.startsWith('valid-csd/') && l.includes(',CSD,'))!
  .split(',');
const llave = createPrivateKey({
  key: readFileSync(join(CSD, '..', archivos[1]!)),
  format: 'der',
  type: 'pkcs8',
  passphrase: archivos[2]!,
});
const cert = new X509Certificate(readFileSync(join(CSD, '..', archivos[0]!)));

const entrada = (i: number): ComprobanteEntrada => ({
  tipo: 'I',
  serie: 'A',
  folio: String(i),
  fecha: '2026-11-23T10:00:00',
  forma_pago: '03',
  metodo_pago: 'PUE',
  moneda: 'MXN',
  decimales_moneda: 2,
  exportacion: '01',
  lugar_expedicion: '42501',
  emisor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601' },
  receptor: {
    rfc: 'MASO451221PM4',
    nombre: 'MARIA OLIVIA MARTINEZ SAGAZ',
    domicilio_fiscal: '80290',
    regimen_fiscal: '612',
    uso_cfdi: 'G03',
  },
  conceptos: Array.from({ length: 10 }, (_, j) => ({
    clave_prod_serv: '80111600',
    no_identificacion: `SKU-${j}`,
    cantidad: String(1 + (j % 3)),
    clave_unidad: 'E48',
    unidad: 'Servicio',
    descripcion: `Servicio de consultoría número ${j}`,
    valor_unitario: `${1000 + j * 37}.${(i + j) % 100}`,
    objeto_imp: '02',
    impuestos: {
      traslados: [{ impuesto: '002', tipo_factor: 'Tasa' as const, tasa_o_cuota: '0.160000' }],
      retenciones:
        j % 4 === 0 ? [{ impuesto: '001', tipo_factor: 'Tasa' as const, tasa_o_cuota: '0.100000' }] : [],
    },
  })),
  no_certificado: '30001000000500003416',
  certificado: cert.raw.toString('base64'),
});

function medir(nombre: string, n: number, paso: (i: number) => void): number {
  for (let i = 0; i < Math.min(200, n); i++) paso(i);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) paso(i);
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const porSegundo = n / s;
  console.log(
    `${nombre.padEnd(34)} ${(1e6 / porSegundo).toFixed(1).padStart(8)} µs/doc ${porSegundo.toFixed(0).padStart(8)} /s`,
  );
  return porSegundo;
}

const N = Number(process.env.BENCH_N ?? 4000);
const construido = construirComprobante(entrada(1)).nodo;
const cadena = cadenaOriginal(construido);
console.log(`node ${process.version}, ${N} documentos de 10 conceptos, un hilo`);
medir('construir (importes + árbol)', N, (i) => construirComprobante(entrada(i)));
medir('cadena original', N, () => cadenaOriginal(construido));
medir('sello RSA-SHA256 (node:crypto)', N, () => sellar(cadena, llave));
const total = medir('construir + cadena + sello + XML', N, (i) =>
  sellarComprobante(construirComprobante(entrada(i)).nodo, llave),
);
console.log(`cfdi_sellados_por_segundo=${total.toFixed(0)}`);
