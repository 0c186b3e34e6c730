import type { Esquema } from '../contrato';
import { fechaCfdi } from '../cfdi/fecha';
import { validarCliente } from '../cfdi/reglas';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import { nuevoId } from '../db/ids';
import type { RepositorioClientes } from '../db/repositorios/clientes';
import { clienteDeVenta, PUBLICO_EN_GENERAL } from './clientes-de-venta';
import type { RepositorioFacturas } from '../db/repositorios/facturas';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import type { FilaRecibo, RepositorioRecibos } from '../db/repositorios/recibos';
import type { Transacciones } from '../db/transacciones';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio, noEncontrado, RegistroDuplicado } from '../dominio/errores';
import { mapearTramo, type Pagina } from '../dominio/paginacion';
import { PLAZO_AUTOFACTURA_MAXIMO_DIAS, type DocumentoRecibo, type EstadoRecibo } from '../dominio/recibo';
import { qrPng, qrSvgDocumento } from '../pdf/qr-svg';
import { dtoRecibo, urlAutofactura, type Recibo } from '../presentacion/recibo';
import type { Boveda } from '../seguridad/boveda';
import { hashClaveRecibo, nuevaClaveRecibo } from '../seguridad/claves-recibo';
import type { DocumentoFactura } from '../dominio/factura';
import type { VerificadorCsd } from './certificados';
import type { CreacionIdempotente } from './creacion';
import type { ResultadoFactura, ServicioFacturas, Timbrador } from './facturas';
import { armarConceptos, resolverMoneda, revisarComprobante } from './facturas/armar';
import { exigirSinViolaciones } from './violaciones';
import { fechaLocal } from './fechas';
import type { ServicioOrganizaciones } from './organizaciones';
import type { ServicioProductos } from './productos';

/** The request body, as the contract declares it. */
export type ReciboNuevo = Esquema<'ReciboNuevo'>;
/** The buyer's fiscal data that turns a receipt into an invoice. */
export type FacturacionRecibo = Esquema<'FacturacionRecibo'>;

/** `nueva` false: the receipt was invoiced to the same RFC before (a double submit), and this is that invoice. */
export type ResultadoFacturacion = ResultadoFactura & { nueva: boolean };

export interface DepsRecibos {
  recibos: RepositorioRecibos;
  eventos: RepositorioEventos;
  transacciones: Transacciones;
  organizaciones: ServicioOrganizaciones;
  productos: ServicioProductos;
  catalogos: ConsultaCatalogos;
  /** Seals the buyer's key so the receipt's account can read it again. */
  boveda: Boveda;
  /** Origin of the self-invoicing portal (AUTOFACTURA_URL_BASE, else the API's own). */
  urlAutofactura: string;
  /** For invoicing a receipt: the invoice is created as `crear` creates one, then stamped by its service. */
  facturas: Pick<RepositorioFacturas, 'insertar' | 'obtener' | 'siguienteFolio'>;
  clientes: Pick<RepositorioClientes, 'porRfc' | 'insertar'>;
  servicioFacturas: Pick<ServicioFacturas, 'reanudar'>;
  timbrador: Pick<Timbrador, 'exigirDisponible'>;
  csdVigente: VerificadorCsd;
  reexpedicion: IniciadorReexpedicion;
  ahora?: () => Date;
}

const DIA_MS = 86_400_000;

/**
 * The CFDI a receipt's sale is, to a receiver: what checks the receipt when it is made (to PÚBLICO EN GENERAL,
 * with the invoice's own builder and SAT-matrix engine, so its totals are exactly the invoice's; rules about the
 * receiver, InformacionGlobal among them, are left to the CFDI made from it later) and what its buyer's invoice
 * carries. One builder, so both always see the same sale.
 */
function comprobanteDeVenta(
  r: Omit<DocumentoRecibo, 'productos' | 'importes' | 'huso_horario'>,
  emisor: { rfc: string; nombre: string; regimen_fiscal: string },
  receptor: {
    rfc: string;
    nombre: string;
    regimen_fiscal: string;
    domicilio_fiscal: string;
    uso_cfdi: string;
  },
  fecha: string,
) {
  return {
    tipo: 'I' as const,
    fecha,
    forma_pago: r.forma_pago,
    metodo_pago: 'PUE' as const,
    moneda: r.moneda,
    decimales_moneda: r.decimales_moneda,
    tipo_cambio: r.tipo_cambio,
    exportacion: '01',
    lugar_expedicion: r.lugar_expedicion,
    emisor,
    receptor,
    conceptos: r.conceptos,
  };
}

const regla = (codigo: string, mensaje: string, parametro: string) =>
  new ErrorNegocio('regla_de_negocio', codigo, mensaje, parametro);
const noExiste = (id: string) => noEncontrado('recibo_no_encontrado', `El recibo ${id} no existe.`);
const conflicto = (codigo: string, mensaje: string) => new ErrorNegocio('conflicto', codigo, mensaje, 'id');

/**
 * Why a receipt cannot be invoiced now; undefined when it can. One in a global invoice can: its buyer's invoice
 * then takes it out of the global (motivo 04).
 */
function impedimento(f: FilaRecibo, instante: Date): ErrorNegocio | undefined {
  if (f.estado !== 'abierto' && f.estado !== 'en_factura_global') {
    return conflicto(
      'recibo_no_abierto',
      `Solo se factura un recibo abierto o en una factura global; el recibo ${f.id} está ${f.estado}.`,
    );
  }
  if (f.vence_en.getTime() <= instante.getTime()) {
    return conflicto(
      'recibo_vencido',
      `El plazo para facturar el recibo ${f.id} venció el ${f.vence_en.toISOString()}.`,
    );
  }
  return undefined;
}

/** Starts (or joins) the workflow that takes a claimed sale out of its global invoice (temporal/reexpedidor). */
export interface IniciadorReexpedicion {
  iniciar(
    a: Alcance,
    recibo: { id: string; facturaId: string; globalId: string; organizacionId: string },
  ): Promise<void>;
}

export function crearServicioRecibos(deps: DepsRecibos) {
  const ahora = deps.ahora ?? (() => new Date());
  const repo = deps.recibos;
  const contexto = (a: Alcance, id: string) => ({ cuentaId: a.cuentaId, modo: a.modo, registroId: id });

  /** The receipt as its own account sees it: with its buyer's key, opened from the vault. */
  function conAcceso(a: Alcance, f: FilaRecibo): Recibo {
    const clave = deps.boveda
      .abrir(contexto(a, f.id), f.dek_cifrada, { clave: f.clave_cifrada }, f.version_clave)
      .clave!.toString('utf8');
    return dtoRecibo(f, { clave, url: urlAutofactura(deps.urlAutofactura, clave) });
  }

  async function fila(a: Alcance, id: string): Promise<FilaRecibo> {
    const f = await repo.obtener(a, id);
    if (!f) throw noExiste(id);
    return f;
  }

  /** A claim waits until its global invoice is stamped: only a stamped CFDI can be replaced and cancelled. */
  async function exigirGlobalTimbrada(a: Alcance, f: FilaRecibo): Promise<void> {
    const g = await deps.facturas.obtener(a, f.factura_global_id!);
    if (g?.estado !== 'timbrada') {
      throw new ErrorNegocio(
        'conflicto',
        'factura_global_en_proceso',
        `El recibo ${f.id} está en la factura global ${f.factura_global_id}, que aún se timbra o se reexpide: intente de nuevo en unos minutos.`,
        'id',
      );
    }
  }

  return {
    async crear(a: Alcance, e: ReciboNuevo, c: CreacionIdempotente = {}): Promise<Recibo> {
      // An earlier attempt with this key committed it and lost its answer: the same receipt, not a second one.
      if (c.recurso) return conAcceso(a, await fila(a, c.recurso));
      const org = await deps.organizaciones.resolver(a, e.organizacion, 'organizacion');
      if (e.forma_pago === '99') {
        throw regla(
          'forma_pago_invalida',
          'Un recibo es una venta pagada: indique cómo se pagó (la forma 99, por definir, no se admite).',
          'forma_pago',
        );
      }
      const { conceptos, productos } = await armarConceptos(deps, a, e.conceptos, org.id);
      const { moneda, decimales } = resolverMoneda(deps, e.moneda, e.tipo_cambio);
      // The organization's postal code passed the catalog when it was stored.
      const huso = deps.catalogos.codigoPostal(org.codigo_postal)!.huso_horario;
      const instante = ahora();
      const ahoraLocal = fechaCfdi(instante, huso);
      const fecha = e.fecha ? fechaLocal(e.fecha, huso, 'fecha') : ahoraLocal;
      if (fecha > ahoraLocal) {
        throw regla(
          'fecha_futura',
          `fecha ${fecha} es posterior a este momento (${ahoraLocal}, hora local): registre ventas ya hechas.`,
          'fecha',
        );
      }
      const tipoCambio = moneda === 'MXN' ? undefined : e.tipo_cambio;
      const venta = {
        forma_pago: e.forma_pago,
        moneda,
        decimales_moneda: decimales,
        ...(tipoCambio === undefined ? {} : { tipo_cambio: tipoCambio }),
        lugar_expedicion: org.codigo_postal,
        conceptos,
      };
      const importes = revisarComprobante(
        { catalogos: deps.catalogos, ahora },
        comprobanteDeVenta(
          venta,
          { rfc: org.rfc, nombre: org.nombre, regimen_fiscal: org.regimen_fiscal },
          { ...PUBLICO_EN_GENERAL, domicilio_fiscal: org.codigo_postal },
          fecha,
        ),
      );
      const venceEn = e.vence_en
        ? new Date(e.vence_en)
        : new Date(instante.getTime() + org.autofactura_plazo_dias * DIA_MS);
      const limite = instante.getTime() + PLAZO_AUTOFACTURA_MAXIMO_DIAS * DIA_MS;
      if (venceEn.getTime() <= instante.getTime() || venceEn.getTime() > limite) {
        throw regla(
          'vence_en_invalido',
          `vence_en debe ser posterior a este momento y a lo más ${PLAZO_AUTOFACTURA_MAXIMO_DIAS} días después.`,
          'vence_en',
        );
      }
      const id = nuevoId('rec');
      const clave = nuevaClaveRecibo();
      const sellado = deps.boveda.sellar(contexto(a, id), { clave: Buffer.from(clave, 'utf8') });
      try {
        await deps.transacciones.ejecutar(async (tx) => {
          await repo.insertar(tx, a, {
            id,
            organizacion_id: org.id,
            fecha,
            folio: e.folio ?? null,
            sucursal: e.sucursal ?? null,
            documento: { ...venta, huso_horario: huso, productos, importes },
            clave_hash: hashClaveRecibo(clave),
            clave_cifrada: sellado.campos.clave!,
            dek_cifrada: sellado.dekCifrada,
            version_clave: sellado.version,
            vence_en: venceEn,
          });
          await c.anotar?.(tx, id);
          await deps.eventos.registrar(
            tx,
            a,
            'recibo.creado',
            dtoRecibo((await repo.obtener(a, id, tx))!, null),
          );
        });
      } catch (err) {
        // The only other unique key is the key's hash: 80 random bits do not collide.
        if (!(err instanceof RegistroDuplicado)) throw err;
        throw new ErrorNegocio(
          'conflicto',
          'folio_duplicado',
          `La organización ya tiene un recibo con el folio ${e.folio}.`,
          'folio',
        );
      }
      return conAcceso(a, await fila(a, id));
    },

    obtener: async (a: Alcance, id: string) => conAcceso(a, await fila(a, id)),

    async listar(
      a: Alcance,
      filtros: {
        organizacion?: string;
        estado?: EstadoRecibo;
        fecha_desde?: string;
        fecha_hasta?: string;
        factura_global?: string;
      },
      pagina: Pagina,
    ) {
      const t = await repo.listar(
        a,
        {
          organizacionId: await deps.organizaciones.idDeFiltro(a, filtros.organizacion),
          estado: filtros.estado,
          fechaDesde: filtros.fecha_desde,
          fechaHasta: filtros.fecha_hasta,
          facturaGlobalId: filtros.factura_global,
        },
        pagina,
      );
      return mapearTramo(t, (f) => conAcceso(a, f));
    },

    /** Only an open receipt: one invoiced, in a global invoice or cancelled already stays as it is. */
    async cancelar(a: Alcance, id: string): Promise<Recibo> {
      await deps.transacciones.ejecutar(async (tx) => {
        if (!(await repo.cancelar(tx, a, id, ahora()))) {
          const f = await repo.obtener(a, id, tx);
          if (!f) throw noExiste(id);
          throw new ErrorNegocio(
            'conflicto',
            'recibo_no_abierto',
            `Solo se cancela un recibo abierto; el recibo ${id} está ${f.estado}.`,
            'id',
          );
        }
        await deps.eventos.registrar(
          tx,
          a,
          'recibo.cancelado',
          dtoRecibo((await repo.obtener(a, id, tx))!, null),
        );
      });
      return conAcceso(a, await fila(a, id));
    },

    /**
     * POST …/facturar: the receipt becomes one stamped invoice to its buyer. The receipt's lock makes it exactly
     * once: a second request (double submit, concurrent) waits, finds it `facturado` and gets that invoice when
     * it names the same RFC (a retry of the same buyer), a 409 otherwise (someone else already claimed the sale).
     */
    async facturar(a: Alcance, id: string, c: FacturacionRecibo): Promise<ResultadoFacturacion> {
      const rfc = c.rfc.toUpperCase();
      const yaFacturado = async (f: FilaRecibo): Promise<ResultadoFacturacion> => {
        const factura = (await deps.facturas.obtener(a, f.factura_id!))!;
        if (factura.documento.entrada.receptor.rfc !== rfc) {
          throw conflicto(
            'recibo_facturado_a_otro_rfc',
            `El recibo ${id} ya se facturó a otro RFC (factura ${f.factura_id}); un recibo se factura una sola vez.`,
          );
        }
        return { ...(await deps.servicioFacturas.reanudar(a, f.factura_id!)), nueva: false };
      };

      const previo = await fila(a, id);
      if (previo.estado === 'facturado') return yaFacturado(previo);
      const antes = impedimento(previo, ahora());
      if (antes) throw antes;
      if (previo.estado === 'en_factura_global') await exigirGlobalTimbrada(a, previo);

      // The buyer's data as a client's, and the use its regime allows as an error (for a client it is a warning
      // that can be fixed later; here the CFDI is stamped right away).
      const comprador = {
        rfc,
        nombre: c.nombre,
        regimen_fiscal: c.regimen_fiscal,
        domicilio_fiscal: c.domicilio_fiscal,
        uso_cfdi: c.uso_cfdi,
      };
      const revision = validarCliente(comprador, deps.catalogos);
      exigirSinViolaciones([...revision.errores, ...revision.advertencias]);

      const org = await deps.organizaciones.resolver(a, previo.organizacion_id);
      deps.timbrador.exigirDisponible(a);
      await deps.csdVigente(a, org.id, 'id');
      const cliente = await clienteDeVenta(
        deps,
        a,
        org.id,
        { ...comprador, correo: c.correo ?? null },
        ahora,
      );

      const r = previo.documento;
      const entrada = comprobanteDeVenta(
        r,
        { rfc: org.rfc, nombre: org.nombre, regimen_fiscal: org.regimen_fiscal },
        comprador,
        fechaCfdi(ahora(), r.huso_horario),
      );
      // The invoice carries the buyer's data as given, under the client found or created with that RFC.
      const documento: DocumentoFactura = {
        entrada,
        productos: r.productos,
        importes: revisarComprobante({ catalogos: deps.catalogos, ahora }, entrada),
        cliente: { id: cliente.id, ...comprador },
        huso_horario: r.huso_horario,
        correo: { enviar: true, adicionales: c.correo ? [c.correo] : [] },
      };

      const facturaId = nuevoId('fac');
      const hecho = await deps.transacciones.ejecutar(async (tx) => {
        const f = await repo.bloquear(tx, a, id);
        if (!f) throw noExiste(id);
        if (f.estado === 'facturado') return { previa: f, globalId: null };
        const error = impedimento(f, ahora());
        if (error) throw error;
        if (f.factura_global_id !== previo.factura_global_id) await exigirGlobalTimbrada(a, f);
        const folio = await deps.facturas.siguienteFolio(tx, org.id, '');
        await deps.facturas.insertar(tx, a, {
          id: facturaId,
          organizacion_id: org.id,
          cliente_id: cliente.id,
          tipo: 'ingreso',
          documento: { ...documento, entrada: { ...documento.entrada, folio } },
          timbrado_estado: 'pendiente',
        });
        if (f.estado === 'abierto') await repo.facturar(tx, a, id, facturaId, ahora());
        else await repo.reclamar(tx, a, id, facturaId, ahora());
        await deps.eventos.registrar(
          tx,
          a,
          'recibo.facturado',
          dtoRecibo((await repo.obtener(a, id, tx))!, null),
        );
        return { previa: undefined, globalId: f.factura_global_id };
      });
      // Another request invoiced it while this one waited for the lock.
      if (hecho.previa) return yaFacturado(hecho.previa);
      // Its sale is in a global invoice: the buyer's invoice first, then the global reissued without it and
      // cancelled with motivo 04, as one durable workflow (started again by the reconciler if this start fails).
      if (hecho.globalId) {
        await deps.reexpedicion.iniciar(a, {
          id,
          facturaId,
          globalId: hecho.globalId,
          organizacionId: org.id,
        });
      }
      return { ...(await deps.servicioFacturas.reanudar(a, facturaId)), nueva: true };
    },

    /** The QR code of the receipt's portal address, for its printed ticket. */
    async qr(a: Alcance, id: string, formato: 'png' | 'svg'): Promise<{ tipo: string; cuerpo: Buffer }> {
      const url = conAcceso(a, await fila(a, id)).url_autofactura!;
      if (formato === 'svg') {
        const svg = qrSvgDocumento(url, `Código QR para facturar el recibo ${id}`);
        return { tipo: 'image/svg+xml', cuerpo: Buffer.from(svg, 'utf8') };
      }
      return { tipo: 'image/png', cuerpo: await qrPng(url) };
    },
  };
}

export type ServicioRecibos = ReturnType<typeof crearServicioRecibos>;
