import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import { mapearTramo, type Pagina, type Tramo } from '../../dominio/paginacion';
import { paginar } from '../paginacion';
import { columnasAlcance, conAlcance, sinDuplicar } from './con-alcance';

export interface FilaOrganizacion {
  id: string;
  modo: Modo;
  rfc: string;
  nombre: string;
  regimen_fiscal: string;
  codigo_postal: string;
  color_acento: string;
  /** The Reply-To of its emails to receivers. */
  correo: string | null;
  /** Whether its invoices are emailed when stamped and cancelled. */
  correo_automatico: boolean;
  /** Days its receipts may be invoiced by their buyers unless a receipt says otherwise. */
  autofactura_plazo_dias: number;
  /** Its global invoice issued by a Temporal Schedule after each period of `factura_global_periodicidad`. */
  factura_global_automatica: boolean;
  factura_global_periodicidad: string;
  /** False from a change of those two until its schedule matches them. */
  factura_global_sincronizada: boolean;
  creado_en: Date;
  actualizado_en: Date;
  cert_id: string | null;
  cert_no_certificado: string | null;
  cert_valido_hasta: Date | null;
}

export type DatosOrganizacion = Pick<
  FilaOrganizacion,
  'rfc' | 'nombre' | 'regimen_fiscal' | 'codigo_postal' | 'color_acento'
> &
  Partial<
    Pick<
      FilaOrganizacion,
      | 'correo'
      | 'correo_automatico'
      | 'autofactura_plazo_dias'
      | 'factura_global_automatica'
      | 'factura_global_periodicidad'
      | 'factura_global_sincronizada'
    >
  >;

export function crearRepositorioOrganizaciones(db: Knex) {
  // The active certificate travels with the organization: integrators see at once whether it can stamp.
  const consulta = (a: Alcance) =>
    conAlcance(db, 'organizaciones', a)
      .leftJoin('certificados as c', function () {
        this.on('c.organizacion_id', 'organizaciones.id').andOnVal('c.activo', 1);
      })
      .select('organizaciones.id', 'organizaciones.modo', 'organizaciones.rfc', 'organizaciones.nombre')
      .select('organizaciones.regimen_fiscal', 'organizaciones.codigo_postal', 'organizaciones.color_acento')
      .select('organizaciones.correo', 'organizaciones.correo_automatico')
      .select('organizaciones.autofactura_plazo_dias')
      .select(
        'organizaciones.factura_global_automatica',
        'organizaciones.factura_global_periodicidad',
        'organizaciones.factura_global_sincronizada',
      )
      .select('organizaciones.creado_en', 'organizaciones.actualizado_en')
      .select(
        'c.id as cert_id',
        'c.no_certificado as cert_no_certificado',
        'c.valido_hasta as cert_valido_hasta',
      );

  // MariaDB answers a boolean column as 0 or 1.
  const leer = (f: FilaOrganizacion): FilaOrganizacion => ({
    ...f,
    correo_automatico: Boolean(f.correo_automatico),
    factura_global_automatica: Boolean(f.factura_global_automatica),
    factura_global_sincronizada: Boolean(f.factura_global_sincronizada),
  });

  return {
    listar: async (a: Alcance, pagina: Pagina): Promise<Tramo<FilaOrganizacion>> =>
      mapearTramo(await paginar<FilaOrganizacion>(consulta(a), pagina, 'organizaciones.id'), leer),
    /** By id or by RFC: the API lets integrators address an organization either way. */
    async obtener(a: Alcance, idORfc: string): Promise<FilaOrganizacion | undefined> {
      const columna = idORfc.startsWith('org_') ? 'organizaciones.id' : 'organizaciones.rfc';
      const f = (await consulta(a).where(columna, idORfc).first()) as FilaOrganizacion | undefined;
      return f && leer(f);
    },
    async insertar(a: Alcance, id: string, datos: DatosOrganizacion, ahora: Date): Promise<void> {
      await sinDuplicar(() =>
        db('organizaciones').insert({
          id,
          ...columnasAlcance(a),
          ...datos,
          creado_en: ahora,
          actualizado_en: ahora,
        }),
      );
    },
    async actualizar(
      a: Alcance,
      id: string,
      cambios: Partial<DatosOrganizacion>,
      ahora: Date,
    ): Promise<void> {
      await conAlcance(db, 'organizaciones', a)
        .where({ id })
        .update({ ...cambios, actualizado_en: ahora });
    },

    /** Every account's organizations whose schedule lags their setting (the start reconciler's look). */
    async programacionesPendientes(antesDe: Date, limite: number): Promise<ProgramacionGlobalPendiente[]> {
      const filas = (await db('organizaciones')
        .select('id', 'cuenta_id', 'modo', 'codigo_postal', 'actualizado_en')
        .select('factura_global_automatica as automatica', 'factura_global_periodicidad as periodicidad')
        .where('factura_global_sincronizada', false)
        .where('actualizado_en', '<', antesDe)
        .orderBy('actualizado_en')
        .limit(limite)) as ProgramacionGlobalPendiente[];
      return filas.map((f) => ({ ...f, automatica: Boolean(f.automatica) }));
    },

    /** Its schedule matches the setting read at `version` (its actualizado_en): a later change stays pending. */
    async marcarSincronizada(
      a: Pick<Alcance, 'cuentaId' | 'modo'>,
      id: string,
      version: Date,
    ): Promise<void> {
      await conAlcance(db, 'organizaciones', a)
        .where({ id, actualizado_en: version })
        .update({ factura_global_sincronizada: true });
    },
  };
}

/** An organization whose global-invoice schedule must be brought in step with its setting. */
export interface ProgramacionGlobalPendiente {
  id: string;
  cuenta_id: string;
  modo: Modo;
  automatica: boolean;
  periodicidad: string;
  codigo_postal: string;
  actualizado_en: Date;
}

export type RepositorioOrganizaciones = ReturnType<typeof crearRepositorioOrganizaciones>;
