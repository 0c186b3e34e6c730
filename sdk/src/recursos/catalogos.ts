import type { operations } from '../openapi';
import type { ConsultaDe, RespuestaJson } from '../tipos';
import type { OpcionesSolicitud } from '../transporte';
import { Grupo } from './comun';

type Op = keyof operations;
type Respuesta<O extends Op> = RespuestaJson<O, 200>;

/** The SAT catalogs (public, not paginated by cursor: `q` searches, `limite` bounds). */
export class Catalogos extends Grupo {
  private leer<O extends Op>(nombre: string, consulta?: object, opciones?: OpcionesSolicitud) {
    return this.t.json<Respuesta<O>>({ metodo: 'GET', ruta: `/v1/catalogos/${nombre}`, consulta, opciones });
  }
  clavesProdServ(consulta?: ConsultaDe<'listarClavesProdServ'>, opciones?: OpcionesSolicitud) {
    return this.leer<'listarClavesProdServ'>('claves_prod_serv', consulta, opciones);
  }
  clavesUnidad(consulta?: ConsultaDe<'listarClavesUnidad'>, opciones?: OpcionesSolicitud) {
    return this.leer<'listarClavesUnidad'>('claves_unidad', consulta, opciones);
  }
  codigosPostales(consulta?: ConsultaDe<'listarCodigosPostales'>, opciones?: OpcionesSolicitud) {
    return this.leer<'listarCodigosPostales'>('codigos_postales', consulta, opciones);
  }
  regimenesFiscales(opciones?: OpcionesSolicitud) {
    return this.leer<'listarRegimenesFiscales'>('regimenes_fiscales', undefined, opciones);
  }
  usosCfdi(opciones?: OpcionesSolicitud) {
    return this.leer<'listarUsosCfdi'>('usos_cfdi', undefined, opciones);
  }
  formasPago(opciones?: OpcionesSolicitud) {
    return this.leer<'listarFormasPago'>('formas_pago', undefined, opciones);
  }
  metodosPago(opciones?: OpcionesSolicitud) {
    return this.leer<'listarMetodosPago'>('metodos_pago', undefined, opciones);
  }
  monedas(opciones?: OpcionesSolicitud) {
    return this.leer<'listarMonedas'>('monedas', undefined, opciones);
  }
  exportaciones(opciones?: OpcionesSolicitud) {
    return this.leer<'listarExportaciones'>('exportaciones', undefined, opciones);
  }
  objetosImp(opciones?: OpcionesSolicitud) {
    return this.leer<'listarObjetosImp'>('objetos_imp', undefined, opciones);
  }
  tiposRelacion(opciones?: OpcionesSolicitud) {
    return this.leer<'listarTiposRelacion'>('tipos_relacion', undefined, opciones);
  }
}
