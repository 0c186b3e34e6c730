import type { Knex } from 'knex';
import type { Alcance } from '../../dominio/alcance';
import type { Cancelacion } from '../../dominio/factura';
import type { Pagina, Tramo } from '../../dominio/paginacion';
import { PREFIJO_PENDIENTE, sinPrefijo, TIPOS_PENDIENTE, type TipoPendiente } from '../../dominio/pendiente';
import { conAlcance, leerJson } from './con-alcance';

/**
 * One operation MySQL (the system of record) holds as not final, whatever its kind: what the pending view and the
 * console show of it. Fields a kind does not have are null.
 */
export interface FilaPendiente {
  tipo: TipoPendiente;
  /** The resource it is about: the invoice (stamping, cancellation), payment, email, delivery or receipt. */
  id: string;
  organizacion_id: string | null;
  /** Since when it waits: the invoice's or payment's creation, the cancellation's request, the claim… */
  desde: Date;
  /** Attempts recorded by MySQL (sends to the PAC, to the SMTP server, to the webhook); null where none are. */
  intentos: number | null;
  /** The last error recorded (a stamping's transient error, an email's or a delivery's last failure). */
  error: { codigo: string; mensaje: string; paso?: string } | null;
  /** The invoice: itself (stamping, cancellation), an email's, a claim's buyer invoice. */
  factura_id: string | null;
  /** A payment CFDI's payment, or the payment itself. */
  pago_id: string | null;
  evento_id: string | null;
  tipo_evento: string | null;
  webhook_id: string | null;
  /** A delivery's number: 0 the event's own, n the n-th resend (its workflow id says it). */
  numero: number | null;
  factura_global_id: string | null;
  /** The cancellation as the invoice holds it (state, motive, when asked). */
  cancelacion: Cancelacion | null;
  /** A claim's buyer invoice stamping state (`pendiente` while it is stamped, then the reissue). */
  estado_factura: string | null;
  proximo_intento_en: Date | null;
  ultimo_intento_en: Date | null;
  /** A delivery's last HTTP status. */
  status_http: number | null;
  /** The place of issue's zone of the invoice (to say times as the issuer reads them); null for others. */
  huso_horario: string | null;
}

export interface FiltrosPendientes {
  tipo?: TipoPendiente;
  organizacionId?: string;
  /** Waiting since strictly before this instant. */
  antesDe?: Date;
}

/** The backlog of one kind across every account and mode (the operator's gauge). */
export interface AtrasoPendientes {
  tipo: TipoPendiente;
  pendientes: number;
  /** Age of the oldest, in seconds on the database's clock; 0 when none. */
  masAntiguoSegundos: number;
}

const VACIA: Omit<FilaPendiente, 'tipo' | 'id' | 'desde'> = {
  organizacion_id: null,
  intentos: null,
  error: null,
  factura_id: null,
  pago_id: null,
  evento_id: null,
  tipo_evento: null,
  webhook_id: null,
  numero: null,
  factura_global_id: null,
  cancelacion: null,
  estado_factura: null,
  proximo_intento_en: null,
  ultimo_intento_en: null,
  status_http: null,
  huso_horario: null,
};

const json = <T>(v: unknown): T | null => (v === null || v === undefined ? null : leerJson<T>(v));
const fecha = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));

/**
 * The pending operations of a scope, every kind in one list. Each kind is one index range of its table (021:
 * account, mode, state, id), newest first, at most a page and one; the kinds merge by the time part of their ids
 * (ids are time-ordered after the prefix), so the list walks newest first like every list, and a cursor (the
 * last item's id) continues every kind at once.
 */
export function crearRepositorioPendientes(db: Knex) {
  /** Keyset within one kind: its ids below the cursor's time part. */
  const despues = (q: Knex.QueryBuilder, columna: string, tipo: TipoPendiente, p: Pagina) => {
    if (p.despuesDe) q.where(columna, '<', `${PREFIJO_PENDIENTE[tipo]}_${sinPrefijo(p.despuesDe)}`);
    return q.orderBy(columna, 'desc').limit(p.limite + 1);
  };

  const CONSULTAS: Record<
    TipoPendiente,
    (a: Alcance, f: FiltrosPendientes, p: Pagina) => Promise<FilaPendiente[]>
  > = {
    async timbrado(a, f, p) {
      const q = conAlcance(db, 'facturas', a)
        .where('timbrado_estado', 'pendiente')
        .select(
          'id',
          'organizacion_id',
          'creado_en',
          'timbrado_intentos',
          'timbrado_error',
          db.raw("JSON_VALUE(documento, '$.pago.id') AS pago_id"),
          db.raw("JSON_VALUE(documento, '$.huso_horario') AS huso_horario"),
        );
      if (f.organizacionId) q.where('organizacion_id', f.organizacionId);
      if (f.antesDe) q.where('creado_en', '<', f.antesDe);
      const filas = await despues(q, 'id', 'timbrado', p);
      return filas.map((r: Record<string, unknown>) => ({
        ...VACIA,
        tipo: 'timbrado' as const,
        id: r.id as string,
        organizacion_id: r.organizacion_id as string,
        desde: r.creado_en as Date,
        intentos: Number(r.timbrado_intentos),
        error: json(r.timbrado_error),
        factura_id: r.id as string,
        pago_id: (r.pago_id as string | null) ?? null,
        huso_horario: (r.huso_horario as string | null) ?? null,
      }));
    },

    async cancelacion(a, f, p) {
      const q = conAlcance(db, 'facturas', a)
        .whereIn('cancelacion_estado', ['solicitada', 'en_proceso'])
        .select(
          'id',
          'organizacion_id',
          'cancelacion',
          db.raw("JSON_VALUE(documento, '$.pago.id') AS pago_id"),
          db.raw("JSON_VALUE(documento, '$.huso_horario') AS huso_horario"),
        );
      if (f.organizacionId) q.where('organizacion_id', f.organizacionId);
      // ISO 8601 in UTC with milliseconds, as the service writes it: text orders like time.
      if (f.antesDe) q.whereRaw("JSON_VALUE(cancelacion, '$.solicitada_en') < ?", [f.antesDe.toISOString()]);
      const filas = await despues(q, 'id', 'cancelacion', p);
      return filas.map((r: Record<string, unknown>) => {
        const c = json<Cancelacion>(r.cancelacion)!;
        return {
          ...VACIA,
          tipo: 'cancelacion' as const,
          id: r.id as string,
          organizacion_id: r.organizacion_id as string,
          desde: new Date(c.solicitada_en),
          factura_id: r.id as string,
          pago_id: (r.pago_id as string | null) ?? null,
          cancelacion: c,
          error: c.error ?? null,
          huso_horario: (r.huso_horario as string | null) ?? null,
        };
      });
    },

    async pago(a, f, p) {
      const q = conAlcance(db, 'pagos', a)
        .where('estado', 'registrando')
        .select('id', 'organizacion_id', 'creado_en');
      if (f.organizacionId) q.where('organizacion_id', f.organizacionId);
      if (f.antesDe) q.where('creado_en', '<', f.antesDe);
      const filas = await despues(q, 'id', 'pago', p);
      return filas.map((r: Record<string, unknown>) => ({
        ...VACIA,
        tipo: 'pago' as const,
        id: r.id as string,
        organizacion_id: r.organizacion_id as string,
        desde: r.creado_en as Date,
        pago_id: r.id as string,
      }));
    },

    async correo(a, f, p) {
      const q = conAlcance(db, 'correos', a)
        .join('facturas as f', 'f.id', 'correos.factura_id')
        .where('correos.estado', 'pendiente')
        .select(
          'correos.id',
          'correos.factura_id',
          'f.organizacion_id',
          'correos.creado_en',
          'correos.intentos',
          'correos.respuesta_smtp',
          'correos.error',
          'correos.ultimo_intento_en',
          db.raw("JSON_VALUE(f.documento, '$.huso_horario') AS huso_horario"),
        );
      if (f.organizacionId) q.where('f.organizacion_id', f.organizacionId);
      if (f.antesDe) q.where('correos.creado_en', '<', f.antesDe);
      const filas = await despues(q, 'correos.id', 'correo', p);
      return filas.map((r: Record<string, unknown>) => {
        const error = json<{ codigo: string; mensaje: string }>(r.error);
        const smtp = r.respuesta_smtp as string | null;
        return {
          ...VACIA,
          tipo: 'correo' as const,
          id: r.id as string,
          organizacion_id: r.organizacion_id as string,
          desde: r.creado_en as Date,
          intentos: Number(r.intentos),
          // A pending email's failures are its SMTP server's answers (4xx, no connection): the error comes last.
          error: error ?? (smtp ? { codigo: 'smtp_no_disponible', mensaje: smtp } : null),
          factura_id: r.factura_id as string,
          ultimo_intento_en: fecha(r.ultimo_intento_en),
          huso_horario: (r.huso_horario as string | null) ?? null,
        };
      });
    },

    async entrega(a, f, p) {
      const q = conAlcance(db, 'entregas', a)
        .join('eventos as e', 'e.id', 'entregas.evento_id')
        // The last attempt logged (its number is the delivery's count).
        .leftJoin('entregas_intentos as i', (j) =>
          j.on('i.entrega_id', 'entregas.id').andOn('i.numero', 'entregas.intentos'),
        )
        .where('entregas.estado', 'pendiente')
        .select(
          'entregas.id',
          'entregas.evento_id',
          'e.tipo as tipo_evento',
          'entregas.webhook_id',
          'entregas.numero',
          'entregas.creado_en',
          'entregas.intentos',
          'entregas.proximo_intento_en',
          'i.iniciado_en as ultimo_intento_en',
          'i.status_http',
          'i.error',
          // The organization of what the event is about: its data's, or its email's invoice's.
          db.raw(
            `COALESCE(JSON_VALUE(e.datos, '$.organizacion'),
               (SELECT fe.organizacion_id FROM facturas fe WHERE fe.id = JSON_VALUE(e.datos, '$.factura'))
             ) AS organizacion_id`,
          ),
        );
      if (f.organizacionId) q.having('organizacion_id', '=', f.organizacionId);
      if (f.antesDe) q.where('entregas.creado_en', '<', f.antesDe);
      const filas = await despues(q, 'entregas.id', 'entrega', p);
      return filas.map((r: Record<string, unknown>) => ({
        ...VACIA,
        tipo: 'entrega' as const,
        id: r.id as string,
        organizacion_id: (r.organizacion_id as string | null) ?? null,
        desde: r.creado_en as Date,
        intentos: Number(r.intentos),
        error: json(r.error),
        evento_id: r.evento_id as string,
        tipo_evento: r.tipo_evento as string,
        webhook_id: r.webhook_id as string,
        numero: Number(r.numero),
        proximo_intento_en: fecha(r.proximo_intento_en),
        ultimo_intento_en: fecha(r.ultimo_intento_en),
        status_http: r.status_http === null || r.status_http === undefined ? null : Number(r.status_http),
      }));
    },

    async reexpedicion(a, f, p) {
      const q = conAlcance(db, 'recibos', a)
        .leftJoin('facturas as f', 'f.id', 'recibos.factura_id')
        .where('recibos.estado', 'facturado')
        .whereNull('recibos.fuera_de_global_en')
        .whereNotNull('recibos.factura_global_id')
        .select(
          'recibos.id',
          'recibos.organizacion_id',
          'recibos.factura_id',
          'recibos.factura_global_id',
          'recibos.actualizado_en',
          'f.timbrado_estado',
          db.raw("JSON_VALUE(f.documento, '$.huso_horario') AS huso_horario"),
        );
      if (f.organizacionId) q.where('recibos.organizacion_id', f.organizacionId);
      if (f.antesDe) q.where('recibos.actualizado_en', '<', f.antesDe);
      const filas = await despues(q, 'recibos.id', 'reexpedicion', p);
      return filas.map((r: Record<string, unknown>) => ({
        ...VACIA,
        tipo: 'reexpedicion' as const,
        id: r.id as string,
        organizacion_id: r.organizacion_id as string,
        desde: r.actualizado_en as Date,
        factura_id: r.factura_id as string,
        factura_global_id: r.factura_global_id as string,
        estado_factura: (r.timbrado_estado as string | null) ?? null,
        huso_horario: (r.huso_horario as string | null) ?? null,
      }));
    },
  };

  /** Each kind's backlog across accounts: COUNT and MIN over its state's index range. */
  const ATRASOS: Record<TipoPendiente, () => Knex.QueryBuilder> = {
    timbrado: () => db('facturas').where('timbrado_estado', 'pendiente').first(cuenta('creado_en')),
    cancelacion: () =>
      db('facturas')
        .whereIn('cancelacion_estado', ['solicitada', 'en_proceso'])
        .first(
          db.raw('COUNT(*) AS n'),
          db.raw("MIN(JSON_VALUE(cancelacion, '$.solicitada_en')) AS desde_iso"),
          db.raw('UNIX_TIMESTAMP(NOW(3)) AS ahora'),
        ),
    pago: () => db('pagos').where('estado', 'registrando').first(cuenta('creado_en')),
    correo: () => db('correos').where('estado', 'pendiente').first(cuenta('creado_en')),
    entrega: () => db('entregas').where('estado', 'pendiente').first(cuenta('creado_en')),
    reexpedicion: () =>
      db('recibos')
        .where('estado', 'facturado')
        .whereNull('fuera_de_global_en')
        .whereNotNull('factura_global_id')
        .first(cuenta('actualizado_en')),
  };
  // Both instants as epoch seconds on the server: no skew with this process's clock, nor with its zone.
  function cuenta(columna: string) {
    return [
      db.raw('COUNT(*) AS n'),
      db.raw(`UNIX_TIMESTAMP(MIN(${columna})) AS desde`),
      db.raw('UNIX_TIMESTAMP(NOW(3)) AS ahora'),
    ];
  }

  return {
    async listar(a: Alcance, f: FiltrosPendientes, pagina: Pagina): Promise<Tramo<FilaPendiente>> {
      const tipos = f.tipo ? [f.tipo] : TIPOS_PENDIENTE;
      const porTipo = await Promise.all(tipos.map((t) => CONSULTAS[t](a, f, pagina)));
      const todas = porTipo
        .flat()
        .sort((x, y) =>
          sinPrefijo(x.id) < sinPrefijo(y.id) ? 1 : sinPrefijo(x.id) > sinPrefijo(y.id) ? -1 : 0,
        );
      return { datos: todas.slice(0, pagina.limite), hayMas: todas.length > pagina.limite };
    },

    /**
     * The operator's gauge, across every account and mode on purpose (only `GET /metricas` reads it; it carries no
     * account's data): how many of each kind wait, and the age of the oldest. An index range per kind: the cost
     * follows the backlog, not the tables.
     */
    async atrasos(): Promise<AtrasoPendientes[]> {
      return Promise.all(
        TIPOS_PENDIENTE.map(async (tipo) => {
          const r = (await ATRASOS[tipo]()) as {
            n: number | string;
            desde?: number | string | null;
            desde_iso?: string | null;
            ahora: number | string;
          };
          // A cancellation's request time is ISO 8601 text in UTC (its JSON), the others are timestamps.
          const desde =
            r.desde_iso != null ? Date.parse(r.desde_iso) / 1000 : r.desde != null ? Number(r.desde) : null;
          return {
            tipo,
            pendientes: Number(r.n),
            masAntiguoSegundos: desde === null ? 0 : Math.max(0, Number(r.ahora) - desde),
          };
        }),
      );
    },
  };
}

export type RepositorioPendientes = ReturnType<typeof crearRepositorioPendientes>;
