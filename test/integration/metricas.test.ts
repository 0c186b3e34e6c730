import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { fallasPac } from '../support/fallas';
import { iniciarPila, type Pila } from '../support/pila';
import { series, valor } from '../support/prometheus';
import { puertosLibres } from '../support/puertos';

// The API's wait for a stamping: long enough that the one with the PAC up answers 201 on a busy machine, and
// what the one with the PAC down is measured against.
const ESPERA_MS = 5000;

const TOKEN = 'operador-'.padEnd(40, '3');
// A forwarded request is not local even on loopback: it stands for a stranger behind a proxy.
const AJENO = { 'X-Forwarded-For': '203.0.113.9' };

describe('métricas de Prometheus: /metricas de la API y el punto del worker', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  let urlWorker: string;

  const metricasApi = async () => {
    const r = await fetch(`${pila.url}/metricas`);
    expect(r.status).toBe(200);
    return r.text();
  };
  const metricasWorker = async () => (await fetch(urlWorker)).text();

  beforeAll(async () => {
    // This file's first stack installs the Temporal runtime: with the exporter, as the worker process does.
    const [puerto] = await puertosLibres(1);
    urlWorker = `http://127.0.0.1:${puerto}/metrics`;
    pila = await iniciarPila({
      tokenOperador: TOKEN,
      metricasWorker: `127.0.0.1:${puerto}`,
      timbradoEsperaMs: ESPERA_MS,
    });
    c = await cuentaLista(pila);
  });
  afterAll(() => pila.detener());

  it('son del operador: desde fuera sin token o con otro, 401; con el token, el texto de Prometheus', async () => {
    const sin = await fetch(`${pila.url}/metricas`, { headers: AJENO });
    expect(sin.status).toBe(401);
    const cuerpo = await sin.json();
    expect(cuerpo.error).toMatchObject({ tipo: 'autenticacion', codigo: 'operador_requerido' });
    expect(JSON.stringify(cuerpo)).not.toContain('cfdi_');
    const otro = await fetch(`${pila.url}/metricas`, {
      headers: { ...AJENO, Authorization: `Bearer ${'x'.repeat(40)}` },
    });
    expect(otro.status).toBe(401);
    const con = await fetch(`${pila.url}/metricas`, {
      headers: { ...AJENO, Authorization: `Bearer ${TOKEN}` },
    });
    expect(con.status).toBe(200);
    expect(con.headers.get('content-type')).toMatch(/^text\/plain;.*\bversion=0\.0\.4\b/);
    const texto = await con.text();
    expect(texto).toContain('# TYPE cfdi_http_solicitudes_total counter');
    expect(texto).toContain('# TYPE cfdi_http_duracion_segundos histogram');
    // The refusals above are counted too, under the route's template.
    expect(valor(texto, 'cfdi_http_solicitudes_total', { ruta: '/metricas', estado: '401' })).toBe(2);
  });

  it('cuenta por plantilla de ruta, también las lecturas de catálogos que no pasan por Express', async () => {
    await fetch(`${pila.url}/v1/catalogos/monedas`);
    await fetch(`${pila.url}/v1/catalogos/monedas?q=peso`);
    const inexistente = 'fac_00000000000000000000000000';
    expect((await c.http.get(`/v1/facturas/${inexistente}`)).status).toBe(404);
    expect((await fetch(`${pila.url}/v1/facturas/${inexistente}`)).status).toBe(401);
    await fetch(`${pila.url}/no/existe`);
    const texto = await metricasApi();
    const solicitudes = (e: Record<string, string>) => valor(texto, 'cfdi_http_solicitudes_total', e);
    expect(solicitudes({ metodo: 'GET', ruta: '/v1/catalogos/monedas', estado: '200' })).toBe(1);
    expect(solicitudes({ metodo: 'GET', ruta: '/v1/catalogos/monedas', estado: '400' })).toBe(1);
    expect(solicitudes({ metodo: 'GET', ruta: '/v1/facturas/{id}', estado: '404' })).toBe(1);
    expect(solicitudes({ metodo: 'GET', ruta: '/v1/facturas/{id}', estado: '401' })).toBe(1);
    expect(solicitudes({ metodo: 'GET', ruta: 'sin_ruta', estado: '404' })).toBe(1);
    expect(texto).not.toContain(inexistente);
  });

  it('un timbrado: pendiente mientras el PAC está caído, contado por la API y el worker al timbrarse', async () => {
    await fallasPac(pila, 'caido');
    let id = '';
    try {
      const r = await c.http.post('/v1/facturas', facturaNueva(c));
      expect(r.status).toBe(202);
      id = r.body.id;
      const api = await metricasApi();
      // Across every account of the shared test database: at least this one, pending for over a second.
      expect(valor(api, 'cfdi_timbrados_pendientes')).toBeGreaterThanOrEqual(1);
      expect(valor(api, 'cfdi_timbrado_pendiente_mas_antiguo_segundos')).toBeGreaterThanOrEqual(1);
      // The same backlog among every kind's.
      expect(valor(api, 'cfdi_operaciones_pendientes', { tipo: 'timbrado' })).toBeGreaterThanOrEqual(1);
      expect(valor(api, 'cfdi_operaciones_pendientes', { tipo: 'entrega' })).toBeGreaterThanOrEqual(0);
      const post202 = { metodo: 'POST', ruta: '/v1/facturas', estado: '202' };
      expect(valor(api, 'cfdi_http_solicitudes_total', post202)).toBe(1);
      expect(valor(api, 'cfdi_http_duracion_segundos_sum', post202)).toBeGreaterThanOrEqual(ESPERA_MS / 1000);
      const caido = await esperar(async () => {
        const w = await metricasWorker();
        const fallos = valor(w, 'cfdi_pac_duracion_segundos_count', {
          modo: 'test',
          operacion: 'timbrar',
          resultado: 'error_transitorio',
        });
        return fallos ? w : undefined;
      });
      expect(valor(caido, 'cfdi_timbrados_total')).toBeUndefined();
    } finally {
      await fallasPac(pila, 'normal');
    }
    const final = await esperar(async () => {
      const f = await c.http.get(`/v1/facturas/${id}`);
      return f.body.timbrado.estado === 'pendiente' ? undefined : f.body;
    }, 60_000);
    expect(final.estado).toBe('timbrada');

    // A second invoice, with the PAC up: 201 at once.
    expect((await c.http.post('/v1/facturas', facturaNueva(c))).status).toBe(201);
    const api = await metricasApi();
    const post201 = { metodo: 'POST', ruta: '/v1/facturas', estado: '201' };
    expect(valor(api, 'cfdi_http_solicitudes_total', post201)).toBe(1);
    expect(valor(api, 'cfdi_http_duracion_segundos_count', post201)).toBe(1);
    const w = await esperar(async () => {
      const t = await metricasWorker();
      return valor(t, 'cfdi_timbrados_total', { resultado: 'timbrada' }) === 2 ? t : undefined;
    });
    const timbrar = { modo: 'test', operacion: 'timbrar' };
    expect(valor(w, 'cfdi_pac_duracion_segundos_count', { ...timbrar, resultado: 'timbrado' })).toBe(2);
    expect(
      valor(w, 'cfdi_pac_duracion_segundos_bucket', { ...timbrar, resultado: 'timbrado', le: '+Inf' }),
    ).toBe(2);
    expect(valor(w, 'cfdi_timbrados_total', { resultado: 'rechazada' })).toBeUndefined();
  });

  it('el punto del worker trae las métricas del SDK de Temporal (saturación del worker)', async () => {
    const nombres = new Set(series(await metricasWorker()).map((s) => s.nombre));
    for (const n of [
      'temporal_workflow_task_schedule_to_start_latency_bucket',
      'temporal_activity_schedule_to_start_latency_bucket',
      'temporal_worker_task_slots_available',
    ])
      expect([n, nombres.has(n)]).toEqual([n, true]);
  });
});
