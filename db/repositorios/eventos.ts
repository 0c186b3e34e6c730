import type { Knex } from 'knex';
import type { Alcance, Modo } from '../../dominio/alcance';
import { mapearTramo, type Pagina, type Tramo } from '../../dominio/paginacion';
import { nuevoId } from '../ids';
import { paginar } from '../paginacion';
import { anotarEvento, conexion, type Transaccion } from '../transacciones';
import { columnasAlcance, conAlcance, leerJson } from './con-alcance';

export const TIPOS_EVENTO = [
  'factura.creada',
  'factura.timbrada',
  'factura.timbrado_fallido',
  'factura.cancelada',
  'factura.cancelacion_fallida',
  'pago.creado',
  'correo.enviado',
  'correo.fallido',
  'recibo.creado',
  'recibo.cancelado',
  'recibo.facturado',
  'certificado.por_vencer',
  'certificado.vencido',
] as const;
export type TipoEvento = (typeof TIPOS_EVENTO)[number];

export interface FilaEvento {
  id: string;
  modo: Modo;
  tipo: TipoEvento;
  datos: Record<string, unknown>;
  /** `llave_…` when a request wrote it, `sistema` for the worker; null for events older than the column. */
  actor: string | null;
  /** The request behind it: the one that wrote it, or the one that started the worker's operation. */
  solicitud_id: string | null;
  solicitud_llave_id: string | null;
  creado_en: Date;
}

export interface FiltrosEventos {
  tipo?: string;
  /** Events about this invoice (see `recursosDelEvento`). */
  facturaId?: string;
  /** Events about this payment. */
  pagoId?: string;
}

const COLUMNAS = [
  'id',
  'modo',
  'tipo',
  'datos',
  'actor',
  'solicitud_id',
  'solicitud_llave_id',
  'creado_en',
].map((c) => `eventos.${c}`);

const leer = (f: FilaEvento): FilaEvento => ({ ...f, datos: leerJson(f.datos) });

const texto = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The invoices and payments an event is about, read from its data: the resource itself (`datos.id`), a payment
 * CFDI's payment (`datos.pago`), an email's invoice (`datos.factura`), a payment's CFDI and the invoices it paid. A payment CFDI's events are also
 * about the invoices its payment paid: the repository adds those from the ledger.
 */
export function recursosDelEvento(tipo: string, datos: Record<string, unknown>): string[] {
  const ids = [texto(datos.id)];
  if (tipo.startsWith('factura.')) ids.push(texto(datos.pago));
  if (tipo.startsWith('correo.')) ids.push(texto(datos.factura));
  if (tipo.startsWith('pago.')) {
    ids.push(texto(datos.factura_pago));
    const pagadas = Array.isArray(datos.facturas_pagadas) ? (datos.facturas_pagadas as unknown[]) : [];
    for (const f of pagadas) ids.push(texto((f as { factura?: unknown } | null)?.factura));
  }
  return [...new Set(ids.filter((x) => x !== undefined))];
}

/** The payment whose ledger names the invoices a payment CFDI's event is also about. */
export const pagoDelCfdi = (tipo: string, datos: Record<string, unknown>) =>
  tipo.startsWith('factura.') ? texto(datos.pago) : undefined;

export function crearRepositorioEventos(db: Knex) {
  return {
    /**
     * Appends an event inside the caller's transaction, the one that changes the state it reports: the state
     * and its event are written together or not at all. The table is also the outbox webhooks read from. Who
     * acted comes from the scope: its key (`sistema` in the worker) and the request behind it, if any; the
     * invoices and payments it is about are indexed with it for `GET /v1/eventos?factura=…`.
     */
    async registrar(tx: Transaccion, a: Alcance, tipo: TipoEvento, datos: object) {
      const id = nuevoId('evt');
      const c = conexion(db, tx);
      await c('eventos').insert({
        id,
        ...columnasAlcance(a),
        tipo,
        datos: JSON.stringify(datos),
        actor: a.llaveId,
        solicitud_id: a.origen?.solicitudId ?? null,
        solicitud_llave_id: a.origen?.llaveId ?? null,
      });
      const d = datos as Record<string, unknown>;
      const recursos = recursosDelEvento(tipo, d);
      const pago = pagoDelCfdi(tipo, d);
      if (pago) {
        const pagadas = (await conAlcance(c, 'pagos_facturas', a)
          .where('pago_id', pago)
          .pluck('factura_id')) as string[];
        recursos.push(...pagadas.filter((f) => !recursos.includes(f)));
      }
      if (recursos.length) {
        await c('eventos_recursos').insert(
          recursos.map((recurso_id) => ({ evento_id: id, ...columnasAlcance(a), recurso_id })),
        );
      }
      await c('eventos_por_despachar').insert({ evento_id: id });
      anotarEvento(tx, id);
      return id;
    },
    async listar(a: Alcance, filtros: FiltrosEventos, pagina: Pagina): Promise<Tramo<FilaEvento>> {
      const c = conAlcance(db, 'eventos', a).select(COLUMNAS);
      if (filtros.tipo) c.where('eventos.tipo', filtros.tipo);
      // One join per resource named; the relation's primary key (scope, resource, event) serves each.
      const relaciones = [filtros.facturaId, filtros.pagoId].filter((r) => r !== undefined);
      relaciones.forEach((recurso, k) => {
        const r = `r${k}`;
        c.join(`eventos_recursos as ${r}`, (j) =>
          j
            .on(`${r}.evento_id`, 'eventos.id')
            .andOn(`${r}.cuenta_id`, 'eventos.cuenta_id')
            .andOn(`${r}.modo`, 'eventos.modo'),
        ).where(`${r}.recurso_id`, recurso);
      });
      return mapearTramo(await paginar<FilaEvento>(c, pagina, 'eventos.id'), leer);
    },
    async obtener(a: Alcance, id: string): Promise<FilaEvento | undefined> {
      const f = await conAlcance(db, 'eventos', a).select(COLUMNAS).where('eventos.id', id).first();
      return f && leer(f);
    },
    /** For the dispatcher, which starts from an id alone: the event with its account. */
    async paraDespacho(id: string): Promise<(FilaEvento & { cuenta_id: string }) | undefined> {
      const f = await db('eventos')
        .select([...COLUMNAS, 'eventos.cuenta_id'])
        .where('eventos.id', id)
        .first();
      return f && { ...leer(f), cuenta_id: f.cuenta_id };
    },
    /** Outbox rows older than `antesDe` (the fast path had its chance), oldest first. */
    async porDespachar(antesDe: Date, limite: number): Promise<string[]> {
      const filas = await db('eventos_por_despachar')
        .select('evento_id')
        .where('creado_en', '<', antesDe)
        .orderBy('creado_en')
        .limit(limite);
      return filas.map((f: { evento_id: string }) => f.evento_id);
    },
    /** Every delivery of the event has its workflow: it leaves the outbox. */
    async despachado(id: string): Promise<void> {
      await db('eventos_por_despachar').where({ evento_id: id }).delete();
    },
  };
}

export type RepositorioEventos = ReturnType<typeof crearRepositorioEventos>;
