import { ATRIBUTOS_TOTALES } from '../pagos/calcular';
import type { ComplementoPagosCalculado, ImpuestoPagoCalculado, PagoCalculado } from '../pagos/tipos';
import { nodo, type Nodo } from '../xml/nodo';
import { normalizarEspacios } from '../cadena';
import { ESQUEMA_CFDI, nodoEmisor, nodoReceptor, NS_CFDI, NS_XSI } from './construir';
import type { ComprobanteEntrada } from './tipos';

export const NS_PAGOS = 'http://www.sat.gob.mx/Pagos20';
const ESQUEMA_PAGOS = `${NS_PAGOS} http://www.sat.gob.mx/sitio_internet/cfd/Pagos/Pagos20.xsd`;

export type PagoDocumentoEntrada = Pick<
  ComprobanteEntrada,
  'serie' | 'folio' | 'fecha' | 'lugar_expedicion' | 'emisor' | 'no_certificado' | 'certificado'
> & {
  receptor: Omit<ComprobanteEntrada['receptor'], 'uso_cfdi'>;
  complemento: ComplementoPagosCalculado;
};

const impuestoDr = (nombre: string, sufijo: string, i: ImpuestoPagoCalculado) =>
  nodo(nombre, {
    [`Base${sufijo}`]: i.base,
    [`Impuesto${sufijo}`]: i.impuesto,
    [`TipoFactor${sufijo}`]: i.tipo_factor,
    [`TasaOCuota${sufijo}`]: i.tasa_o_cuota,
    [`Importe${sufijo}`]: i.importe,
  });

function pago(p: PagoCalculado): Nodo {
  const documentos = p.documentos.map((d) => {
    const hijos: Nodo[] = [];
    if (d.impuestos) {
      const partes: Nodo[] = [];
      if (d.impuestos.retenciones.length) {
        partes.push(
          nodo(
            'pago20:RetencionesDR',
            {},
            d.impuestos.retenciones.map((r) => impuestoDr('pago20:RetencionDR', 'DR', r)),
          ),
        );
      }
      if (d.impuestos.traslados.length) {
        partes.push(
          nodo(
            'pago20:TrasladosDR',
            {},
            d.impuestos.traslados.map((t) => impuestoDr('pago20:TrasladoDR', 'DR', t)),
          ),
        );
      }
      hijos.push(nodo('pago20:ImpuestosDR', {}, partes));
    }
    return nodo(
      'pago20:DoctoRelacionado',
      {
        IdDocumento: d.uuid.toUpperCase(),
        Serie: d.serie,
        Folio: d.folio,
        MonedaDR: d.moneda,
        EquivalenciaDR: d.equivalencia,
        NumParcialidad: d.num_parcialidad,
        ImpSaldoAnt: d.imp_saldo_anterior,
        ImpPagado: d.imp_pagado,
        ImpSaldoInsoluto: d.imp_saldo_insoluto,
        ObjetoImpDR: d.objeto_imp,
      },
      hijos,
    );
  });
  const hijos = [...documentos];
  if (p.impuestos) {
    const partes: Nodo[] = [];
    if (p.impuestos.retenciones.length) {
      partes.push(
        nodo(
          'pago20:RetencionesP',
          {},
          p.impuestos.retenciones.map((r) =>
            nodo('pago20:RetencionP', { ImpuestoP: r.impuesto, ImporteP: r.importe }),
          ),
        ),
      );
    }
    if (p.impuestos.traslados.length) {
      partes.push(
        nodo(
          'pago20:TrasladosP',
          {},
          p.impuestos.traslados.map((t) => impuestoDr('pago20:TrasladoP', 'P', t)),
        ),
      );
    }
    hijos.push(nodo('pago20:ImpuestosP', {}, partes));
  }
  return nodo(
    'pago20:Pago',
    {
      FechaPago: p.fecha_pago,
      FormaDePagoP: p.forma_pago,
      MonedaP: p.moneda,
      TipoCambioP: p.tipo_cambio,
      Monto: p.monto,
    },
    hijos,
  );
}

/** The unsealed payment CFDI (type P) with its Pagos 2.0 complement, from the calculator's output. */
export function construirComprobantePago(e: PagoDocumentoEntrada): Nodo {
  const totales: Record<string, string | undefined> = {};
  for (const [campo, atributo] of Object.entries(ATRIBUTOS_TOTALES)) {
    totales[atributo] = e.complemento.totales[campo as keyof typeof ATRIBUTOS_TOTALES];
  }
  // Fixed by Anexo 20 for type P: amounts 0, currency XXX, one "Pago" concept, use CP01.
  return nodo(
    'cfdi:Comprobante',
    {
      'xmlns:cfdi': NS_CFDI,
      'xmlns:xsi': NS_XSI,
      'xmlns:pago20': NS_PAGOS,
      'xsi:schemaLocation': `${ESQUEMA_CFDI} ${ESQUEMA_PAGOS}`,
      Version: '4.0',
      Serie: e.serie && normalizarEspacios(e.serie),
      Folio: e.folio && normalizarEspacios(e.folio),
      Fecha: e.fecha,
      NoCertificado: e.no_certificado,
      Certificado: e.certificado,
      SubTotal: '0',
      Moneda: 'XXX',
      Total: '0',
      TipoDeComprobante: 'P',
      Exportacion: '01',
      LugarExpedicion: e.lugar_expedicion,
    },
    [
      nodoEmisor(e.emisor),
      nodoReceptor(e.receptor, 'CP01'),
      nodo('cfdi:Conceptos', {}, [
        nodo('cfdi:Concepto', {
          ClaveProdServ: '84111506',
          Cantidad: '1',
          ClaveUnidad: 'ACT',
          Descripcion: 'Pago',
          ValorUnitario: '0',
          Importe: '0',
          ObjetoImp: '01',
        }),
      ]),
      nodo('cfdi:Complemento', {}, [
        nodo('pago20:Pagos', { Version: '2.0' }, [
          nodo('pago20:Totales', totales),
          ...e.complemento.pagos.map(pago),
        ]),
      ]),
    ],
  );
}
