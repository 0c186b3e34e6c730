import type { Esquema } from '../contrato';
import { fechaCfdi } from '../cfdi/fecha';
import type { ConsultaCatalogos, RegimenFiscal, UsoCfdi } from '../cfdi/reglas/catalogos';
import { esRfcGenerico, personaDeRfc, validarClienteParcial } from '../cfdi/reglas';
import type { RepositorioFacturas } from '../db/repositorios/facturas';
import type { RepositorioLogos } from '../db/repositorios/logos';
import type { FilaRecibo, RepositorioRecibos } from '../db/repositorios/recibos';
import { alcanceSistema, type Alcance } from '../dominio/alcance';
import { ErrorNegocio } from '../dominio/errores';
import {
  dtoFacturaAutofactura,
  dtoReciboAutofactura,
  nombreDescarga,
  type Emisor,
  type FacturaAutofactura,
  type ReciboAutofactura,
  type Situacion,
} from '../presentacion/autofactura';
import type { Factura } from '../presentacion/factura';
import { hashClaveRecibo, normalizarClaveRecibo } from '../seguridad/claves-recibo';
import type { ServicioFacturas } from './facturas';
import type { ServicioOrganizaciones } from './organizaciones';
import type { ServicioRecibos } from './recibos';

export type DatosComprador = Esquema<'DatosCompradorAutofactura'>;
export type FacturacionAutofactura = Esquema<'FacturacionAutofactura'>;
export type ValidacionAutofactura = Esquema<'ValidacionAutofactura'>;

/** The two small catalogs the form offers as lists (the API serves them at /v1/catalogos). */
export interface ListasCatalogo {
  regimenesFiscales(): readonly RegimenFiscal[];
  usosCfdi(): readonly UsoCfdi[];
}

export interface DepsAutofactura {
  recibos: Pick<RepositorioRecibos, 'porHashClave' | 'obtener'>;
  /** The receipt's own operation: the portal invoices exactly as `POST /v1/recibos/{id}/facturar` does. */
  servicioRecibos: Pick<ServicioRecibos, 'facturar'>;
  facturas: Pick<RepositorioFacturas, 'obtener'>;
  servicioFacturas: Pick<ServicioFacturas, 'reanudar' | 'xml' | 'pdf'>;
  organizaciones: Pick<ServicioOrganizaciones, 'resolver'>;
  logos: Pick<RepositorioLogos, 'obtener'>;
  catalogos: ConsultaCatalogos;
  listas: ListasCatalogo;
  ahora?: () => Date;
}

/** What a download answers: the bytes and the file name the browser saves them under. */
export interface Descarga {
  nombre: string;
  contenido: Buffer;
}

/** The outcome of invoicing from the portal, as the receipt's own operation reports it. */
export interface ResultadoAutofactura {
  factura: FacturaAutofactura;
  pendiente: boolean;
  nueva: boolean;
}

/**
 * One answer for a malformed key, an unknown one and a cancelled receipt's: the portal never tells whether a key
 * existed. The API layer counts each of these against the client's address.
 */
export const claveNoValida = () =>
  new ErrorNegocio(
    'no_encontrado',
    'clave_no_valida',
    'No encontramos un recibo vigente con esa clave. Revise que la escribió como aparece en su ticket (16 letras y números); si el comercio canceló la venta, el recibo ya no puede facturarse.',
    'clave',
  );

const otroRfc = (emisor: Emisor) =>
  new ErrorNegocio(
    'conflicto',
    'recibo_facturado_a_otro_rfc',
    `Este recibo ya se facturó a otro RFC, y cada recibo se factura una sola vez. Si usted no lo facturó, comuníquese con ${emisor.nombre}.`,
    'rfc',
  );

const MESES = [
  'enero',
  'febrero',
  'marzo',
  'abril',
  'mayo',
  'junio',
  'julio',
  'agosto',
  'septiembre',
  'octubre',
  'noviembre',
  'diciembre',
];

/** `2027-01-04T13:42:10` → `4 de enero de 2027 a las 13:42`: a local CFDI time as a buyer reads it. */
export function fechaLegible(local: string): string {
  const [, a, m, d, hh, mm] = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(local) ?? [];
  if (!a) return local;
  return `${Number(d)} de ${MESES[Number(m) - 1]} de ${a} a las ${hh}:${mm}`;
}

export function crearServicioAutofactura(deps: DepsAutofactura) {
  const ahora = deps.ahora ?? (() => new Date());

  /** The receipt a key opens, in its own account and mode; anything else is `clave_no_valida`. */
  async function abrir(clave: string): Promise<{ a: Alcance; recibo: FilaRecibo; emisor: Emisor }> {
    const canonica = normalizarClaveRecibo(clave);
    const duenio = canonica ? await deps.recibos.porHashClave(hashClaveRecibo(canonica)) : undefined;
    if (!duenio) throw claveNoValida();
    // No API key is behind the portal: the work is the receipt's account's, done by the service itself.
    const a = alcanceSistema({ cuentaId: duenio.cuenta_id, modo: duenio.modo });
    const recibo = await deps.recibos.obtener(a, duenio.id);
    if (!recibo || recibo.estado === 'cancelado') throw claveNoValida();
    const org = await deps.organizaciones.resolver(a, recibo.organizacion_id);
    return { a, recibo, emisor: { nombre: org.nombre, rfc: org.rfc } };
  }

  const vencio = (r: FilaRecibo) => r.vence_en.getTime() <= ahora().getTime();
  const venceLocal = (r: FilaRecibo) => fechaLegible(fechaCfdi(r.vence_en, r.documento.huso_horario));
  const mensajeVencido = (r: FilaRecibo, e: Emisor) =>
    `El plazo para facturar este recibo venció el ${venceLocal(r)}. Pida su factura directamente a ${e.nombre}.`;

  function situacion(r: FilaRecibo, e: Emisor): Situacion {
    if (r.estado === 'facturado') {
      return {
        estado: 'facturado',
        facturable: false,
        aviso:
          'Este recibo ya se facturó. Si usted lo facturó, escriba el RFC con que lo hizo para ver y descargar su factura.',
      };
    }
    if (vencio(r)) return { estado: 'vencido', facturable: false, aviso: mensajeVencido(r, e) };
    if (r.estado === 'en_factura_global') {
      return {
        estado: 'en_factura_global',
        facturable: true,
        aviso: `${e.nombre} ya incluyó esta venta en su factura global al público en general: al facturarla a su nombre, la global se corrige sin ella, lo que puede tardar unos minutos.`,
      };
    }
    return { estado: 'abierto', facturable: true, aviso: null };
  }

  /**
   * The receipt's own operation speaks to integrators (receipt and invoice ids, ISO dates): the refusals a buyer
   * can meet are said again for them. Fiscal rule violations keep the API's messages unchanged.
   */
  async function paraComprador(e: unknown, a: Alcance, r: FilaRecibo, emisor: Emisor): Promise<unknown> {
    if (!(e instanceof ErrorNegocio)) return e;
    const como = (mensaje: string, parametro = e.parametro) =>
      new ErrorNegocio(e.tipo, e.codigo, mensaje, parametro, e.detalle);
    switch (e.codigo) {
      case 'recibo_no_encontrado':
        return claveNoValida();
      case 'recibo_no_abierto':
        // Only a receipt cancelled meanwhile is refused so: the same answer as any key that opens nothing.
        return claveNoValida();
      case 'factura_global_en_proceso':
        return como(
          `${emisor.nombre} está emitiendo en este momento la factura global que incluye esta venta: intente de nuevo en unos minutos.`,
          'clave',
        );
      case 'recibo_vencido':
        return como(mensajeVencido(r, emisor), 'clave');
      case 'recibo_facturado_a_otro_rfc':
        return otroRfc(emisor);
      case 'factura_no_timbrada':
        return como('Su factura aún se está timbrando: intente la descarga en unos segundos.', 'clave');
      case 'pdf_en_proceso':
        return como('El PDF de su factura se está generando: intente de nuevo en unos segundos.', 'clave');
      case 'timbrado_rechazado': {
        const f = e.detalle.factura ? await deps.facturas.obtener(a, e.detalle.factura) : undefined;
        const causa = f?.timbrado_error ? ` (${f.timbrado_error.codigo}: ${f.timbrado_error.mensaje})` : '';
        return new ErrorNegocio(
          e.tipo,
          e.codigo,
          `El SAT no aceptó la factura${causa}. Revise que sus datos sean los de su Constancia de Situación Fiscal y vuelva a intentarlo; si el problema sigue, comuníquese con ${emisor.nombre}.`,
          e.parametro,
        );
      }
      case 'sin_certificado_activo':
      case 'certificado_vencido':
        return como(
          `${emisor.nombre} no puede emitir facturas en este momento (su certificado de sello digital no está vigente). Intente más tarde o comuníquese con el comercio.`,
          'clave',
        );
      case 'pac_no_disponible':
        return como(
          'El servicio de timbrado no está disponible en este momento. Intente de nuevo en unos minutos.',
        );
      default:
        return e;
    }
  }

  /** The invoice a receipt became, to whoever gives the RFC it was invoiced to: the key alone shows no buyer. */
  async function facturaDelComprador(a: Alcance, r: FilaRecibo, rfc: string, emisor: Emisor) {
    if (r.estado !== 'facturado' || !r.factura_id) {
      throw new ErrorNegocio(
        'conflicto',
        'recibo_no_facturado',
        'Este recibo aún no se ha facturado: llene sus datos fiscales para facturarlo.',
        'clave',
      );
    }
    const f = await deps.facturas.obtener(a, r.factura_id);
    if (!f || f.documento.entrada.receptor.rfc !== rfc.toUpperCase()) {
      throw otroRfc(emisor);
    }
    return f.id;
  }

  async function resultado(
    a: Alcance,
    r: FilaRecibo,
    emisor: Emisor,
    hacer: () => Promise<{ factura: Factura; pendiente: boolean }>,
  ) {
    try {
      const x = await hacer();
      return { factura: dtoFacturaAutofactura(x.factura, emisor, x.pendiente), pendiente: x.pendiente };
    } catch (e) {
      throw await paraComprador(e, a, r, emisor);
    }
  }

  async function descarga(
    clave: string,
    rfc: string,
    extension: string,
    leer: (a: Alcance, facturaId: string) => Promise<Buffer>,
  ): Promise<Descarga> {
    const { a, recibo, emisor } = await abrir(clave);
    const id = await facturaDelComprador(a, recibo, rfc, emisor);
    try {
      const contenido = await leer(a, id);
      const f = (await deps.facturas.obtener(a, id))!;
      const e = f.documento.entrada;
      return {
        nombre: nombreDescarga({ serie: e.serie ?? null, folio: e.folio ?? null, uuid: f.uuid }, extension),
        contenido,
      };
    } catch (e) {
      throw await paraComprador(e, a, recibo, emisor);
    }
  }

  return {
    async recibo(clave: string): Promise<ReciboAutofactura> {
      const { a, recibo, emisor } = await abrir(clave);
      const logo = await deps.logos.obtener(a, recibo.organizacion_id);
      return dtoReciboAutofactura(recibo, emisor, logo, situacion(recibo, emisor), deps.catalogos);
    },

    /**
     * The buyer's data as typed so far, through the client rules `facturar` applies (a use the regime does not
     * allow is an error there, so here too), and the regimes and uses the SAT allows for what is known.
     */
    validar(d: DatosComprador): ValidacionAutofactura {
      const r = validarClienteParcial(d, deps.catalogos);
      const persona = d.rfc ? personaDeRfc(d.rfc) : null;
      const generico = d.rfc !== undefined && esRfcGenerico(d.rfc);
      const paraPersona = (x: { aplica_fisica: boolean; aplica_moral: boolean }) =>
        persona === null || (persona === 'moral' ? x.aplica_moral : x.aplica_fisica);
      const regimen = d.regimen_fiscal && deps.catalogos.regimenFiscal(d.regimen_fiscal);
      const opcion = (x: { clave: string; descripcion: string }) => ({
        clave: x.clave,
        descripcion: x.descripcion,
      });
      return {
        objeto: 'validacion_autofactura',
        errores: [...r.errores, ...r.advertencias].map((v) => ({
          codigo: v.codigo as Esquema<'CodigoError'>,
          mensaje: v.mensaje,
          parametro: v.parametro,
        })),
        regimenes_fiscales: deps.listas
          .regimenesFiscales()
          .filter((x) => paraPersona(x) && (!generico || x.clave === '616'))
          .map(opcion),
        usos_cfdi: deps.listas
          .usosCfdi()
          .filter((u) => paraPersona(u) && (!regimen || u.regimenes_receptor.includes(regimen.clave)))
          .map(opcion),
      };
    },

    /**
     * Invoices the key's receipt to the buyer through the receipt's own operation, which locks it and invoices it
     * once: a double submit or a concurrent request gets the same invoice (same RFC) or a refusal (another).
     */
    async facturar(d: FacturacionAutofactura): Promise<ResultadoAutofactura> {
      const { clave, ...comprador } = d;
      const { a, recibo, emisor } = await abrir(clave);
      let nueva = false;
      const r = await resultado(a, recibo, emisor, async () => {
        const x = await deps.servicioRecibos.facturar(a, recibo.id, comprador);
        nueva = x.nueva;
        return x;
      });
      return { ...r, nueva };
    },

    /** The invoice of an invoiced receipt again, to whoever gives its RFC (while stamping: `pendiente`). */
    async factura(clave: string, rfc: string) {
      const { a, recibo, emisor } = await abrir(clave);
      const id = await facturaDelComprador(a, recibo, rfc, emisor);
      return resultado(a, recibo, emisor, () => deps.servicioFacturas.reanudar(a, id));
    },

    async xml(clave: string, rfc: string): Promise<Descarga> {
      return descarga(clave, rfc, 'xml', async (a, id) =>
        Buffer.from(await deps.servicioFacturas.xml(a, id), 'utf8'),
      );
    },

    /** The PDF, rendered now if the queue has not stored it yet (the same path as `GET /v1/facturas/{id}/pdf`). */
    async pdf(clave: string, rfc: string): Promise<Descarga> {
      return descarga(clave, rfc, 'pdf', (a, id) => deps.servicioFacturas.pdf(a, id));
    },
  };
}

export type ServicioAutofactura = ReturnType<typeof crearServicioAutofactura>;
