import { ambitoDe } from '../../cfdi/xml/espacios';
import {
  elemento,
  elementosDe,
  escribirXml,
  hijoDe,
  leerXml,
  localDe,
  textoDe,
  uriDe,
  type ElementoXml,
  type NodoXml,
} from './xml';

/**
 * SOAP 1.1 envelopes, document/literal, as Finkok's services use them: the request body holds one element
 * named after the operation, whose children are the parameters (text); the response body holds
 * `<operacion>Response/<operacion>Result` with the result fields. Errors come as `Fault` (HTTP 500).
 */

export const NS_SOBRE = 'http://schemas.xmlsoap.org/soap/envelope/';
const NS_SOBRE_12 = 'http://www.w3.org/2003/05/soap-envelope';

/** A request as PHP's SoapClient writes it (SOAP-ENV and ns1 prefixes, parameters in the service namespace). */
export function solicitudSoap(
  operacion: string,
  nsServicio: string,
  parametros: readonly (readonly [string, string])[],
): string {
  return escribirXml(
    elemento('SOAP-ENV:Envelope', { 'xmlns:SOAP-ENV': NS_SOBRE, 'xmlns:ns1': nsServicio }, [
      elemento('SOAP-ENV:Body', {}, [
        elemento(
          `ns1:${operacion}`,
          {},
          parametros.map(([nombre, valor]) => elemento(`ns1:${nombre}`, {}, [valor])),
        ),
      ]),
    ]),
  );
}

/** Prefix of result fields in responses (Finkok's `s0`, namespace `apps.services.soap.core.views`). */
export const PREFIJO_CAMPOS = 's0';

/** A result field: text, or nested fields. Empty text writes `<s0:x/>`. */
export function campo(nombre: string, valor: string | readonly (ElementoXml | undefined)[]): ElementoXml {
  return elemento(
    `${PREFIJO_CAMPOS}:${nombre}`,
    {},
    typeof valor === 'string' ? [valor || undefined] : valor,
  );
}

/** A response as Finkok's server (spyne) writes it: `senv`, `tns` for the service, `s0` for the fields. */
export function respuestaSoap(
  operacion: string,
  nsServicio: string,
  nsCampos: string,
  resultado: readonly NodoXml[],
): string {
  return escribirXml(
    elemento(
      'senv:Envelope',
      { 'xmlns:senv': NS_SOBRE, 'xmlns:tns': nsServicio, [`xmlns:${PREFIJO_CAMPOS}`]: nsCampos },
      [
        elemento('senv:Body', {}, [
          elemento(`tns:${operacion}Response`, {}, [elemento(`tns:${operacion}Result`, {}, [...resultado])]),
        ]),
      ],
    ),
  );
}

export type CodigoFalla = 'Client' | 'Server';

export function faltaSoap(codigo: CodigoFalla, mensaje: string): string {
  return escribirXml(
    elemento('senv:Envelope', { 'xmlns:senv': NS_SOBRE }, [
      elemento('senv:Body', {}, [
        elemento('senv:Fault', {}, [
          elemento('faultcode', {}, [`senv:${codigo}`]),
          elemento('faultstring', {}, [mensaje]),
        ]),
      ]),
    ]),
  );
}

/** A SOAP Fault answered by the server. */
export class FallaSoap extends Error {
  constructor(
    readonly codigo: string,
    readonly mensaje: string,
  ) {
    super(`SOAP Fault ${codigo}: ${mensaje}`);
    this.name = 'FallaSoap';
  }

  /** `Client` faults blame the request: sending it again cannot help. */
  get delCliente(): boolean {
    return /(^|:)Client/i.test(this.codigo) || /(^|:)Sender/i.test(this.codigo);
  }
}

/** Not a SOAP envelope at all (HTML error page, truncated body…). */
export class SobreInvalido extends Error {
  constructor(mensaje: string) {
    super(mensaje);
    this.name = 'SobreInvalido';
  }
}

/** The single element inside Body, and the namespace it is in. */
function contenidoDelCuerpo(xml: string): { contenido: ElementoXml; ns: string | undefined } {
  let raiz: ElementoXml;
  try {
    raiz = leerXml(xml);
  } catch (e) {
    throw new SobreInvalido(`no es XML: ${(e as Error).message}`);
  }
  const uri = uriDe(raiz);
  if (localDe(raiz.nombre) !== 'Envelope' || (uri !== NS_SOBRE && uri !== NS_SOBRE_12)) {
    throw new SobreInvalido(`se esperaba un soap:Envelope y llegó <${raiz.nombre}>`);
  }
  const cuerpo = hijoDe(raiz, 'Body');
  const [contenido] = cuerpo ? elementosDe(cuerpo) : [];
  if (!cuerpo || !contenido) throw new SobreInvalido('el soap:Body está vacío');
  // The operation's prefix is usually declared on the Envelope.
  return { contenido, ns: uriDe(contenido, ambitoDe(cuerpo, ambitoDe(raiz))) };
}

export interface SolicitudLeida {
  operacion: string;
  /** Namespace of the operation element, when declared. */
  ns: string | undefined;
  /** Parameters by local name; the first occurrence wins. */
  parametros: Readonly<Record<string, string>>;
}

/** The server side: which operation, with which parameters. */
export function leerSolicitud(xml: string): SolicitudLeida {
  const { contenido, ns } = contenidoDelCuerpo(xml);
  const parametros: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const p of elementosDe(contenido)) {
    const nombre = localDe(p.nombre);
    if (!(nombre in parametros)) parametros[nombre] = textoDe(p).trim();
  }
  return { operacion: localDe(contenido.nombre), ns, parametros };
}

/**
 * The client side: the `<operacion>Result` element of the response. Throws `FallaSoap` for a Fault and
 * `SobreInvalido` when the answer is not the expected envelope.
 */
export function leerRespuesta(xml: string, operacion: string): ElementoXml {
  const { contenido } = contenidoDelCuerpo(xml);
  if (localDe(contenido.nombre) === 'Fault') {
    throw new FallaSoap(
      textoDe(hijoDe(contenido, 'faultcode')).trim() || 'desconocido',
      textoDe(hijoDe(contenido, 'faultstring')).trim(),
    );
  }
  if (localDe(contenido.nombre) !== `${operacion}Response`) {
    throw new SobreInvalido(`se esperaba ${operacion}Response y llegó <${contenido.nombre}>`);
  }
  const resultado = hijoDe(contenido, `${operacion}Result`);
  if (!resultado) throw new SobreInvalido(`${operacion}Response sin ${operacion}Result`);
  return resultado;
}
