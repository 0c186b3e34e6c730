import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { rutaOpenApi } from '../config/rutas';
import type { RepositorioPendientes } from '../db/repositorios/pendientes';
import { TIPOS_PENDIENTE } from '../dominio/pendiente';
import type { Logger } from '../log/logger';
import { crearPlantillaDeRuta, rutasDelContrato } from './plantillas-ruta';
import { RUTAS_DOCUMENTACION } from './rutas/documentacion';

/** Where the scrape-time gauges come from: an index range per kind of operation, whatever the tables' size. */
export type FuenteMetricas = Pick<RepositorioPendientes, 'atrasos'>;

/** The API process's metrics, served in Prometheus text at the operator's `GET /metricas`. */
export interface MetricasApi {
  /** One answered request; `ruta` is the raw path, labelled by its template. */
  solicitud(metodo: string, ruta: string, estado: number, segundos: number): void;
  /** The exposition, with the MySQL gauges read now. */
  exponer(log: Logger): Promise<string>;
  readonly tipoContenido: string;
}

// From a cached catalog read to a stamping the API waits for (TIMBRADO_ESPERA_MS, 8 s by default).
const CUBETAS_HTTP_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * A registry of its own per API instance (never prom-client's global one): two apps in one process, as in
 * the tests, neither share nor collide. Node's process metrics (CPU, memory, event loop lag) come with it.
 */
export function crearMetricasApi(fuente: FuenteMetricas): MetricasApi {
  const registro = new Registry();
  collectDefaultMetrics({ register: registro });
  const plantilla = crearPlantillaDeRuta([...rutasDelContrato(rutaOpenApi()), ...RUTAS_DOCUMENTACION]);
  const etiquetas = ['metodo', 'ruta', 'estado'] as const;
  const solicitudes = new Counter({
    name: 'cfdi_http_solicitudes_total',
    help: 'Solicitudes HTTP respondidas, por método, plantilla de ruta y estado.',
    labelNames: etiquetas,
    registers: [registro],
  });
  const duracion = new Histogram({
    name: 'cfdi_http_duracion_segundos',
    help: 'Duración de las solicitudes HTTP hasta terminar la respuesta, por método, plantilla de ruta y estado.',
    labelNames: etiquetas,
    buckets: CUBETAS_HTTP_S,
    registers: [registro],
  });
  const pendientes = new Gauge({
    name: 'cfdi_timbrados_pendientes',
    help: 'Facturas con el timbrado pendiente, de todas las cuentas (NaN si MySQL no respondió).',
    registers: [registro],
  });
  const masAntiguo = new Gauge({
    name: 'cfdi_timbrado_pendiente_mas_antiguo_segundos',
    help: 'Antigüedad, desde su creación, de la factura pendiente de timbrar más antigua; 0 si no hay (NaN si MySQL no respondió).',
    registers: [registro],
  });
  const operaciones = new Gauge({
    name: 'cfdi_operaciones_pendientes',
    help: 'Operaciones no finales de todas las cuentas, por tipo: timbrado, cancelacion, pago, correo, entrega, reexpedicion (NaN si MySQL no respondió).',
    labelNames: ['tipo'] as const,
    registers: [registro],
  });
  const operacionMasAntigua = new Gauge({
    name: 'cfdi_operacion_pendiente_mas_antigua_segundos',
    help: 'Antigüedad de la operación pendiente más antigua de cada tipo; 0 si no hay (NaN si MySQL no respondió).',
    labelNames: ['tipo'] as const,
    registers: [registro],
  });

  return {
    tipoContenido: registro.contentType,
    solicitud(metodo, ruta, estado, segundos) {
      const e = { metodo, ruta: plantilla(ruta), estado: String(estado) };
      solicitudes.inc(e);
      duracion.observe(e, segundos);
    },
    async exponer(log) {
      try {
        for (const t of await fuente.atrasos()) {
          operaciones.set({ tipo: t.tipo }, t.pendientes);
          operacionMasAntigua.set({ tipo: t.tipo }, t.masAntiguoSegundos);
          // The stamping gauges of before, kept for the dashboards that read them.
          if (t.tipo === 'timbrado') {
            pendientes.set(t.pendientes);
            masAntiguo.set(t.masAntiguoSegundos);
          }
        }
      } catch (err) {
        // The HTTP figures matter most when MySQL fails: they are served, and the unknown gauges say NaN.
        log.warn({ err }, 'métricas: no se pudieron leer las operaciones pendientes');
        pendientes.set(NaN);
        masAntiguo.set(NaN);
        for (const tipo of TIPOS_PENDIENTE) {
          operaciones.set({ tipo }, NaN);
          operacionMasAntigua.set({ tipo }, NaN);
        }
      }
      return registro.metrics();
    },
  };
}
