import type { Logger } from '../../../log/logger';
import { verificarCancelacion, type FolioCancelacion } from '../../finkok/cancelacion';
import { CODIGOS, ESTATUS_UUID, MENSAJES } from '../../finkok/protocolo';
import type { EstatusCancelacion } from '../../puerto';
import { campo } from '../../soap/sobre';
import { elemento, escribirXml } from '../../soap/xml';
import { comoCancelable, type AlmacenTimbres } from '../almacen';
import { decidirCancelacion, type Reloj } from '../reglas-cancelacion';
import { soap, type ManejadorSoap, type Respuesta } from '../respuesta';
import { decodificarXml } from '../solicitud';
import { estadoAlDia, estadoDe } from './estado';

export interface DepsCancelar {
  almacen: AlmacenTimbres;
  reloj: () => Reloj;
  fechaLocal: () => string;
  logger: Logger;
}

export interface ResultadoFolio {
  uuid: string;
  estatusUuid: string;
  estatusCancelacion: EstatusCancelacion;
}

const MOTIVOS = ['01', '02', '03', '04'];

/** The request as a whole is refused (301) for a motive outside the catalog or 01 without its replacement. */
export function revisarFolios(folios: readonly FolioCancelacion[]): string | null {
  const invalido = folios.find((f) => !MOTIVOS.includes(f.motivo));
  if (invalido) return `Motivo "${invalido.motivo}" no está en el catálogo (01–04)`;
  const sinFolio = folios.find((f) => f.motivo === '01' && !f.folioSustitucion);
  if (sinFolio) {
    return `el Motivo 01 requiere FolioSustitucion (UUID del CFDI que sustituye a ${sinFolio.uuid})`;
  }
  return null;
}

/** The SAT's acknowledgement (CancelaCFDResponse), empty when no folio was processed. */
export function acuseCancelacion(
  rfcEmisor: string,
  fecha: string,
  folios: readonly ResultadoFolio[],
): string {
  if (folios.length === 0) return '';
  return escribirXml(
    elemento('CancelaCFDResponse', { xmlns: 'http://cancelacfd.sat.gob.mx' }, [
      elemento('CancelaCFDResult', { Fecha: fecha, RfcEmisor: rfcEmisor }, [
        elemento(
          'Folios',
          {},
          folios.flatMap((f) => [
            elemento('UUID', {}, [f.uuid]),
            elemento('EstatusUUID', {}, [f.estatusUuid]),
          ]),
        ),
      ]),
    ]),
    false,
  );
}

/**
 * cancel_signature: the signed request is verified as a whole, then each folio is decided on its own by
 * reglas-cancelacion.ts and written only if nobody changed it in between.
 */
export function crearCancelSignature(d: DepsCancelar): ManejadorSoap {
  const responder = (
    operacion: string,
    rfcEmisor: string,
    folios: ResultadoFolio[],
    codEstatus = '',
  ): Respuesta => {
    const fecha = d.fechaLocal();
    d.logger.info({ operacion, folios, codEstatus }, 'PAC sandbox: cancelación');
    return soap([
      campo(
        'Folios',
        folios.map((f) =>
          campo('Folio', [
            campo('UUID', f.uuid),
            campo('EstatusUUID', f.estatusUuid),
            campo('EstatusCancelacion', f.estatusCancelacion),
          ]),
        ),
      ),
      campo('Acuse', acuseCancelacion(rfcEmisor, fecha, folios)),
      campo('Fecha', fecha),
      campo('RfcEmisor', rfcEmisor),
      ...(codEstatus ? [campo('CodEstatus', codEstatus)] : []),
    ]);
  };

  const cancelarFolio = async (
    rfcEmisor: string,
    rfcCertificado: string,
    f: FolioCancelacion,
  ): Promise<ResultadoFolio> => {
    const con = (estatusUuid: string, estatusCancelacion: EstatusCancelacion = '') => ({
      uuid: f.uuid,
      estatusUuid,
      estatusCancelacion,
    });
    const fila = await d.almacen.porUuid(f.uuid);
    if (!fila) return con(ESTATUS_UUID.noEncontrado);
    // Only the issuer cancels, and only with its own certificate.
    const emisor = rfcEmisor.toUpperCase();
    if (fila.rfc_emisor !== emisor || rfcCertificado.toUpperCase() !== emisor) {
      return con(ESTATUS_UUID.rfcNoCorresponde);
    }
    for (let intento = 0; intento < 3; intento++) {
      const actual = intento === 0 ? fila : await d.almacen.porUuid(f.uuid);
      if (!actual) return con(ESTATUS_UUID.noEncontrado);
      const r = d.reloj();
      const relacionados = await d.almacen.tieneRelacionadosVigentes(f.uuid);
      const decision = decidirCancelacion(comoCancelable(actual), r, relacionados);
      if (decision.tipo === 'no_cancelable') return con(ESTATUS_UUID.noCancelable);
      if (decision.tipo === 'previa') {
        await estadoAlDia(d.almacen, actual, r);
        return con(ESTATUS_UUID.solicitadaAntes, decision.estado.estatusCancelacion);
      }
      const escrito = await d.almacen.cambiarEstado(f.uuid, estadoDe(actual), decision.estado, {
        cancelacion_solicitada_en: r.ahora,
        motivo: f.motivo,
        folio_sustitucion: f.folioSustitucion ?? null,
      });
      if (escrito) return con(ESTATUS_UUID.solicitada, decision.estado.estatusCancelacion);
      // Someone changed it meanwhile (a concurrent request, the receiver): decide again on the new state.
    }
    throw new Error(`la cancelación de ${f.uuid} no pudo registrarse`);
  };

  return async (s) => {
    const error = (codigo: string, detalle: string) =>
      responder(s.operacion, '', [], `${codigo} - ${MENSAJES[codigo] ?? ''}: ${detalle}`);
    const xml = decodificarXml(s.parametros['xml']);
    if (xml === null) return error(CODIGOS.xmlMalFormado, 'xml debe ser la solicitud firmada en base64');
    const v = verificarCancelacion(xml);
    if (!v.ok)
      return error(v.deCertificado ? CODIGOS.certificadoCancelacion : CODIGOS.selloMalFormado, v.motivo);
    const problema = revisarFolios(v.folios);
    if (problema) return error(CODIGOS.xmlMalFormado, problema);
    const resultados: ResultadoFolio[] = [];
    for (const f of v.folios) resultados.push(await cancelarFolio(v.rfcEmisor, v.certificado.rfc, f));
    return responder(s.operacion, v.rfcEmisor, resultados);
  };
}
