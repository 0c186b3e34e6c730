import { createHash, randomUUID } from 'node:crypto';
import { cadenaOriginal } from '../../cfdi/cadena';
import { ErrorCsd, leerCertificado, type CertificadoCsd } from '../../cfdi/csd';
import { fechaCfdi } from '../../cfdi/fecha';
import { sellar, verificarSello } from '../../cfdi/sello';
import { construirTimbre, extraerTimbre, insertarTimbre } from '../../cfdi/timbre';
import { validarComprobante, type CatalogosValidacion } from '../../cfdi/validacion';
import { ambitoDe, NS_CFDI40, NS_PAGOS20, partesNombre } from '../../cfdi/xml/espacios';
import { hijo, hijos, type Nodo } from '../../cfdi/xml/nodo';
import { parsear } from '../../cfdi/xml/parsear';
import { serializar } from '../../cfdi/xml/serializar';
import { CODIGOS, MENSAJES } from '../finkok/protocolo';
import type { CertificadoSat } from './certificado-sat';

/**
 * What the sandbox checks before stamping, in the order a PAC does: the XML and its structure, the
 * certificate and the seal, the date, then the SAT's matrix (validarComprobante, the same engine the
 * API runs before calling the PAC). Each check answers the code a PAC would: Finkok's own codes for
 * XML, certificate and date problems, the matrix code (CFDI40xxx) for everything else.
 */

export interface Rechazo {
  codigo: string;
  mensaje: string;
}

export const rechazo = (codigo: string, detalle?: string): Rechazo => ({
  codigo,
  mensaje: detalle ? `${MENSAJES[codigo] ?? codigo}: ${detalle}` : (MENSAJES[codigo] ?? codigo),
});

export interface ComprobanteRecibido {
  nodo: Nodo;
  /** SHA-256 of the XML as received, and of its Sello: the two keys of a stamp. */
  huella: string;
  huellaSello: string;
}

const sha256 = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');

/** Element order of cfdi:Comprobante's children in cfdv40.xsd. */
const ORDEN_HIJOS = [
  'InformacionGlobal',
  'CfdiRelacionados',
  'Emisor',
  'Receptor',
  'Conceptos',
  'Impuestos',
  'Complemento',
  'Addenda',
];
const REQUERIDOS = {
  Comprobante: [
    'Version',
    'Fecha',
    'Sello',
    'NoCertificado',
    'Certificado',
    'SubTotal',
    'Moneda',
    'Total',
    'TipoDeComprobante',
    'Exportacion',
    'LugarExpedicion',
  ],
  Emisor: ['Rfc', 'Nombre', 'RegimenFiscal'],
  Receptor: ['Rfc', 'Nombre', 'DomicilioFiscalReceptor', 'RegimenFiscalReceptor', 'UsoCFDI'],
  Concepto: [
    'ClaveProdServ',
    'Cantidad',
    'ClaveUnidad',
    'Descripcion',
    'ValorUnitario',
    'Importe',
    'ObjetoImp',
  ],
} as const;

/** Parses the document and checks what the XSD would reject cheaply. */
export function leerComprobante(xml: string): ComprobanteRecibido | Rechazo {
  let nodo: Nodo;
  try {
    nodo = parsear(xml);
  } catch (e) {
    return rechazo(CODIGOS.xmlMalFormado, (e as Error).message);
  }
  const [prefijo, local] = partesNombre(nodo.nombre);
  if (local !== 'Comprobante' || ambitoDe(nodo)[prefijo] !== NS_CFDI40) {
    return rechazo(CODIGOS.xmlMalFormado, `se esperaba cfdi:Comprobante (${NS_CFDI40})`);
  }
  if (extraerTimbre(nodo)) return rechazo(CODIGOS.timbreExistente);
  const problema = revisarEstructura(nodo, prefijo);
  if (problema) return rechazo(CODIGOS.xmlMalFormado, problema);
  return { nodo, huella: sha256(xml), huellaSello: sha256(nodo.atributos['Sello'] as string) };
}

function revisarEstructura(raiz: Nodo, prefijo: string): string | null {
  const n = (local: string) => (prefijo ? `${prefijo}:${local}` : local);
  const faltante = (nodo: Nodo, requeridos: readonly string[]) =>
    requeridos.find((a) => nodo.atributos[a] === undefined);
  const vacio = (nodo: Nodo): string | undefined =>
    Object.keys(nodo.atributos).find((a) => nodo.atributos[a] === '');

  if (raiz.atributos['Version'] !== '4.0') return 'Version debe ser "4.0"';
  let falta = faltante(raiz, REQUERIDOS.Comprobante);
  if (falta) return `falta el atributo requerido Comprobante@${falta}`;
  let posicion = -1;
  for (const h of raiz.hijos) {
    const [p, local] = partesNombre(h.nombre);
    const i = ORDEN_HIJOS.indexOf(local);
    if (p !== prefijo || i < 0) return `elemento no permitido en Comprobante: <${h.nombre}>`;
    if (i < posicion) return `<${h.nombre}> está fuera del orden del esquema`;
    if (i === posicion && local !== 'CfdiRelacionados') return `<${h.nombre}> repetido`;
    posicion = i;
  }
  const emisor = hijo(raiz, n('Emisor'));
  const receptor = hijo(raiz, n('Receptor'));
  const conceptos = hijos(
    hijo(raiz, n('Conceptos')) ?? { nombre: '', atributos: {}, hijos: [] },
    n('Concepto'),
  );
  if (!emisor) return 'falta el elemento Emisor';
  if (!receptor) return 'falta el elemento Receptor';
  if (conceptos.length === 0) return 'Conceptos debe tener al menos un Concepto';
  if ((falta = faltante(emisor, REQUERIDOS.Emisor))) return `falta el atributo requerido Emisor@${falta}`;
  if ((falta = faltante(receptor, REQUERIDOS.Receptor)))
    return `falta el atributo requerido Receptor@${falta}`;
  for (const c of conceptos) {
    if ((falta = faltante(c, REQUERIDOS.Concepto))) return `falta el atributo requerido Concepto@${falta}`;
  }
  // Every string type of the XSD has minLength 1: an empty attribute never validates.
  for (const nodo of [raiz, emisor, receptor, ...conceptos]) {
    const a = vacio(nodo);
    if (a) return `el atributo ${partesNombre(nodo.nombre)[1]}@${a} está vacío`;
  }
  return null;
}

const HORA = 3_600_000;
const TOLERANCIA_MS = 5 * 60_000;
const ANTIGUEDAD_MAXIMA_MS = 72 * HORA;

/** `YYYY-MM-DDThh:mm:ss` read as a wall-clock time, in ms. */
const relojLocal = (fecha: string): number => Date.parse(`${fecha}Z`);

export interface Contexto {
  catalogos: CatalogosValidacion;
  ahora: Date;
}

/** Time zone name of the place of issue (Tiempo del Centro when the postal code is unknown). */
function husoDe(nodo: Nodo, catalogos: CatalogosValidacion): string {
  const cp = nodo.atributos['LugarExpedicion'];
  return (cp !== undefined && catalogos.codigoPostal(cp)?.huso_horario) || 'Tiempo del Centro';
}

/** The issuer's local time now, and the instant a local Fecha stands for. */
function enZona(nodo: Nodo, c: Contexto): { ahoraLocal: number; desfase: number } {
  let local: string;
  try {
    local = fechaCfdi(c.ahora, husoDe(nodo, c.catalogos));
  } catch {
    local = fechaCfdi(c.ahora, 'Tiempo del Centro');
  }
  const ahoraLocal = relojLocal(local);
  return { ahoraLocal, desfase: ahoraLocal - c.ahora.getTime() };
}

/** Certificate and seal: CFDI40106, 306, 303, 305 and CFDI40102. Test mode: any structurally valid CSD. */
export function revisarSello(
  nodo: Nodo,
  c: Contexto,
): { certificado: CertificadoCsd; cadena: string } | Rechazo {
  const a = nodo.atributos;
  let certificado: CertificadoCsd;
  try {
    certificado = leerCertificado(Buffer.from(a['Certificado'] as string, 'base64'));
  } catch (e) {
    if (!(e instanceof ErrorCsd)) throw e;
    return { codigo: 'CFDI40106', mensaje: 'EL certificado no cumple con alguno de los valores permitidos.' };
  }
  if (certificado.noCertificado !== a['NoCertificado']) {
    return {
      codigo: 'CFDI40106',
      mensaje: `EL certificado no cumple con alguno de los valores permitidos: NoCertificado ${a['NoCertificado']} no es el número del certificado (${certificado.noCertificado}).`,
    };
  }
  if (!certificado.esCsd) return rechazo(CODIGOS.noEsCsd);
  const rfcEmisor = hijoLocal(nodo, 'Emisor')?.atributos['Rfc'];
  if (certificado.rfc.toUpperCase() !== rfcEmisor?.toUpperCase()) {
    return rechazo(
      CODIGOS.selloNoCorresponde,
      `el certificado es de ${certificado.rfc}, el emisor es ${rfcEmisor}`,
    );
  }
  const fecha = relojLocal(a['Fecha'] as string);
  if (!Number.isNaN(fecha)) {
    const instante = fecha - enZona(nodo, c).desfase;
    if (instante < certificado.validoDesde.getTime() || instante > certificado.validoHasta.getTime()) {
      return rechazo(CODIGOS.fueraDeVigencia);
    }
  }
  let cadena: string;
  try {
    cadena = cadenaOriginal(nodo);
  } catch (e) {
    return rechazo(CODIGOS.xmlMalFormado, (e as Error).message);
  }
  if (!verificarSello(cadena, a['Sello'] as string, certificado.x509)) {
    return {
      codigo: 'CFDI40102',
      mensaje: 'El resultado de la digestión debe ser igual al resultado de la desencripción del sello.',
    };
  }
  return { certificado, cadena };
}

/** 401: Fecha more than 72 h before now or after now, in the issuer's local time, ±5 min of clock skew. */
export function revisarFecha(nodo: Nodo, c: Contexto): Rechazo | null {
  const fecha = relojLocal(nodo.atributos['Fecha'] as string);
  // A Fecha that is not a date at all is the matrix's CFDI40101, reported by validarComprobante.
  if (Number.isNaN(fecha)) return null;
  const { ahoraLocal } = enZona(nodo, c);
  if (fecha > ahoraLocal + TOLERANCIA_MS || ahoraLocal - fecha > ANTIGUEDAD_MAXIMA_MS + TOLERANCIA_MS) {
    return rechazo(CODIGOS.fechaFueraDeRango);
  }
  return null;
}

/** The first violation of the SAT matrix, with its CFDI40xxx code (301 when the rule has none). */
export function revisarMatriz(nodo: Nodo, c: Contexto): Rechazo | null {
  // The date range is revisarFecha's, with its wider clock tolerance.
  const v = validarComprobante(nodo, c.catalogos, { ahora: c.ahora }).find(
    (x) => x.codigo !== 'fecha_futura',
  );
  return v ? { codigo: v.sat ?? CODIGOS.xmlMalFormado, mensaje: v.mensaje } : null;
}

const hijoLocal = (n: Nodo, local: string): Nodo | undefined =>
  n.hijos.find((h) => partesNombre(h.nombre)[1] === local);

export interface Timbre {
  xml: string;
  uuid: string;
  fechaTimbrado: string;
  selloSat: string;
}

/** Adds the TimbreFiscalDigital 1.1 signed with the sandbox's SAT certificate. */
export function timbrar(nodo: Nodo, sat: CertificadoSat, rfcPac: string, ahora: Date): Timbre {
  const uuid = randomUUID().toUpperCase();
  // The PAC's local time: central Mexico.
  const fechaTimbrado = fechaCfdi(ahora, 'Tiempo del Centro');
  const tfd = construirTimbre(
    {
      uuid,
      fechaTimbrado,
      rfcProvCertif: rfcPac,
      selloCfd: nodo.atributos['Sello'] as string,
      noCertificadoSat: sat.noCertificado,
    },
    (cadena) => sellar(cadena, sat.llave),
  );
  return {
    xml: serializar(insertarTimbre(nodo, tfd)),
    uuid,
    fechaTimbrado,
    selloSat: tfd.atributos['SelloSAT'] as string,
  };
}

/**
 * UUIDs this CFDI depends on for cancellation: related CFDIs (except as a replacement, TipoRelacion 04)
 * and the invoices a payment CFDI pays. While it is live they cannot be cancelled.
 */
export function uuidsRelacionados(nodo: Nodo): string[] {
  const uuids: string[] = [];
  for (const h of nodo.hijos) {
    const local = partesNombre(h.nombre)[1];
    if (local === 'CfdiRelacionados' && h.atributos['TipoRelacion'] !== '04') {
      for (const r of h.hijos) if (r.atributos['UUID']) uuids.push(r.atributos['UUID'].toUpperCase());
    }
    if (local === 'Complemento') {
      const ambito = ambitoDe(h, ambitoDe(nodo));
      for (const pagos of h.hijos) {
        const [p, l] = partesNombre(pagos.nombre);
        if (l !== 'Pagos' || ambitoDe(pagos, ambito)[p] !== NS_PAGOS20) continue;
        for (const pago of pagos.hijos) {
          for (const d of pago.hijos) {
            if (partesNombre(d.nombre)[1] === 'DoctoRelacionado' && d.atributos['IdDocumento']) {
              uuids.push(d.atributos['IdDocumento'].toUpperCase());
            }
          }
        }
      }
    }
  }
  return [...new Set(uuids)];
}
