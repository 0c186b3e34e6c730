import { ATRIBUTOS_TOTALES } from '../pagos/calcular';
import type { ComplementoPagosCalculado, ImpuestoPagoCalculado, PagoCalculado } from '../pagos/tipos';
import { NS_PAGOS20 } from '../xml/espacios';
import { envoltura, nodo, type Nodo } from '../xml/nodo';
import { nodoEmisor, nodoReceptor } from './construir';
import { nodoComprobante, type EspacioComplemento } from './raiz';
import type { ComprobanteEntrada } from './tipos';

const PAGOS20: EspacioComplemento = {
  prefijo: 'pago20',
  uri: NS_PAGOS20,
  esquema: `${NS_PAGOS20} http://www.sat.gob.mx/sitio_internet/cfd/Pagos/Pagos20.xsd`,
};

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
      hijos.push(
        nodo('pago20:ImpuestosDR', {}, [
          ...envoltura('pago20:RetencionesDR', d.impuestos.retenciones, (r) =>
            impuestoDr('pago20:RetencionDR', 'DR', r),
          ),
          ...envoltura('pago20:TrasladosDR', d.impuestos.traslados, (t) =>
            impuestoDr('pago20:TrasladoDR', 'DR', t),
          ),
        ]),
      );
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
    hijos.push(
      nodo('pago20:ImpuestosP', {}, [
        ...envoltura('pago20:RetencionesP', p.impuestos.retenciones, (r) =>
          nodo('pago20:RetencionP', { ImpuestoP: r.impuesto, ImporteP: r.importe }),
        ),
        ...envoltura('pago20:TrasladosP', p.impuestos.traslados, (t) =>
          impuestoDr('pago20:TrasladoP', 'P', t),
        ),
      ]),
    );
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
  return nodoComprobante(
    {
      serie: e.serie,
      folio: e.folio,
      fecha: e.fecha,
      no_certificado: e.no_certificado,
      certificado: e.certificado,
      subtotal: '0',
      moneda: 'XXX',
      total: '0',
      tipo: 'P',
      exportacion: '01',
      lugar_expedicion: e.lugar_expedicion,
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
    PAGOS20,
  );
}
