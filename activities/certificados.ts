import type { RepositorioCertificados, TipoAvisoCertificado } from '../db/repositorios/certificados';
import type { RepositorioEventos } from '../db/repositorios/eventos';
import type { Transacciones } from '../db/transacciones';
import { alcanceSistema } from '../dominio/alcance';
import { RegistroDuplicado } from '../dominio/errores';
import { dtoCertificado } from '../presentacion/certificado';

/** `certificado.por_vencer` is written this long before `valido_hasta`. */
export const AVISO_VENCIMIENTO_MS = 30 * 24 * 3600 * 1000;

export interface DepsAvisosCertificados {
  certificados: Pick<RepositorioCertificados, 'sinAviso' | 'registrarAviso'>;
  eventos: Pick<RepositorioEventos, 'registrar'>;
  transacciones: Transacciones;
  ahora?: () => Date;
}

const LOTE = 500;

export function crearActividadesCertificados(d: DepsAvisosCertificados) {
  const ahora = d.ahora ?? (() => new Date());
  return {
    /**
     * Writes each due expiry notice once, event and notice in one transaction: the notice's primary key refuses
     * a second one, so overlapping or repeated runs cannot emit it twice. Returns how many it wrote.
     */
    async avisarVencimientos(): Promise<number> {
      let escritos = 0;
      const tipos: TipoAvisoCertificado[] = ['certificado.vencido', 'certificado.por_vencer'];
      for (const tipo of tipos) {
        for (;;) {
          const t = ahora();
          const lote = await d.certificados.sinAviso(
            tipo,
            t,
            new Date(t.getTime() + AVISO_VENCIMIENTO_MS),
            LOTE,
          );
          for (const c of lote) {
            try {
              await d.transacciones.ejecutar(async (tx) => {
                const a = alcanceSistema({ cuentaId: c.cuenta_id, modo: c.modo });
                const eventoId = await d.eventos.registrar(tx, a, tipo, dtoCertificado(c));
                await d.certificados.registrarAviso(tx, c.id, tipo, eventoId);
              });
              escritos += 1;
            } catch (e) {
              if (!(e instanceof RegistroDuplicado)) throw e;
            }
          }
          if (lote.length < LOTE) break;
        }
      }
      return escritos;
    },
  };
}
