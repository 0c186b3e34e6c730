import { Paginador } from '../paginacion';
import type {
  Certificado,
  CertificadoCambios,
  CertificadoNuevo,
  Cliente,
  ClienteCambios,
  ClienteNuevo,
  Eliminado,
  FiltrosLista,
  Organizacion,
  OrganizacionCambios,
  OrganizacionNueva,
  Producto,
  ProductoCambios,
  ProductoNuevo,
  Archivo,
  LogoOrganizacion,
  ConsultaDe,
  EstadoDeCuenta,
} from '../tipos';
import type { OpcionesSolicitud } from '../transporte';
import { Grupo, seg } from './comun';

export class Clientes extends Grupo {
  crear(datos: ClienteNuevo, opciones?: OpcionesSolicitud): Promise<Cliente> {
    return this.crearJson('/v1/clientes', datos, opciones);
  }
  obtener(id: string, opciones?: OpcionesSolicitud): Promise<Cliente> {
    return this.obtenerJson(`/v1/clientes/${seg(id)}`, opciones);
  }
  listar(filtros: FiltrosLista<'listarClientes'> = {}, opciones?: OpcionesSolicitud): Paginador<Cliente> {
    return new Paginador(this.t, '/v1/clientes', filtros, opciones);
  }
  actualizar(id: string, cambios: ClienteCambios, opciones?: OpcionesSolicitud): Promise<Cliente> {
    return this.cambiarJson(`/v1/clientes/${seg(id)}`, cambios, opciones);
  }
  eliminar(id: string, opciones?: OpcionesSolicitud): Promise<Eliminado> {
    return this.eliminarJson(`/v1/clientes/${seg(id)}`, opciones);
  }
  /** The client's statement of account as of `fecha` (`YYYY-MM-DD`, default today): invoices, payments, totals. */
  estadoDeCuenta(
    id: string,
    consulta: { fecha?: string } = {},
    opciones?: OpcionesSolicitud,
  ): Promise<EstadoDeCuenta> {
    return this.t.json({
      metodo: 'GET',
      ruta: `/v1/clientes/${seg(id)}/estado_de_cuenta`,
      consulta,
      opciones,
    });
  }
  /** The same statement as CSV (UTF-8 with BOM) bytes, as a spreadsheet opens it. */
  estadoDeCuentaCsv(
    id: string,
    consulta: { fecha?: string } = {},
    opciones?: OpcionesSolicitud,
  ): Promise<Uint8Array> {
    const c: ConsultaDe<'obtenerEstadoDeCuentaCliente'> = { ...consulta, formato: 'csv' };
    return this.t.bytes({
      metodo: 'GET',
      ruta: `/v1/clientes/${seg(id)}/estado_de_cuenta`,
      consulta: c,
      binario: 'text/csv',
      opciones,
    });
  }
}

export class Productos extends Grupo {
  crear(datos: ProductoNuevo, opciones?: OpcionesSolicitud): Promise<Producto> {
    return this.crearJson('/v1/productos', datos, opciones);
  }
  obtener(id: string, opciones?: OpcionesSolicitud): Promise<Producto> {
    return this.obtenerJson(`/v1/productos/${seg(id)}`, opciones);
  }
  listar(filtros: FiltrosLista<'listarProductos'> = {}, opciones?: OpcionesSolicitud): Paginador<Producto> {
    return new Paginador(this.t, '/v1/productos', filtros, opciones);
  }
  actualizar(id: string, cambios: ProductoCambios, opciones?: OpcionesSolicitud): Promise<Producto> {
    return this.cambiarJson(`/v1/productos/${seg(id)}`, cambios, opciones);
  }
  eliminar(id: string, opciones?: OpcionesSolicitud): Promise<Eliminado> {
    return this.eliminarJson(`/v1/productos/${seg(id)}`, opciones);
  }
}

export class Organizaciones extends Grupo {
  crear(datos: OrganizacionNueva, opciones?: OpcionesSolicitud): Promise<Organizacion> {
    return this.crearJson('/v1/organizaciones', datos, opciones);
  }
  /** By id (`org_…`) or RFC. */
  obtener(idORfc: string, opciones?: OpcionesSolicitud): Promise<Organizacion> {
    return this.obtenerJson(`/v1/organizaciones/${seg(idORfc)}`, opciones);
  }
  listar(
    filtros: FiltrosLista<'listarOrganizaciones'> = {},
    opciones?: OpcionesSolicitud,
  ): Paginador<Organizacion> {
    return new Paginador(this.t, '/v1/organizaciones', filtros, opciones);
  }
  actualizar(
    idORfc: string,
    cambios: OrganizacionCambios,
    opciones?: OpcionesSolicitud,
  ): Promise<Organizacion> {
    return this.cambiarJson(`/v1/organizaciones/${seg(idORfc)}`, cambios, opciones);
  }
  /**
   * Uploads or replaces the logo the self-invoicing portal shows: the image itself (PNG or JPEG, at most 256 KB),
   * sent with its media type, which must match its bytes.
   */
  subirLogo(
    idORfc: string,
    imagen: Archivo,
    tipo: 'image/png' | 'image/jpeg',
    opciones?: OpcionesSolicitud,
  ): Promise<LogoOrganizacion> {
    const ruta = `/v1/organizaciones/${seg(idORfc)}/logo`;
    return this.t.json({ metodo: 'PUT', ruta, crudo: { tipo, datos: imagen }, opciones });
  }
  /** The logo's bytes as uploaded (`respuestaDe(bytes)?.encabezados` has its Content-Type). */
  logo(idORfc: string, opciones?: OpcionesSolicitud): Promise<Uint8Array> {
    const ruta = `/v1/organizaciones/${seg(idORfc)}/logo`;
    return this.t.bytes({ metodo: 'GET', ruta, binario: 'image/png, image/jpeg', opciones });
  }
  eliminarLogo(idORfc: string, opciones?: OpcionesSolicitud): Promise<Eliminado> {
    return this.eliminarJson(`/v1/organizaciones/${seg(idORfc)}/logo`, opciones);
  }
}

const blob = (a: Archivo, tipo: string): Blob =>
  a instanceof Blob ? a : new Blob([a instanceof ArrayBuffer ? a : new Uint8Array(a)], { type: tipo });

export class Certificados extends Grupo {
  /**
   * Uploads a CSD as `multipart/form-data`: the `.cer` in part `cer`, the `.key` in part `llave`, and the
   * fields `organizacion` (id or RFC) and `contrasena`. The new certificate becomes the active one.
   */
  subir(datos: CertificadoNuevo, opciones?: OpcionesSolicitud): Promise<Certificado> {
    const formulario = () => {
      const f = new FormData();
      f.set('organizacion', datos.organizacion);
      f.set('contrasena', datos.contrasena);
      f.set('cer', blob(datos.cer, 'application/pkix-cert'), 'certificado.cer');
      f.set('llave', blob(datos.llave, 'application/pkcs8'), 'llave.key');
      return f;
    };
    return this.t.json({ metodo: 'POST', ruta: '/v1/certificados', formulario, opciones });
  }
  obtener(id: string, opciones?: OpcionesSolicitud): Promise<Certificado> {
    return this.obtenerJson(`/v1/certificados/${seg(id)}`, opciones);
  }
  listar(
    filtros: FiltrosLista<'listarCertificados'> = {},
    opciones?: OpcionesSolicitud,
  ): Paginador<Certificado> {
    return new Paginador(this.t, '/v1/certificados', filtros, opciones);
  }
  /** Activates or deactivates a certificate (`{ activo }`). */
  actualizar(id: string, cambios: CertificadoCambios, opciones?: OpcionesSolicitud): Promise<Certificado> {
    return this.cambiarJson(`/v1/certificados/${seg(id)}`, cambios, opciones);
  }
}
