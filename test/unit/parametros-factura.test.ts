import { esDeLasPartes, parametroDeSolicitud } from '../../servicios/facturas/parametros';

describe('parametroDeSolicitud: de la ruta en el CFDI al campo de la solicitud', () => {
  it.each([
    ['Comprobante.FormaPago', 'forma_pago'],
    ['Comprobante.TipoCambio', 'tipo_cambio'],
    ['Comprobante.CondicionesDePago', 'condiciones_pago'],
    ['Comprobante.LugarExpedicion', 'lugar_expedicion'],
    ['Comprobante.SubTotal', 'conceptos'],
    ['Comprobante.Total', 'conceptos'],
    ['Comprobante.Impuestos.Traslados.Traslado[0].Importe', 'conceptos'],
    ['Comprobante.Conceptos.Concepto[2].Descuento', 'conceptos[2].descuento'],
    ['Comprobante.Conceptos.Concepto[0].ValorUnitario', 'conceptos[0].valor_unitario'],
    ['Comprobante.Conceptos.Concepto[0].ClaveProdServ', 'conceptos[0].clave_prod_serv'],
    ['Comprobante.Conceptos.Concepto[1].Importe', 'conceptos[1]'],
    ['Comprobante.Conceptos.Concepto[1].Impuestos', 'conceptos[1].impuestos'],
    [
      'Comprobante.Conceptos.Concepto[0].Impuestos.Traslados.Traslado[1].TasaOCuota',
      'conceptos[0].impuestos.traslados[1].tasa_o_cuota',
    ],
    [
      'Comprobante.Conceptos.Concepto[0].Impuestos.Retenciones.Retencion[0].Base',
      'conceptos[0].impuestos.retenciones[0]',
    ],
    ['Comprobante.CfdiRelacionados[1].TipoRelacion', 'relaciones[1].tipo_relacion'],
    ['Comprobante.CfdiRelacionados[0].CfdiRelacionado[2].UUID', 'relaciones[0]'],
  ])('%s → %s', (ruta, parametro) => {
    expect(parametroDeSolicitud(ruta)).toBe(parametro);
  });

  it('las reglas sobre los datos guardados del emisor y del receptor se dejan al timbrado', () => {
    expect(esDeLasPartes('Comprobante.Receptor.UsoCFDI')).toBe(true);
    expect(esDeLasPartes('Comprobante.Emisor.RegimenFiscal')).toBe(true);
    expect(esDeLasPartes('Comprobante.InformacionGlobal')).toBe(true);
    expect(esDeLasPartes('Comprobante.FormaPago')).toBe(false);
    expect(esDeLasPartes('Comprobante.Conceptos.Concepto[0].Descuento')).toBe(false);
  });
});
