import { esperarHasta, type OpcionesEspera } from '../esperar';
import { Paginador } from '../paginacion';
import type { CancelacionNueva, EstadoSat, Factura, FacturaNueva, FiltrosLista, Historia } from '../tipos';
import type { OpcionesSolicitud } from '../transporte';
import { Grupo, seg } from './comun';

const ruta = (id: string) => `/v1/facturas/${seg(id)}`;

/** `timbrado.estado` values still in progress; any other (also one added later) is final. */
const TIMBRADO_EN_CURSO: ReadonlySet<string> = new Set(['pendiente']);
/** `cancelacion.estado` values still in progress. */
const CANCELACION_EN_CURSO: ReadonlySet<string> = new Set(['solicitada', 'en_proceso']);

export class Facturas extends Grupo {
  /**
   * `POST /v1/facturas`: 201 stamped (or a draft with `auto_timbrar: false`), or 202 while the PAC is slow
   * (`timbrado.estado: pendiente`): then `esperarTimbrado(factura)`.
   */
  crear(datos: FacturaNueva, opciones?: OpcionesSolicitud): Promise<Factura> {
    return this.crearJson('/v1/facturas', datos, opciones);
  }

  obtener(id: string, opciones?: OpcionesSolicitud): Promise<Factura> {
    return this.obtenerJson(ruta(id), opciones);
  }

  /** `GET /v1/facturas`, newest first: iterate with `for await`, or `.pagina()` for one page. */
  listar(filtros: FiltrosLista<'listarFacturas'> = {}, opciones?: OpcionesSolicitud): Paginador<Factura> {
    return new Paginador(this.t, '/v1/facturas', filtros, opciones);
  }

  /** Stamps a draft (200 stamped, 202 pending). */
  timbrar(id: string, opciones?: OpcionesSolicitud): Promise<Factura> {
    return this.t.json({ metodo: 'POST', ruta: `${ruta(id)}/timbrar`, opciones });
  }

  /** Cuts the wait of a pending stamping and calls the PAC now. */
  reintentarTimbrado(id: string, opciones?: OpcionesSolicitud): Promise<Factura> {
    return this.t.json({ metodo: 'POST', ruta: `${ruta(id)}/timbrado/reintentar`, opciones });
  }

  /**
   * Abandons a pending stamping that retrying cannot fix: 200 with the invoice `fallido` (`timbrado_abandonado`),
   * or `timbrada` if the PAC had already stamped it; 202 while the abandon goes on.
   */
  abandonarTimbrado(id: string, opciones?: OpcionesSolicitud): Promise<Factura> {
    return this.t.json({ metodo: 'POST', ruta: `${ruta(id)}/timbrado/abandonar`, opciones });
  }

  /** A cancellation in progress asks the PAC (or the SAT) again now: 200 cancelled, 202 still in progress. */
  reintentarCancelacion(id: string, opciones?: OpcionesSolicitud): Promise<Factura> {
    return this.t.json({ metodo: 'POST', ruta: `${ruta(id)}/cancelacion/reintentar`, opciones });
  }

  /** Asks for the cancellation (200 cancelled, 202 in progress: then `esperarCancelacion`). */
  cancelar(id: string, datos: CancelacionNueva, opciones?: OpcionesSolicitud): Promise<Factura> {
    return this.crearJson(`${ruta(id)}/cancelar`, datos, opciones);
  }

  /** The stamped XML, byte for byte as the PAC returned it. */
  xml(id: string, opciones?: OpcionesSolicitud): Promise<Uint8Array> {
    return this.t.bytes({ metodo: 'GET', ruta: `${ruta(id)}/xml`, binario: 'application/xml', opciones });
  }

  /** The printed representation (PDF bytes). */
  pdf(id: string, opciones?: OpcionesSolicitud): Promise<Uint8Array> {
    return this.t.bytes({ metodo: 'GET', ruta: `${ruta(id)}/pdf`, binario: 'application/pdf', opciones });
  }

  /** The SAT's acuse of the cancellation, byte for byte (409 `factura_no_cancelada` until it is final). */
  acuse(id: string, opciones?: OpcionesSolicitud): Promise<Uint8Array> {
    return this.t.bytes({ metodo: 'GET', ruta: `${ruta(id)}/acuse`, binario: 'application/xml', opciones });
  }

  /** What the SAT says of the CFDI now (vigente or cancelado, cancelable or not), asked through the PAC. */
  estadoSat(id: string, opciones?: OpcionesSolicitud): Promise<EstadoSat> {
    return this.obtenerJson(`${ruta(id)}/estado_sat`, opciones);
  }

  /** The invoice's story as readable steps (created, sealed, PAC attempts, stamped, emails, payments, webhooks). */
  historia(id: string, opciones?: OpcionesSolicitud): Promise<Historia> {
    return this.obtenerJson(`${ruta(id)}/historia`, opciones);
  }

  /** The audit package (ZIP bytes). */
  auditoria(id: string, opciones?: OpcionesSolicitud): Promise<Uint8Array> {
    return this.t.bytes({
      metodo: 'GET',
      ruta: `${ruta(id)}/auditoria`,
      binario: 'application/zip',
      opciones,
    });
  }

  /**
   * Waits until `timbrado.estado` is final (`timbrada`, `fallido`…, whatever is not `pendiente`) and returns the
   * invoice as then: check `estado` / `timbrado.ultimo_error` for a rejection.
   */
  esperarTimbrado(factura: Factura | string, opciones?: OpcionesEspera): Promise<Factura> {
    return esperarHasta(
      this.t,
      factura,
      ruta,
      (f) => !TIMBRADO_EN_CURSO.has(f.timbrado.estado),
      'El timbrado',
      opciones,
    );
  }

  /**
   * Waits until the cancellation leaves `solicitada` / `en_proceso`: `aceptada` (the invoice `cancelada`),
   * `rechazada` or `vencida` (it stays `timbrada`).
   */
  esperarCancelacion(factura: Factura | string, opciones?: OpcionesEspera): Promise<Factura> {
    return esperarHasta(
      this.t,
      factura,
      ruta,
      (f) => !CANCELACION_EN_CURSO.has(f.cancelacion?.estado ?? ''),
      'La cancelación',
      opciones,
    );
  }
}
