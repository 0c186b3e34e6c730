import type { Modo } from '../dominio/alcance';
import type { PuertoPac } from '../pac/puerto';
import { crearActividadesCancelacion, type DepsCancelacion } from './cancelacion';
import { crearActividadesCertificados, type DepsAvisosCertificados } from './certificados';
import { crearActividadesCorreos, type DepsCorreos } from './correos';
import { crearActividadesEntregas, type DepsEntregas } from './entregas';
import { crearActividadesGlobales, type DepsGlobales } from './globales';
import { crearActividadesPagos, type DepsPagos } from './pagos';
import { crearActividadesPdf, type GeneradorPdf } from './pdf';
import { crearActividadesReanudacion, type DepsReanudacion } from './reanudacion';
import { crearActividadesSonda, type DepsSonda } from './sonda-salud';
import { crearActividadesTimbrado, type DepsTimbrado } from './timbrado';

export type DepsActividades = DepsSonda &
  DepsTimbrado &
  DepsPagos &
  DepsCancelacion &
  DepsEntregas &
  DepsReanudacion &
  DepsAvisosCertificados &
  DepsCorreos &
  DepsGlobales & { pdf: GeneradorPdf; pacPara(modo: Modo): PuertoPac };

/** Every activity, built from injected dependencies so tests can pass their own. */
export function crearActividades(deps: DepsActividades) {
  return {
    ...crearActividadesSonda(deps),
    ...crearActividadesTimbrado(deps),
    ...crearActividadesPagos(deps),
    ...crearActividadesPdf(deps),
    ...crearActividadesCancelacion(deps),
    ...crearActividadesEntregas(deps),
    ...crearActividadesReanudacion(deps),
    ...crearActividadesCertificados(deps),
    ...crearActividadesCorreos(deps),
    ...crearActividadesGlobales(deps),
  };
}

export type Actividades = ReturnType<typeof crearActividades>;
