import { violacion, type Violacion } from '../reglas/tipos';

export type ModoCsd = 'test' | 'live';

/**
 * Refusal codes of a CSD upload, exactly as `POST /v1/certificados` documents them in openapi.yaml.
 * Clients branch on them: never reword.
 */
export const CODIGOS_CSD = {
  certificadoIlegible: 'certificado_ilegible',
  llaveIlegible: 'llave_ilegible',
  contrasenaIncorrecta: 'contrasena_incorrecta',
  llaveNoCorresponde: 'llave_no_corresponde',
  noEsCsd: 'certificado_no_es_csd',
  rfcNoCoincide: 'rfc_no_coincide',
  vencido: 'certificado_vencido',
  aunNoVigente: 'certificado_aun_no_vigente',
  dePrueba: 'certificado_de_prueba',
} as const;

export type CodigoCsd = (typeof CODIGOS_CSD)[keyof typeof CODIGOS_CSD];

/** Request fields the violations point at (the upload's parts). */
export type ParametroCsd = 'cer' | 'llave' | 'contrasena';

export const violacionCsd = (codigo: CodigoCsd, mensaje: string, parametro: ParametroCsd): Violacion =>
  violacion(codigo, mensaje, parametro);

/**
 * A certificate that cannot be read. Thrown by `leerCertificado` (whose callers mostly read stored,
 * already validated certificates); `validarCsd` turns it into a violation.
 */
export class ErrorCsd extends Error {
  constructor(readonly violacion: Violacion) {
    super(violacion.mensaje);
    this.name = 'ErrorCsd';
  }
}
