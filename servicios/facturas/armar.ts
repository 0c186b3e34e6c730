import { sinRepetir } from '../../dominio/correo';
import type { Esquema } from '../../contrato';
import type { Alcance } from '../../dominio/alcance';
import { ErrorNegocio } from '../../dominio/errores';
import { construirComprobante } from '../../cfdi/comprobante/construir';
import type { ComprobanteEntrada, ConceptoEntrada } from '../../cfdi/comprobante/tipos';
import { fechaCfdi } from '../../cfdi/fecha';
import type { ConsultaCatalogos } from '../../cfdi/reglas/catalogos';
import {
  validarClaveProdServ,
  validarClaveUnidad,
  validarImpuestos,
  validarPrecioUnitario,
} from '../../cfdi/reglas';
import type { Violacion } from '../../cfdi/reglas/tipos';
import { validarComprobante } from '../../cfdi/validacion';
import type { FilaCliente, RepositorioClientes } from '../../db/repositorios/clientes';
import type { ServicioOrganizaciones } from '../organizaciones';
import type { ServicioProductos } from '../productos';
import { exigirSinViolaciones } from '../violaciones';
import type { DocumentoFactura } from '../../dominio/factura';
import { esDeLasPartes, parametroDeSolicitud } from './parametros';

export type ConceptoNuevo = Esquema<'ConceptoNuevo'>;

/** The request body, as the contract declares it. */
export type FacturaNueva = Esquema<'FacturaNueva'>;

const REQUERIDOS_SIN_PRODUCTO = [
  'clave_prod_serv',
  'clave_unidad',
  'descripcion',
  'valor_unitario',
  'objeto_imp',
] as const;

const invalido = (codigo: string, mensaje: string, parametro: string) =>
  new ErrorNegocio('solicitud_invalida', codigo, mensaje, parametro);

/** `cantidad` may come as a JSON number: written back as the plain decimal it is. */
function cantidadTexto(c: string | number, parametro: string): string {
  const t = typeof c === 'number' ? String(c) : c.trim();
  if (!/^\d{1,18}(\.\d{1,6})?$/.test(t) || Number(t) <= 0) {
    throw invalido(
      'parametro_invalido',
      `${parametro} debe ser un decimal positivo con hasta 6 decimales.`,
      parametro,
    );
  }
  return t;
}

export interface DepsArmar {
  organizaciones: ServicioOrganizaciones;
  productos: ServicioProductos;
  clientes: RepositorioClientes;
  catalogos: ConsultaCatalogos;
  ahora: () => Date;
}

async function resolverCliente(
  d: DepsArmar,
  a: Alcance,
  organizacionId: string,
  ref: string,
): Promise<FilaCliente> {
  if (ref.startsWith('cli_')) {
    const c = await d.clientes.obtener(a, ref);
    if (c && c.organizacion_id === organizacionId) return c;
  } else {
    const cs = await d.clientes.porRfc(a, organizacionId, ref.toUpperCase());
    if (cs.length > 1) {
      throw new ErrorNegocio(
        'regla_de_negocio',
        'cliente_ambiguo',
        `La organización tiene ${cs.length} clientes con el RFC ${ref}: indique el id (cli_…).`,
        'cliente',
      );
    }
    if (cs[0]) return cs[0];
  }
  throw new ErrorNegocio(
    'no_encontrado',
    'cliente_no_encontrado',
    `El cliente ${ref} no existe en esa organización.`,
    'cliente',
  );
}

/**
 * The document as it will be stamped, run through the same SAT-matrix engine as the stamping itself: what is
 * wrong with the request (a discount above the amount, a zero price, a payment form the SAT does not accept,
 * an amount past 18 digits) is refused now, with nothing stored. Violations about the organization's or the
 * client's stored data are left to the stamping, which records them on the draft: fixing the client or the
 * organization then lets the same draft be stamped. The certificate is only known when sealing.
 */
export function revisarComprobante(d: Pick<DepsArmar, 'catalogos' | 'ahora'>, entrada: EntradaSinSello) {
  const { nodo, importes } = construirComprobante({ ...entrada, no_certificado: '', certificado: '' });
  exigirSinViolaciones(
    validarComprobante(nodo, d.catalogos, { ahora: d.ahora() })
      .filter((v) => !esDeLasPartes(v.parametro))
      .map((v) => ({
        ...v,
        mensaje: v.sat ? `${v.mensaje} (${v.sat})` : v.mensaje,
        parametro: parametroDeSolicitud(v.parametro),
      })),
  );
  return importes;
}

export type EntradaSinSello = Omit<ComprobanteEntrada, 'no_certificado' | 'certificado'>;

/**
 * The request's concepts as the CFDI will carry them: products resolved in the caller's scope (and of the same
 * organization), the required fields of inline concepts, and their SAT codes and taxes checked. Receipts use it
 * too, so a receipt and the invoice made from it resolve and compute a concept the same way.
 */
export async function armarConceptos(
  d: Pick<DepsArmar, 'productos' | 'catalogos'>,
  a: Alcance,
  pedidos: ConceptoNuevo[],
  organizacionId: string,
): Promise<{ conceptos: ConceptoEntrada[]; productos: (string | null)[] }> {
  const violaciones: Violacion[] = [];
  const conceptos: ConceptoEntrada[] = [];
  const productos: (string | null)[] = [];
  for (const [i, c] of pedidos.entries()) {
    const p = `conceptos[${i}]`;
    const cantidad = cantidadTexto(c.cantidad, `${p}.cantidad`);
    if (c.producto) {
      const prod = await d.productos.resolver(a, c.producto, `${p}.producto`);
      if (prod.organizacion_id !== organizacionId) {
        throw new ErrorNegocio(
          'regla_de_negocio',
          'producto_de_otra_organizacion',
          `El producto ${c.producto} pertenece a otra organización.`,
          `${p}.producto`,
        );
      }
      productos.push(prod.id);
      conceptos.push({
        clave_prod_serv: c.clave_prod_serv ?? prod.clave_prod_serv,
        no_identificacion: c.no_identificacion ?? prod.no_identificacion ?? undefined,
        cantidad,
        clave_unidad: c.clave_unidad ?? prod.clave_unidad,
        unidad: c.unidad ?? prod.unidad ?? undefined,
        descripcion: c.descripcion ?? prod.descripcion,
        valor_unitario: c.valor_unitario ?? String(prod.valor_unitario),
        descuento: c.descuento,
        objeto_imp: c.objeto_imp ?? prod.objeto_imp,
        impuestos: c.impuestos ?? prod.impuestos_default,
      });
    } else {
      for (const campo of REQUERIDOS_SIN_PRODUCTO) {
        if (c[campo] === undefined) {
          throw invalido(
            'concepto_incompleto',
            `Un concepto sin producto requiere ${campo}.`,
            `${p}.${campo}`,
          );
        }
      }
      productos.push(null);
      conceptos.push({ ...(c as Required<ConceptoNuevo>), cantidad });
    }
    const x = conceptos[i]!;
    violaciones.push(
      ...validarClaveProdServ(x.clave_prod_serv, d.catalogos, `${p}.clave_prod_serv`),
      ...validarClaveUnidad(x.clave_unidad, d.catalogos, `${p}.clave_unidad`),
      ...validarPrecioUnitario(x.valor_unitario, `${p}.valor_unitario`),
      ...validarImpuestos(x.objeto_imp, x.impuestos ?? {}, d.catalogos, `${p}.impuestos`),
    );
  }
  exigirSinViolaciones(violaciones);
  return { conceptos, productos };
}

/** The currency from c_Moneda, with the exchange rate it needs (none for MXN and XXX). */
export function resolverMoneda(
  d: Pick<DepsArmar, 'catalogos'>,
  pedida: string | undefined,
  tipoCambio: string | undefined,
): { moneda: string; decimales: number } {
  const moneda = pedida ?? 'MXN';
  const registroMoneda = d.catalogos.moneda(moneda);
  if (!registroMoneda)
    throw invalido('moneda_invalida', `La moneda ${moneda} no está en el catálogo c_Moneda.`, 'moneda');
  if (moneda !== 'MXN' && moneda !== 'XXX' && !tipoCambio) {
    throw invalido(
      'tipo_cambio_requerido',
      `Con moneda ${moneda} se requiere tipo_cambio (pesos por unidad).`,
      'tipo_cambio',
    );
  }
  return { moneda, decimales: registroMoneda.decimales };
}

/**
 * Turns a create request into the stored document: resolves organization, client and products in the
 * caller's scope, applies the defaults, and refuses what is wrong with the request itself (missing fields,
 * unknown codes, invalid taxes, and every SAT-matrix rule the request alone decides).
 */
export async function armarDocumento(
  d: DepsArmar,
  a: Alcance,
  f: FacturaNueva,
  /** The request's organization, already resolved in the caller's scope (one read per request). */
  org: Awaited<ReturnType<DepsArmar['organizaciones']['resolver']>>,
): Promise<DocumentoFactura> {
  const cliente = await resolverCliente(d, a, org.id, f.cliente);

  const { conceptos, productos } = await armarConceptos(d, a, f.conceptos, org.id);
  const { moneda, decimales: decimalesMoneda } = resolverMoneda(d, f.moneda, f.tipo_cambio);
  const metodo = f.metodo_pago ?? 'PUE';
  // PPD means "paid later": the payment form is not known yet (CFDI40105).
  if (metodo === 'PPD' && f.forma_pago && f.forma_pago !== '99') {
    throw invalido(
      'forma_pago_invalida',
      'Con metodo_pago PPD la forma_pago debe ser 99 (por definir).',
      'forma_pago',
    );
  }
  if (metodo === 'PUE' && !f.forma_pago) {
    throw invalido('forma_pago_requerida', 'Con metodo_pago PUE se requiere forma_pago.', 'forma_pago');
  }
  const lugar = f.lugar_expedicion ?? org.codigo_postal;
  const cp = d.catalogos.codigoPostal(lugar);
  if (!cp)
    throw invalido('codigo_postal_invalido', `El código postal ${lugar} no existe.`, 'lugar_expedicion');

  const entrada: EntradaSinSello = {
    tipo: f.tipo === 'egreso' ? 'E' : 'I',
    serie: f.serie,
    folio: f.folio,
    fecha: fechaCfdi(d.ahora(), cp.huso_horario),
    forma_pago: metodo === 'PPD' ? '99' : f.forma_pago,
    metodo_pago: metodo,
    condiciones_pago: f.condiciones_pago,
    moneda,
    decimales_moneda: decimalesMoneda,
    tipo_cambio: moneda === 'MXN' ? undefined : f.tipo_cambio,
    exportacion: f.exportacion ?? '01',
    lugar_expedicion: lugar,
    relaciones: f.relaciones,
    emisor: { rfc: org.rfc, nombre: org.nombre, regimen_fiscal: org.regimen_fiscal },
    receptor: {
      rfc: cliente.rfc,
      nombre: cliente.nombre,
      domicilio_fiscal: cliente.domicilio_fiscal,
      regimen_fiscal: cliente.regimen_fiscal,
      uso_cfdi: cliente.uso_cfdi,
    },
    conceptos,
  };
  return {
    entrada,
    productos,
    importes: revisarComprobante(d, entrada),
    cliente: {
      id: cliente.id,
      rfc: cliente.rfc,
      nombre: cliente.nombre,
      regimen_fiscal: cliente.regimen_fiscal,
      domicilio_fiscal: cliente.domicilio_fiscal,
      uso_cfdi: cliente.uso_cfdi,
    },
    huso_horario: cp.huso_horario,
    correo: {
      enviar: f.enviar_correo !== false,
      adicionales: sinRepetir(f.correos_adicionales ?? []),
    },
  };
}
