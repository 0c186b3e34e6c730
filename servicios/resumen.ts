import type { Esquema } from '../contrato';
import { d, fijo, type Decimal } from '../cfdi/decimal';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import type { RepositorioCobranza } from '../db/repositorios/cobranza';
import type { Alcance } from '../dominio/alcance';
import { cuentaPeriodos, periodoDe, periodos, sumarDias, type Agrupacion } from '../dominio/cobranza';
import { ErrorNegocio } from '../dominio/errores';
import { diaDeConsulta, hoyEnMexico } from './fechas';
import type { ServicioOrganizaciones } from './organizaciones';

export type ResumenFacturacion = Esquema<'ResumenFacturacion'>;
type Cifras = Esquema<'CifrasResumen'>;

export interface FiltrosResumenFacturacion {
  desde?: string;
  hasta?: string;
  agrupacion?: Agrupacion;
  organizacion?: string;
  moneda?: string;
}

/** The longest ranges a request may ask: a year by day, three years by month. */
export const MAXIMO_PERIODOS: Record<Agrupacion, number> = { dia: 366, mes: 36 };
const DIAS_POR_OMISION = 30;

interface Suma {
  facturas_timbradas: number;
  facturado: Decimal;
  facturas_canceladas: number;
  cancelado: Decimal;
  pue: Decimal;
  ppd: Decimal;
}

const vacia = (): Suma => ({
  facturas_timbradas: 0,
  facturado: d(0),
  facturas_canceladas: 0,
  cancelado: d(0),
  pue: d(0),
  ppd: d(0),
});

const cifras = (s: Suma, decimales: number): Cifras => ({
  facturas_timbradas: s.facturas_timbradas,
  importe_facturado: fijo(s.facturado, decimales),
  facturas_canceladas: s.facturas_canceladas,
  importe_cancelado: fijo(s.cancelado, decimales),
  importe_cobrado: fijo(s.pue.plus(s.ppd), decimales),
  cobrado_pue: fijo(s.pue, decimales),
  cobrado_ppd: fijo(s.ppd, decimales),
});

/**
 * The billing summary of a dashboard (`GET /v1/resumen`): per day or month, what was stamped (vigente and
 * cancelled since, apart) and what was collected (PUE at stamping, PPD instalments on the day received). Two
 * grouped index ranges (migration 023) summed per day by the database; periods and totals are summed here.
 */
export function crearServicioResumen(deps: {
  cobranza: Pick<RepositorioCobranza, 'facturadoPorDia' | 'cobradoPorDia'>;
  organizaciones: Pick<ServicioOrganizaciones, 'idDeFiltro'>;
  catalogos: Pick<ConsultaCatalogos, 'moneda'>;
  ahora?: () => Date;
}) {
  const ahora = deps.ahora ?? (() => new Date());

  return {
    async facturacion(a: Alcance, filtros: FiltrosResumenFacturacion): Promise<ResumenFacturacion> {
      const agrupacion = filtros.agrupacion ?? 'dia';
      const moneda = filtros.moneda ?? 'MXN';
      const hasta = diaDeConsulta(filtros.hasta, hoyEnMexico(ahora()), 'hasta');
      const desde = diaDeConsulta(filtros.desde, sumarDias(hasta, 1 - DIAS_POR_OMISION), 'desde');
      if (desde > hasta) {
        throw new ErrorNegocio(
          'solicitud_invalida',
          'parametro_invalido',
          `desde (${desde}) es posterior a hasta (${hasta}).`,
          'desde',
        );
      }
      if (cuentaPeriodos(desde, hasta, agrupacion) > MAXIMO_PERIODOS[agrupacion]) {
        throw new ErrorNegocio(
          'solicitud_invalida',
          'parametro_invalido',
          `El rango de ${desde} a ${hasta} tiene más de ${MAXIMO_PERIODOS[agrupacion]} ${
            agrupacion === 'dia' ? 'días' : 'meses'
          }: acórtelo${agrupacion === 'dia' ? ' o agrupe por mes (agrupacion=mes)' : ''}.`,
          'hasta',
        );
      }
      const organizacionId = await deps.organizaciones.idDeFiltro(a, filtros.organizacion);
      const f = { desde, hasta, moneda, organizacionId };
      const [facturado, cobrado] = await Promise.all([
        deps.cobranza.facturadoPorDia(a, f),
        deps.cobranza.cobradoPorDia(a, f),
      ]);

      const lista = periodos(desde, hasta, agrupacion);
      const sumas = new Map(lista.map((p) => [p.periodo, vacia()]));
      const total = vacia();
      for (const r of facturado) {
        const s = sumas.get(periodoDe(r.dia, agrupacion));
        // The queries read only the range: a day outside it cannot come (and would count nowhere).
        if (!s) continue;
        for (const x of [s, total]) {
          if (r.estado === 'cancelada') {
            x.facturas_canceladas += r.facturas;
            x.cancelado = x.cancelado.plus(r.total);
          } else {
            x.facturas_timbradas += r.facturas;
            x.facturado = x.facturado.plus(r.total);
            // PUE is paid at issue: collected when stamped.
            if (r.metodo_pago !== 'PPD') x.pue = x.pue.plus(r.total);
          }
        }
      }
      for (const r of cobrado) {
        const s = sumas.get(periodoDe(r.dia, agrupacion));
        if (!s) continue;
        for (const x of [s, total]) x.ppd = x.ppd.plus(r.total);
      }
      // An unknown currency sums nothing; two decimals, as most.
      const decimales = deps.catalogos.moneda(moneda)?.decimales ?? 2;
      return {
        objeto: 'resumen_facturacion',
        modo: a.modo,
        moneda,
        agrupacion,
        desde,
        hasta,
        organizacion: organizacionId ?? null,
        periodos: lista.map((p) => ({ ...p, ...cifras(sumas.get(p.periodo)!, decimales) })),
        totales: cifras(total, decimales),
      };
    },
  };
}

export type ServicioResumen = ReturnType<typeof crearServicioResumen>;
