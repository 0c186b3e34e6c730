import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricMeter } from '@temporalio/common';
import express from 'express';
import { crearMetricasApi, type FuenteMetricas } from '../../api/metricas';
import { TIPOS_PENDIENTE } from '../../dominio/pendiente';
import { contexto } from '../../api/middleware/contexto';
import { manejadorErrores, rutaNoEncontrada } from '../../api/middleware/manejador-errores';
import { crearPlantillaDeRuta, rutasDelContrato, SIN_RUTA } from '../../api/plantillas-ruta';
import { cargarConfig, ConfigError } from '../../config/config';
import { rutaOpenApi } from '../../config/rutas';
import { crearLogger } from '../../log/logger';
import { ErrorPacConfiguracion, ErrorPacTransitorio, type PuertoPac } from '../../pac/puerto';
import { crearMedidorPac, crearMetricasActividades, telemetriaWorker } from '../../worker/metricas';
import { crearContextoActividad } from '../support/memoria';
import { crearEntornoActividades } from '../support/memoria/servicios';
import { series, valor } from '../support/prometheus';

const silencio = crearLogger('prueba', 'silent');

describe('plantilla de ruta de las métricas', () => {
  const plantilla = crearPlantillaDeRuta(rutasDelContrato(rutaOpenApi()));

  it.each([
    ['/v1/facturas', '/v1/facturas'],
    ['/v1/facturas/fac_01JD7ZQ8X2', '/v1/facturas/{id}'],
    ['/v1/facturas/fac_01JD7ZQ8X2/timbrar', '/v1/facturas/{id}/timbrar'],
    ['/v1/webhooks/wh_1/entregas', '/v1/webhooks/{id}/entregas'],
    ['/v1/catalogos/monedas', '/v1/catalogos/monedas'],
    ['/salud/detalle', '/salud/detalle'],
    ['/metricas', '/metricas'],
    // Nothing a client sends makes a new label: unknown paths, ids where a literal goes, empty segments.
    ['/v1/catalogos/inventado', SIN_RUTA],
    ['/v1/facturas/', SIN_RUTA],
    ['/v1/facturas//timbrar', SIN_RUTA],
    ['/wp-login.php', SIN_RUTA],
    ['/', SIN_RUTA],
  ])('%s → %s', (ruta, esperada) => {
    expect(plantilla(ruta)).toBe(esperada);
  });

  it('si coinciden dos plantillas gana la de más segmentos literales, en cualquier orden', () => {
    for (const lista of [
      ['/a/{x}/c', '/a/b/c', '/a/{x}/{y}'],
      ['/a/{x}/{y}', '/a/b/c', '/a/{x}/c'],
    ]) {
      const p = crearPlantillaDeRuta(lista);
      expect([p('/a/b/c'), p('/a/z/c'), p('/a/z/q')]).toEqual(['/a/b/c', '/a/{x}/c', '/a/{x}/{y}']);
    }
  });
});

describe('métricas HTTP de la API (middleware de contexto)', () => {
  let servidor: Server;
  let base: string;
  const fuente: FuenteMetricas = {
    atrasos: async () =>
      TIPOS_PENDIENTE.map((tipo, i) => ({
        tipo,
        pendientes: tipo === 'timbrado' ? 3 : i,
        masAntiguoSegundos: tipo === 'timbrado' ? 42.5 : i * 10,
      })),
  };
  const metricas = crearMetricasApi(fuente);

  beforeAll(async () => {
    const app = express();
    app.use(contexto(silencio, metricas));
    app.post('/v1/facturas', (_req, res) => void res.status(201).json({}));
    app.get('/v1/facturas/:id', (_req, res) => void res.status(404).json({}));
    app.use(rutaNoEncontrada);
    app.use(manejadorErrores);
    servidor = await new Promise<Server>((r) => {
      const s = app.listen(0, '127.0.0.1', () => r(s));
    });
    base = `http://127.0.0.1:${(servidor.address() as AddressInfo).port}`;
    await fetch(`${base}/v1/facturas`, { method: 'POST' });
    await fetch(`${base}/v1/facturas`, { method: 'POST' });
    await fetch(`${base}/v1/facturas/fac_SECRETO123`);
    await fetch(`${base}/v1/facturas/fac_OTRO456?x=1`, { method: 'HEAD' });
    await fetch(`${base}/no/existe/fac_789`);
  });
  afterAll(() => new Promise<void>((r) => servidor.close(() => r())));

  it('cuenta por método, plantilla y estado, y mide la duración', async () => {
    const texto = await metricas.exponer(silencio);
    const post = { metodo: 'POST', ruta: '/v1/facturas', estado: '201' };
    expect(valor(texto, 'cfdi_http_solicitudes_total', post)).toBe(2);
    expect(valor(texto, 'cfdi_http_duracion_segundos_count', post)).toBe(2);
    expect(valor(texto, 'cfdi_http_duracion_segundos_sum', post)).toBeGreaterThan(0);
    expect(valor(texto, 'cfdi_http_duracion_segundos_bucket', { ...post, le: '+Inf' })).toBe(2);
    const porId = { ruta: '/v1/facturas/{id}', estado: '404' };
    expect(valor(texto, 'cfdi_http_solicitudes_total', { ...porId, metodo: 'GET' })).toBe(1);
    // HEAD is answered as GET by the app, but labelled as what the client sent.
    expect(valor(texto, 'cfdi_http_solicitudes_total', { ...porId, metodo: 'HEAD' })).toBe(1);
    expect(valor(texto, 'cfdi_http_solicitudes_total', { ruta: SIN_RUTA, estado: '404' })).toBe(1);
  });

  it('ninguna etiqueta lleva un id ni la consulta', async () => {
    const texto = await metricas.exponer(silencio);
    expect(texto).not.toMatch(/SECRETO123|OTRO456|fac_789|x=1/);
    const rutas = new Set(
      series(texto)
        .filter((s) => s.nombre === 'cfdi_http_solicitudes_total')
        .map((s) => s.etiquetas.ruta),
    );
    expect([...rutas].sort()).toEqual(['/v1/facturas', '/v1/facturas/{id}', SIN_RUTA]);
  });

  it('lee las operaciones pendientes de cada tipo en cada consulta, y trae las del proceso de Node', async () => {
    const texto = await metricas.exponer(silencio);
    expect(valor(texto, 'cfdi_timbrados_pendientes')).toBe(3);
    expect(valor(texto, 'cfdi_timbrado_pendiente_mas_antiguo_segundos')).toBe(42.5);
    // Every kind, labelled by `tipo`.
    expect(valor(texto, 'cfdi_operaciones_pendientes', { tipo: 'timbrado' })).toBe(3);
    expect(valor(texto, 'cfdi_operacion_pendiente_mas_antigua_segundos', { tipo: 'timbrado' })).toBe(42.5);
    expect(valor(texto, 'cfdi_operaciones_pendientes', { tipo: 'entrega' })).toBe(4);
    expect(valor(texto, 'cfdi_operacion_pendiente_mas_antigua_segundos', { tipo: 'reexpedicion' })).toBe(50);
    expect(valor(texto, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(metricas.tipoContenido).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('si MySQL falla, sirve las demás y los pendientes son NaN, con una advertencia en el log', async () => {
    const lineas: string[] = [];
    const log = crearLogger('prueba', 'warn', { write: (l: string) => void lineas.push(l) });
    const caida = crearMetricasApi({
      atrasos: () => Promise.reject(new Error('connect ECONNREFUSED')),
    });
    caida.solicitud('GET', '/salud', 200, 0.01);
    const texto = await caida.exponer(log);
    expect(valor(texto, 'cfdi_timbrados_pendientes')).toBeNaN();
    expect(valor(texto, 'cfdi_timbrado_pendiente_mas_antiguo_segundos')).toBeNaN();
    for (const tipo of TIPOS_PENDIENTE)
      expect(valor(texto, 'cfdi_operaciones_pendientes', { tipo })).toBeNaN();
    expect(valor(texto, 'cfdi_http_solicitudes_total', { ruta: '/salud' })).toBe(1);
    expect(lineas.join('')).toContain('no se pudieron leer las operaciones pendientes');
  });

  it('cada instancia tiene su propio registro: dos APIs en un proceso no se mezclan', async () => {
    const otra = crearMetricasApi(fuente);
    expect(valor(await otra.exponer(silencio), 'cfdi_http_solicitudes_total')).toBeUndefined();
  });
});

/** A metric meter that remembers what was recorded, as `nombre` → [value, tags] pairs. */
function medidorEnMemoria() {
  const registros: [string, number, Record<string, unknown>][] = [];
  const metrica = (nombre: string) => ({
    add: (v: number, t: Record<string, unknown> = {}) => void registros.push([nombre, v, t]),
    record: (v: number, t: Record<string, unknown> = {}) => void registros.push([nombre, v, t]),
  });
  const meter = {
    createCounter: metrica,
    createHistogram: metrica,
    createGauge: metrica,
  } as unknown as MetricMeter;
  return { meter, registros };
}

describe('métricas del worker', () => {
  it('el exportador de Prometheus escucha en WORKER_METRICAS, con duraciones en segundos', () => {
    expect(telemetriaWorker('127.0.0.1:9464')).toEqual({
      metrics: {
        prometheus: expect.objectContaining({ bindAddress: '127.0.0.1:9464', useSecondsForDurations: true }),
      },
    });
    const cubetas = (
      telemetriaWorker('127.0.0.1:9464').metrics as { prometheus: { histogramBucketOverrides: object } }
    ).prometheus.histogramBucketOverrides;
    expect(cubetas).toHaveProperty('cfdi_pac_duracion_segundos');
  });

  it('WORKER_METRICAS es IP:puerto (127.0.0.1:9464 por omisión); un nombre de equipo no sirve', () => {
    expect(cargarConfig({}).metricasWorker).toBe('127.0.0.1:9464');
    for (const v of ['0.0.0.0:9464', '[::1]:9464', '127.0.0.1:0'])
      expect(cargarConfig({ WORKER_METRICAS: v }).metricasWorker).toBe(v);
    for (const v of ['localhost:9464', '127.0.0.1', '127.0.0.1:70000', '::1:9464', 'http://127.0.0.1:9464'])
      expect(() => cargarConfig({ WORKER_METRICAS: v })).toThrow(ConfigError);
  });

  it('cada llamada al PAC registra su duración por modo, operación y resultado', async () => {
    const { meter, registros } = medidorEnMemoria();
    // A class, as the real adapter: its methods need their `this`.
    class PacDePrueba implements PuertoPac {
      private timbres = 0;
      async timbrar() {
        this.timbres += 1;
        if (this.timbres === 2) throw new ErrorPacTransitorio('caído');
        if (this.timbres === 3) return { tipo: 'rechazado' as const, codigo: 'CFDI40102', mensaje: 'x' };
        return {
          tipo: 'timbrado' as const,
          xml: '<x/>',
          uuid: 'U',
          fechaTimbrado: '2025-06-01T06:00:00',
          noCertificadoSat: '1',
          selloSat: 's',
          previo: this.timbres === 4,
        };
      }
      async consultarTimbre() {
        return { tipo: 'no_encontrado' as const };
      }
      async cancelar(): Promise<never> {
        throw new ErrorPacConfiguracion('credenciales');
      }
      async estatusSat(): Promise<never> {
        throw new Error('otra cosa');
      }
    }
    const pac = crearMedidorPac(meter)(new PacDePrueba(), 'live');
    await pac.timbrar('<x/>');
    await expect(pac.timbrar('<x/>')).rejects.toBeInstanceOf(ErrorPacTransitorio);
    await pac.timbrar('<x/>');
    await pac.timbrar('<x/>');
    await pac.consultarTimbre('<x/>');
    await expect(pac.cancelar({} as never)).rejects.toBeInstanceOf(ErrorPacConfiguracion);
    await expect(pac.estatusSat({} as never)).rejects.toThrow('otra cosa');
    expect(registros.map(([n, , t]) => [n, t])).toEqual(
      [
        ['timbrar', 'timbrado'],
        ['timbrar', 'error_transitorio'],
        ['timbrar', 'rechazado'],
        ['timbrar', 'previo'],
        ['consultarTimbre', 'no_encontrado'],
        ['cancelar', 'error_configuracion'],
        ['estatusSat', 'error'],
      ].map(([operacion, resultado]) => [
        'cfdi_pac_duracion_segundos',
        { modo: 'live', operacion, resultado },
      ]),
    );
    for (const [, segundos] of registros) expect(segundos).toBeGreaterThanOrEqual(0);
  });

  it('los contadores de las actividades van al mismo medidor', () => {
    const { meter, registros } = medidorEnMemoria();
    const m = crearMetricasActividades(meter);
    m.timbrado('timbrada');
    m.entrega('reintentar');
    expect(registros).toEqual([
      ['cfdi_timbrados_total', 1, { resultado: 'timbrada' }],
      ['cfdi_entregas_total', 1, { resultado: 'reintentar' }],
    ]);
  });
});

describe('lo que cuentan las actividades', () => {
  let x: Awaited<ReturnType<typeof crearEntornoActividades>>;
  beforeEach(async () => {
    x = await crearEntornoActividades();
  });

  async function sellada() {
    x.s.timbrador.desenlace('pendiente');
    const e = x.entrada((await x.facturar()).id);
    expect(await x.act.prepararTimbrado(e)).toMatchObject({ estado: 'listo' });
    return e;
  }
  const enviar = (e: ReturnType<typeof x.entrada>) =>
    crearContextoActividad().ejecutar(() => x.act.enviarAlPac(e));

  it('un timbrado cuenta una vez, al guardar el timbre: ni el error transitorio ni el reintento cuentan', async () => {
    const e = await sellada();
    x.pac.alTimbrar({ tipo: 'caido' });
    await expect(enviar(e)).rejects.toThrow();
    expect(x.metricas.timbrados).toEqual([]);
    expect(await enviar(e)).toMatchObject({ estado: 'timbrada' });
    expect(await enviar(e)).toMatchObject({ estado: 'timbrada' });
    expect(x.metricas.timbrados).toEqual(['timbrada']);
  });

  it('un rechazo cuenta una vez, al registrarlo', async () => {
    const e = await sellada();
    const error = { codigo: 'CFDI40145', mensaje: 'RFC no registrado.', paso: 'pac' as const };
    await x.act.registrarRechazo(e, error);
    await x.act.registrarRechazo(e, error);
    expect(x.metricas.timbrados).toEqual(['rechazada']);
  });

  it('cada intento de entrega cuenta con su resultado', async () => {
    const w = await x.s.webhooks.crear(x.a, {
      url: 'https://hooks.ejemplo.mx/cfdi',
      eventos_suscritos: ['factura.timbrada'],
    });
    await x.m.transacciones.ejecutar((tx) =>
      x.m.eventos.registrar(tx, x.a, 'factura.timbrada', { id: 'fac_1' }),
    );
    await x.m.despachador.despacharPendientes();
    const [entrega] = x.m.despachador.iniciadas.filter((i) => i.webhook_id === w.id);
    const intento = (numero: number, ultimo: boolean) => ({
      entregaId: entrega!.id,
      cuentaId: x.a.cuentaId,
      modo: x.a.modo,
      numero,
      ultimo,
      proximoEn: null,
    });
    x.enviador.responder({
      ok: false,
      status: 500,
      latenciaMs: 10,
      error: { codigo: 'status_http', mensaje: 'HTTP 500' },
      respuesta: '',
    });
    expect(await x.act.intentarEntrega(intento(1, false))).toBe('reintentar');
    expect(await x.act.intentarEntrega(intento(2, false))).toBe('entregada');
    // Already final: nothing is sent, nothing counted.
    expect(await x.act.intentarEntrega(intento(3, true))).toBe('entregada');
    expect(x.metricas.entregas).toEqual(['reintentar', 'entregada']);
  });
});
