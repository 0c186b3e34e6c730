// Reading and checking SAT digital seal certificates (CSD): bytes in, data out, no I/O.
export { leerCertificado, esEmisorDePruebas } from './certificado';
export type { CertificadoCsd, NombreDistinguido, TipoCertificado } from './certificado';
export type { UsoLlave } from './der';
export { abrirLlave, MAX_ITERACIONES_LLAVE } from './llave';
export type { LlaveAbierta } from './llave';
export { CODIGOS_CSD, ErrorCsd } from './tipos';
export type { CodigoCsd, ModoCsd, ParametroCsd } from './tipos';
export { validarCsd } from './validar';
export type { CsdValidado, EntradaCsd } from './validar';
