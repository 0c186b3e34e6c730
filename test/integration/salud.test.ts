import { iniciarPila, type Pila } from '../support/pila';

describe('GET /salud: el recorrido completo API → Temporal → worker → MySQL', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila();
  });
  afterAll(() => pila.detener());

  it('reporta sanos MySQL, Temporal, el PAC, el worker y Chromium', async () => {
    const r = await fetch(`${pila.url}/salud`);
    const cuerpo = await r.json();
    expect(r.status).toBe(200);
    expect(cuerpo.estado).toBe('ok');
    for (const c of ['mysql', 'temporal', 'pac', 'worker', 'chromium']) {
      expect(cuerpo.componentes[c].estado).toBe('ok');
    }
    expect(cuerpo.componentes.temporal.version).toMatch(/^1\.29\./);
    expect(cuerpo.componentes.chromium.version).toMatch(/Chrome\/\d+/);
    expect(cuerpo.componentes.mysql.version).toMatch(/\d+\.\d+/);
    expect(r.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
  });

  it('la sonda es un workflow real cuya actividad escribió la fila que la API leyó', async () => {
    const antes = Date.now();
    await fetch(`${pila.url}/salud`);
    const fila = await pila.db('sondas_salud').orderBy('creado_en', 'desc').first();
    expect(fila.id).toMatch(/^sonda-salud:/);
    expect(new Date(fila.creado_en).getTime()).toBeGreaterThanOrEqual(antes - 1000);
    const desc = await pila.cliente.workflow.getHandle(fila.id).describe();
    expect(desc.type).toBe('sondaSalud');
    expect(desc.status.name).toBe('COMPLETED');
    expect(desc.taskQueue).toBe(pila.taskQueue);
  });

  it('conserva un X-Request-Id válido del cliente', async () => {
    const r = await fetch(`${pila.url}/salud/vivo`, { headers: { 'X-Request-Id': 'mi-solicitud-123' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe('mi-solicitud-123');
  });
});

describe('GET /salud con componentes caídos', () => {
  it('sin worker ni PAC responde 503 y dice cuáles fallan', async () => {
    const pila = await iniciarPila({ worker: false, pac: false, saludTimeoutMs: 1500 });
    try {
      const r = await fetch(`${pila.url}/salud`);
      const cuerpo = await r.json();
      expect(r.status).toBe(503);
      expect(cuerpo.estado).toBe('degradado');
      expect(cuerpo.componentes.mysql.estado).toBe('ok');
      expect(cuerpo.componentes.temporal.estado).toBe('ok');
      expect(cuerpo.componentes.pac.estado).toBe('error');
      expect(cuerpo.componentes.worker).toMatchObject({
        estado: 'error',
        detalle: expect.stringContaining('worker'),
      });
      expect(cuerpo.componentes.chromium.estado).toBe('error');
    } finally {
      await pila.detener();
    }
  });
});
