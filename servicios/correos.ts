import type { Esquema } from '../contrato';
import type { CorreoPorIniciar, RepositorioCorreos } from '../db/repositorios/correos';
import type { RepositorioFacturas } from '../db/repositorios/facturas';
import type { Transacciones } from '../db/transacciones';
import type { Alcance } from '../dominio/alcance';
import { destinatariosPorOmision, sinRepetir, type EstadoCorreo } from '../dominio/correo';
import { ErrorNegocio, noEncontrado } from '../dominio/errores';
import { mapearTramo, type Pagina } from '../dominio/paginacion';
import { dtoCorreo } from '../presentacion/correo';

/** Starts the workflow of an email the API created (temporal/despachador.ts). */
export interface IniciadorCorreos {
  iniciarCorreos(correos: CorreoPorIniciar[]): Promise<void>;
}

export function crearServicioCorreos(deps: {
  correos: RepositorioCorreos;
  facturas: Pick<RepositorioFacturas, 'obtener'>;
  transacciones: Transacciones;
  iniciador: IniciadorCorreos;
}) {
  async function factura(a: Alcance, id: string, parametro = 'id') {
    const f = await deps.facturas.obtener(a, id);
    if (!f) throw noEncontrado('factura_no_encontrada', `La factura ${id} no existe.`, parametro);
    return f;
  }

  return {
    /**
     * `POST /v1/facturas/{id}/correo`: sends the invoice again, to the addresses given or to its client's and its
     * additional ones. A cancelled invoice goes with its acuse. Automatic email being off does not stop it.
     */
    async reenviar(a: Alcance, facturaId: string, cuerpo: Esquema<'CorreoNuevo'> = {}) {
      const f = await factura(a, facturaId);
      if (!f.uuid) {
        throw new ErrorNegocio(
          'conflicto',
          'factura_no_timbrada',
          `Solo se envía por correo una factura timbrada; la factura ${facturaId} está ${f.estado === 'borrador' ? 'en borrador' : f.estado}.`,
          'id',
        );
      }
      const propios = cuerpo.destinatarios ? undefined : await deps.correos.destinatarios(a, facturaId);
      const destinatarios = cuerpo.destinatarios
        ? sinRepetir(cuerpo.destinatarios)
        : propios
          ? destinatariosPorOmision(propios)
          : [];
      if (!destinatarios.length) {
        throw new ErrorNegocio(
          'regla_de_negocio',
          'sin_destinatarios',
          'La factura no tiene a quién enviarse: su cliente no tiene correo y la factura no tiene correos adicionales. Indique los destinatarios.',
          'destinatarios',
        );
      }
      let nuevo: CorreoPorIniciar | undefined;
      await deps.transacciones.ejecutar(async (tx) => {
        nuevo = await deps.correos.crearReenvio(tx, a, f, destinatarios);
      });
      await deps.iniciador.iniciarCorreos([nuevo!]);
      return dtoCorreo((await deps.correos.obtener(a, nuevo!.id))!);
    },

    async listar(a: Alcance, filtros: { factura?: string; estado?: EstadoCorreo }, pagina: Pagina) {
      // A filter naming an invoice outside the scope is a missing one, as in every list.
      if (filtros.factura) await factura(a, filtros.factura, 'factura');
      const t = await deps.correos.listar(a, { facturaId: filtros.factura, estado: filtros.estado }, pagina);
      return mapearTramo(t, dtoCorreo);
    },

    async obtener(a: Alcance, id: string) {
      const c = await deps.correos.obtener(a, id);
      if (!c) throw noEncontrado('correo_no_encontrado', `El correo ${id} no existe.`);
      return dtoCorreo(c);
    },
  };
}

export type ServicioCorreos = ReturnType<typeof crearServicioCorreos>;
