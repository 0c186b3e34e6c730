import type { KeyObject } from 'node:crypto';
import { abrirLlave, leerCertificado } from '../cfdi/csd';
import type { FilaCertificado, SecretosCertificado } from '../db/repositorios/certificados';
import type { Modo } from '../dominio/alcance';
import type { Boveda } from '../seguridad/boveda';

export interface CsdAbierto {
  llave: KeyObject;
  certificado: ReturnType<typeof leerCertificado>;
}

/**
 * Opens an organization's stored CSD (vault, then the .key's own password). Opened keys stay in this
 * process's memory only, never in payloads or logs: decrypting for every invoice was a large share of the
 * stamping cost.
 */
export function crearAbridorCsd(boveda: Boveda) {
  const abiertos = new Map<string, CsdAbierto>();
  return (alcance: { cuentaId: string; modo: Modo }, cert: FilaCertificado & SecretosCertificado) => {
    const guardado = abiertos.get(cert.id);
    if (guardado) return guardado;
    const secretos = boveda.abrir(
      { cuentaId: alcance.cuentaId, modo: alcance.modo, registroId: cert.id },
      cert.dek_cifrada,
      { llave: cert.llave_cifrada, contrasena: cert.contrasena_cifrada },
      cert.version_clave,
    );
    const llave = abrirLlave(secretos.llave!, secretos.contrasena!.toString('utf8'));
    if (!llave.ok) throw new Error('el CSD guardado no abre: revise la clave maestra');
    const abierto = { llave: llave.llave, certificado: leerCertificado(cert.cer) };
    abiertos.set(cert.id, abierto);
    return abierto;
  };
}
