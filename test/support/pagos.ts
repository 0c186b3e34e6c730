import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calcularPagos, type LineaImpuestoPago, type TotalesPagos } from '../../cfdi/pagos';
import { verificarSello } from '../../cfdi/sello';
import type { Nodo } from '../../cfdi/xml/nodo';
import { parsear } from '../../cfdi/xml/parsear';
import { archivoSat, CSD_VALIDO } from './certificados';
import type { ClienteHttp } from './cliente-http';
import { cadenaPorXslt, directorioTemporal, validarConEsquema } from './xslt';

/** Every descendant (and the node itself) with that name, in document order. */
export function buscar(n: Nodo, nombre: string): Nodo[] {
  return [...(n.nombre === nombre ? [n] : []), ...n.hijos.flatMap((h) => buscar(h, nombre))];
}

export interface FacturaPagadaApi {
  factura: string;
  uuid: string;
  moneda: string;
  equivalencia: string | null;
  num_parcialidad: number;
  imp_saldo_anterior: string;
  imp_pagado: string;
  imp_saldo_insoluto: string;
  objeto_imp: string;
  vigente: boolean;
}

export interface PagoApi {
  id: string;
  organizacion: string;
  factura_pago: string;
  estado: string;
  uuid: string | null;
  fecha_pago: string;
  forma_pago: string;
  moneda: string;
  tipo_cambio: string | null;
  monto: string;
  facturas_pagadas: FacturaPagadaApi[];
}

// Totales as the complement names them, one per calculator field (written here, not imported).
const ATRIBUTO_TOTAL: Record<keyof TotalesPagos, string> = {
  total_retenciones_iva: 'TotalRetencionesIVA',
  total_retenciones_isr: 'TotalRetencionesISR',
  total_retenciones_ieps: 'TotalRetencionesIEPS',
  total_traslados_base_iva16: 'TotalTrasladosBaseIVA16',
  total_traslados_impuesto_iva16: 'TotalTrasladosImpuestoIVA16',
  total_traslados_base_iva8: 'TotalTrasladosBaseIVA8',
  total_traslados_impuesto_iva8: 'TotalTrasladosImpuestoIVA8',
  total_traslados_base_iva0: 'TotalTrasladosBaseIVA0',
  total_traslados_impuesto_iva0: 'TotalTrasladosImpuestoIVA0',
  total_traslados_base_iva_exento: 'TotalTrasladosBaseIVAExento',
  monto_total_pagos: 'MontoTotalPagos',
};

/** Decimals per currency of the tests (c_Moneda). */
const DECIMALES: Record<string, number> = { MXN: 2, USD: 2 };

/**
 * The tax rows of a paid invoice read from its stamped XML (the invoice-level summary: one row per tax,
 * factor and rate, with its Base), as the calculator prorates them.
 */
function impuestosDeFactura(factura: Nodo) {
  const resumen = factura.hijos.find((h) => h.nombre === 'cfdi:Impuestos');
  const filas = (nombre: string): LineaImpuestoPago[] =>
    resumen
      ? buscar(resumen, nombre).map((t) => ({
          impuesto: t.atributos.Impuesto!,
          tipo_factor: t.atributos.TipoFactor!,
          tasa_o_cuota: t.atributos.TasaOCuota ?? null,
          base: t.atributos.Base!,
          importe: t.atributos.Importe ?? null,
        }))
      : [];
  return { traslados: filas('cfdi:Traslado'), retenciones: filas('cfdi:Retencion') };
}

/** The Totales the project's calculator gives for the payment as the API shows it and its invoices' XML. */
export function totalesEsperados(pago: PagoApi, facturas: Map<string, Nodo>): Record<string, string> {
  const r = calcularPagos({
    pagos: [
      {
        fecha_pago: pago.fecha_pago,
        forma_pago: pago.forma_pago,
        moneda: pago.moneda,
        decimales_moneda: DECIMALES[pago.moneda]!,
        tipo_cambio: pago.tipo_cambio,
        monto: pago.monto,
        documentos: pago.facturas_pagadas.map((p) => {
          const f = facturas.get(p.factura)!;
          return {
            uuid: p.uuid,
            moneda: p.moneda,
            decimales_moneda: DECIMALES[p.moneda]!,
            equivalencia: p.equivalencia,
            num_parcialidad: p.num_parcialidad,
            imp_saldo_anterior: p.imp_saldo_anterior,
            imp_pagado: p.imp_pagado,
            objeto_imp: p.objeto_imp,
            total_factura: f.atributos.Total!,
            impuestos_factura: impuestosDeFactura(f),
          };
        }),
      },
    ],
  });
  if (!r.ok) throw new Error(`el calculador rechazó el pago: ${JSON.stringify(r.violaciones)}`);
  return Object.fromEntries(
    Object.entries(r.complemento.totales).map(([k, v]) => [ATRIBUTO_TOTAL[k as keyof TotalesPagos], v]),
  );
}

/**
 * Checks the payment CFDIs a test file produces: each one's seal against the SAT XSLT's cadena, its
 * DoctoRelacionado against the API's figures and its Totales against the calculator; all of them against
 * the SAT schemas at the end, in one xmllint run.
 */
export function crearVerificadorPagos(http: () => ClienteHttp) {
  const { ruta, borrar } = directorioTemporal('pagos-cfdi-');
  const archivos: string[] = [];
  const facturas = new Map<string, Nodo>();
  const certificado = new X509Certificate(archivoSat(CSD_VALIDO.cer));

  const xml = async (id: string): Promise<string> => {
    const r = await http().get(`/v1/facturas/${id}/xml`);
    expect(r.status).toBe(200);
    return r.body as string;
  };

  return {
    xml,
    /** The payment CFDI, parsed, once checked. */
    async comprobar(pago: PagoApi): Promise<Nodo> {
      const texto = await xml(pago.factura_pago);
      const archivo = join(ruta, `${pago.id}.xml`);
      writeFileSync(archivo, texto);
      archivos.push(archivo);
      const nodo = parsear(texto);
      expect(verificarSello(cadenaPorXslt(texto), nodo.atributos.Sello!, certificado)).toBe(true);

      for (const p of pago.facturas_pagadas)
        if (!facturas.has(p.factura)) facturas.set(p.factura, parsear(await xml(p.factura)));
      const [complemento] = buscar(nodo, 'pago20:Pagos');
      const [pagoXml] = buscar(complemento!, 'pago20:Pago');
      expect(pagoXml!.atributos).toMatchObject({
        FormaDePagoP: pago.forma_pago,
        MonedaP: pago.moneda,
        Monto: pago.monto,
        FechaPago: pago.fecha_pago,
      });
      const doctos = buscar(pagoXml!, 'pago20:DoctoRelacionado');
      expect(
        doctos.map((x) => ({
          IdDocumento: x.atributos.IdDocumento,
          MonedaDR: x.atributos.MonedaDR,
          NumParcialidad: x.atributos.NumParcialidad,
          ImpSaldoAnt: x.atributos.ImpSaldoAnt,
          ImpPagado: x.atributos.ImpPagado,
          ImpSaldoInsoluto: x.atributos.ImpSaldoInsoluto,
          ObjetoImpDR: x.atributos.ObjetoImpDR,
        })),
      ).toEqual(
        pago.facturas_pagadas.map((p) => ({
          IdDocumento: p.uuid,
          MonedaDR: p.moneda,
          NumParcialidad: String(p.num_parcialidad),
          ImpSaldoAnt: p.imp_saldo_anterior,
          ImpPagado: p.imp_pagado,
          ImpSaldoInsoluto: p.imp_saldo_insoluto,
          ObjetoImpDR: p.objeto_imp,
        })),
      );
      const [totales] = buscar(complemento!, 'pago20:Totales');
      expect(totales!.atributos).toEqual(totalesEsperados(pago, facturas));
      return nodo;
    },
    /** Every CFDI checked so far, against the SAT schemas; returns how many. */
    validarEsquemas(): number {
      const errores = validarConEsquema(archivos);
      expect([...errores].filter(([, e]) => e.length > 0)).toEqual([]);
      return archivos.length;
    },
    borrar,
  };
}
