import type { CatalogosValidacion } from '../../../cfdi/validacion';
import type { Nodo } from '../../../cfdi/xml/nodo';
import type { Logger } from '../../../log/logger';
import { CODIGOS } from '../../finkok/protocolo';
import type { AlmacenTimbres, FilaTimbre } from '../almacen';
import type { CertificadoSat } from '../certificado-sat';
import { efectoDeMagia, rechazoSimulado } from '../fallas';
import { RFC_PAC_SANDBOX } from '../identidad';
import { hayMagia, leerMagia, type Magia } from '../magia';
import type { Recurso } from '../recurso';
import { sinAceptacionPorDocumento, totalEnPesos } from '../reglas-cancelacion';
import { camposTimbre, soap, type ManejadorSoap, type Respuesta } from '../respuesta';
import { decodificarXml, RECHAZO_BASE64 } from '../solicitud';
import {
  leerComprobante,
  rechazo,
  revisarFecha,
  revisarMatriz,
  revisarSello,
  timbrar,
  uuidsRelacionados,
  type Rechazo,
  type Timbre,
} from '../timbrado';

export interface DepsTimbrar {
  almacen: AlmacenTimbres;
  certificado: Recurso<CertificadoSat>;
  catalogos: Recurso<CatalogosValidacion>;
  ahora: () => Date;
  fechaLocal: () => string;
  /** How SANDBOX:LATENCIA waits (tests pass one that does not). */
  esperar: (ms: number) => Promise<void>;
  logger: Logger;
}

/** The magic values of a document; the attributes are read only when the XML mentions them at all. */
const magiaDe = (xml: string, nodo: Nodo): Magia =>
  hayMagia(xml) ? leerMagia([nodo.atributos['Serie'], nodo.atributos['CondicionesDePago']]) : {};

/** The row a new stamp is kept as: what cancellation and get_sat_status will need later. */
export function filaDeTimbre(a: {
  nodo: Nodo;
  huella: string;
  huellaSello: string;
  rfcCertificado: string;
  timbre: Timbre;
  sat: CertificadoSat;
  magia: Magia;
  ahora: Date;
}): FilaTimbre {
  const { nodo, timbre } = a;
  const receptor = (
    nodo.hijos.find((h) => h.nombre.endsWith('Receptor'))?.atributos['Rfc'] ?? ''
  ).toUpperCase();
  const tipo = nodo.atributos['TipoDeComprobante'] as string;
  const total = nodo.atributos['Total'] as string;
  const totalMxn = totalEnPesos(total, nodo.atributos['TipoCambio']);
  return {
    huella: a.huella,
    huella_sello: a.huellaSello,
    uuid: timbre.uuid,
    rfc_emisor: a.rfcCertificado.toUpperCase(),
    rfc_receptor: receptor,
    total,
    total_mxn: totalMxn,
    tipo_comprobante: tipo,
    xml_timbrado: timbre.xml,
    fecha_timbrado: a.ahora,
    fecha_timbrado_local: timbre.fechaTimbrado,
    no_certificado_sat: a.sat.noCertificado,
    sello_sat: timbre.selloSat,
    estado: 'Vigente',
    es_cancelable: sinAceptacionPorDocumento({ tipo, totalMxn, rfcReceptor: receptor })
      ? 'Cancelable sin aceptación'
      : 'Cancelable con aceptación',
    estatus_cancelacion: '',
    cancelacion_solicitada_en: null,
    motivo: null,
    folio_sustitucion: null,
    relacionados: uuidsRelacionados(a.nodo).join(',') || null,
    forzar_aceptacion: a.magia.conAceptacion ? 1 : 0,
    plazo_aceptacion_ms: a.magia.plazoMs ?? null,
  };
}

/**
 * stamp (`rapido` false) and quick_stamp (`rapido` true): the checks in timbrado.ts in a PAC's order,
 * the document's magic, then the TimbreFiscalDigital. A repeated document gets 307 with its first stamp;
 * quick_stamp only says it was stamped before.
 */
export function crearTimbrar(d: DepsTimbrar, rapido: boolean): ManejadorSoap {
  const previo = rechazo(CODIGOS.timbrePrevio);
  return async (s) => {
    const { operacion } = s;
    const contestar = (fila: FilaTimbre | undefined, incidencias: Rechazo[], conXml = true): Respuesta => {
      d.logger.info(
        { operacion, uuid: fila?.uuid, codigo: incidencias[0]?.codigo },
        incidencias.length ? 'PAC sandbox: incidencia' : 'PAC sandbox: timbrado',
      );
      return soap(camposTimbre(fila, incidencias, d.fechaLocal(), conXml));
    };
    const xml = decodificarXml(s.parametros['xml']);
    if (xml === null) return contestar(undefined, [RECHAZO_BASE64]);
    const leido = leerComprobante(xml);
    if ('codigo' in leido) return contestar(undefined, [leido]);
    const { nodo } = leido;

    const magia = magiaDe(xml, nodo);
    if (magia.latenciaMs) await d.esperar(magia.latenciaMs);
    const efecto = efectoDeMagia(magia);
    if (efecto) return efecto;

    const existente = await d.almacen.porHuellas(leido.huella, leido.huellaSello);
    if (existente) return contestar(existente, [previo], !rapido);
    const simulado = rechazoSimulado(magia);
    if (simulado) return contestar(undefined, [simulado]);

    const ctx = { catalogos: await d.catalogos(), ahora: d.ahora() };
    const sello = revisarSello(nodo, ctx);
    if ('codigo' in sello) return contestar(undefined, [sello]);
    const fueraDeRango = revisarFecha(nodo, ctx) ?? revisarMatriz(nodo, ctx);
    if (fueraDeRango) return contestar(undefined, [fueraDeRango]);

    const sat = await d.certificado();
    const fila = filaDeTimbre({
      nodo,
      huella: leido.huella,
      huellaSello: leido.huellaSello,
      rfcCertificado: sello.certificado.rfc,
      timbre: timbrar(nodo, sat, RFC_PAC_SANDBOX, ctx.ahora),
      sat,
      magia,
      ahora: ctx.ahora,
    });
    const r = await d.almacen.insertar(fila);
    // A concurrent request with the same document won: it is that stamp, and this one is a repeat.
    if (!r.nueva) return contestar(r.existente, [previo], !rapido);
    if (magia.perdida) {
      d.logger.info(
        { operacion, uuid: fila.uuid },
        'PAC sandbox: timbrado y respuesta perdida (SANDBOX:PERDIDA)',
      );
      return { tipo: 'cortar' };
    }
    return contestar(fila, []);
  };
}
