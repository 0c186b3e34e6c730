import type { ConsultaCatalogos } from './catalogos';
import { validarClaveProdServ, validarClaveUnidad } from './claves';
import { validarCodigoPostal } from './codigo-postal';
import { validarImpuestos, type DesgloseImpuestos } from './impuestos';
import { validarPrecioUnitario } from './importes';
import { validarRegimen, validarRegimenRfcGenerico } from './regimen';
import { validarRfc } from './rfc';
import type { Violacion } from './tipos';
import { advertenciasUsoCfdi, validarUsoCfdi } from './uso-cfdi';

// The composites check fiscal content only: presence and JSON types are the request schema's job.
// For PATCH the caller passes the object as it would be after the change, so cross-field rules
// (regime vs RFC, uso_cfdi vs regime) see the final combination.

/** Fields of an organization the fiscal rules look at (POST body, or the merged result of a PATCH). */
export interface DatosOrganizacion {
  rfc: string;
  regimen_fiscal: string;
  codigo_postal: string;
}

/** Fields of a client the fiscal rules look at. */
export interface DatosCliente {
  rfc: string;
  regimen_fiscal: string;
  domicilio_fiscal: string;
  uso_cfdi: string;
}

/** Fields of a product the fiscal rules look at. */
export interface DatosProducto {
  valor_unitario: string;
  clave_prod_serv: string;
  clave_unidad: string;
  objeto_imp: string;
  impuestos_default?: DesgloseImpuestos | null;
}

export interface ResultadoCliente {
  /** The request must be rejected when not empty. */
  errores: Violacion[];
  /** Saved with the client (its `advertencias`): the data is accepted but an invoice would be rejected. */
  advertencias: Violacion[];
}

/** The organization is the invoices' Emisor; its postal code is their default LugarExpedicion. */
export function validarOrganizacion(datos: DatosOrganizacion, catalogos: ConsultaCatalogos): Violacion[] {
  return [
    ...validarRfc(datos.rfc, 'rfc'),
    ...validarRegimen(datos.regimen_fiscal, datos.rfc, catalogos, 'regimen_fiscal', 'emisor'),
    ...validarCodigoPostal(datos.codigo_postal, catalogos, 'codigo_postal', 'emisor'),
  ];
}

/** The client is the invoices' Receptor. */
export function validarCliente(datos: DatosCliente, catalogos: ConsultaCatalogos): ResultadoCliente {
  return validarClienteParcial(datos, catalogos);
}

/**
 * The client rules over the fields present, each with the message `validarCliente` gives: the self-invoicing
 * portal checks its buyer's data as they type with it. A rule that compares two fields runs once both are there.
 */
export function validarClienteParcial(
  datos: Partial<DatosCliente>,
  catalogos: ConsultaCatalogos,
): ResultadoCliente {
  // An absent RFC names no persona type: the rules that depend on it stay silent.
  const rfc = datos.rfc ?? '';
  const { regimen_fiscal: regimenFiscal, uso_cfdi: uso } = datos;
  const regimen =
    regimenFiscal === undefined
      ? []
      : validarRegimen(regimenFiscal, rfc, catalogos, 'regimen_fiscal', 'receptor');
  const errores = [
    ...(datos.rfc === undefined ? [] : validarRfc(datos.rfc, 'rfc')),
    ...regimen,
    // Only once the regime fits the persona type, so one wrong regime gives one error.
    ...(regimenFiscal !== undefined && regimen.length === 0
      ? validarRegimenRfcGenerico(regimenFiscal, rfc, 'regimen_fiscal')
      : []),
    ...(datos.domicilio_fiscal === undefined
      ? []
      : validarCodigoPostal(datos.domicilio_fiscal, catalogos, 'domicilio_fiscal', 'receptor')),
    ...(uso === undefined ? [] : validarUsoCfdi(uso, catalogos, 'uso_cfdi')),
  ];
  const advertencias =
    uso === undefined ? [] : advertenciasUsoCfdi(uso, regimenFiscal ?? '', rfc, catalogos, 'uso_cfdi');
  return { errores, advertencias };
}

/** A product's data is copied into invoice concepts, so it must already satisfy the concept rules. */
export function validarProducto(datos: DatosProducto, catalogos: ConsultaCatalogos): Violacion[] {
  return [
    ...validarPrecioUnitario(datos.valor_unitario, 'valor_unitario'),
    ...validarClaveProdServ(datos.clave_prod_serv, catalogos, 'clave_prod_serv'),
    ...validarClaveUnidad(datos.clave_unidad, catalogos, 'clave_unidad'),
    ...validarImpuestos(
      datos.objeto_imp,
      datos.impuestos_default,
      catalogos,
      'impuestos_default',
      'objeto_imp',
    ),
  ];
}
