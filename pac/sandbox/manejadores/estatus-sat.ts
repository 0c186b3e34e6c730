import Decimal from 'decimal.js';
import { CODIGO_ESTATUS_SAT } from '../../finkok/protocolo';
import { campo } from '../../soap/sobre';
import type { ElementoXml } from '../../soap/xml';
import { comoCancelable, type AlmacenTimbres, type FilaTimbre } from '../almacen';
import { esCancelable, type Reloj } from '../reglas-cancelacion';
import { soap, type ManejadorSoap } from '../respuesta';
import { estadoAlDia } from './estado';

export interface DepsEstatusSat {
  almacen: AlmacenTimbres;
  reloj: () => Reloj;
}

/** Amounts compare as numbers: "1160" and "1160.00" are the same total. */
export function mismoImporte(a: string, b: string): boolean {
  try {
    return new Decimal(a).eq(new Decimal(b));
  } catch {
    return false;
  }
}

/** The SAT answers only when the UUID, both RFCs and the total all match what was stamped. */
export function coincideConsulta(fila: FilaTimbre, p: Readonly<Record<string, string>>): boolean {
  return (
    fila.rfc_emisor === (p['taxpayer_id'] ?? '').toUpperCase() &&
    fila.rfc_receptor === (p['rtaxpayer_id'] ?? '').toUpperCase() &&
    mismoImporte(fila.total, p['total'] ?? '')
  );
}

const NO_ENCONTRADO: ElementoXml[] = [
  campo('CodigoEstatus', CODIGO_ESTATUS_SAT.noEncontrado),
  campo('Estado', 'No Encontrado'),
  campo('EsCancelable', ''),
  campo('EstatusCancelacion', ''),
];

/** get_sat_status: what the SAT's ConsultaCFDIService would say of the CFDI now. */
export function crearGetSatStatus(d: DepsEstatusSat): ManejadorSoap {
  return async (s) => {
    const fila = await d.almacen.porUuid(s.parametros['uuid'] ?? '');
    if (!fila || !coincideConsulta(fila, s.parametros)) return soap([campo('sat', NO_ENCONTRADO)]);
    const actual = await estadoAlDia(d.almacen, fila, d.reloj());
    const relacionados = await d.almacen.tieneRelacionadosVigentes(fila.uuid);
    return soap([
      campo('sat', [
        campo('CodigoEstatus', CODIGO_ESTATUS_SAT.encontrado),
        campo('Estado', actual.estado),
        campo('EsCancelable', esCancelable(comoCancelable(fila), d.reloj(), relacionados)),
        campo('EstatusCancelacion', actual.estatusCancelacion),
      ]),
    ]);
  };
}
