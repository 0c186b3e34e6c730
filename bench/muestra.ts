import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ComprobanteEntrada } from '../cfdi/comprobante/tipos';
import { directorioSat } from '../config/rutas';

/** The SAT's shared data folder, beside the repository (as CI and every developer have it). */
export const DIRECTORIO_SAT = directorioSat();

/** The SAT's public test CSD (EKU9003173C9): the key and certificate the benchmarks seal with. */
export function csdDePrueba(): { llave: KeyObject; certificado: X509Certificate } {
  const fila = readFileSync(join(DIRECTORIO_SAT, 'csd', 'MANIFEST.csv'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('valid-csd/') && l.includes(',CSD,'));
  if (!fila) throw new Error('MANIFEST.csv sin CSD válido');
  const [cer = '', key = '', clave = ''] = fila.split(',');
  return {
    llave: createPrivateKey({
      key: readFileSync(join(DIRECTORIO_SAT, 'csd', key)),
      format: 'der',
      type: 'pkcs8',
      passphrase: clave,
    }),
    certificado: new X509Certificate(readFileSync(join(DIRECTORIO_SAT, 'csd', cer))),
  };
}

/** A 10-concept invoice (IVA 16 % everywhere, ISR withheld on some); `i` varies the prices and folio. */
export function facturaDiezConceptos(certificado: X509Certificate, i = 0): ComprobanteEntrada {
  return {
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
    certificado: certificado.raw.toString('base64'),
  };
}
