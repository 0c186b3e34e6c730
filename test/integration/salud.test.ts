import { esperar } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';

const TOKEN = 'operador-'.padEnd(40, '7');

describe('GET /salud: el recorrido completo API → Temporal → worker → MySQL', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila({ tokenOperador: TOKEN });
  });
  afterAll(() => pila.detener());

  it('el detalle, desde loopback, reporta sanos MySQL, Temporal, el PAC, los dos workers y Chromium', async () => {
    const r = await fetch(`${pila.url}/salud/detalle`);
    const cuerpo = await r.json();
    expect(r.status).toBe(200);
    expect(cuerpo.estado).toBe('ok');
    for (const c of ['mysql', 'temporal', 'pac', 'worker', 'worker_pdf', 'chromium']) {
      expect(cuerpo.componentes[c].estado).toBe('ok');
    }
    expect(cuerpo.componentes.temporal.version).toMatch(/^1\.29\./);
    expect(cuerpo.componentes.chromium.version).toMatch(/Chrome\/\d+/);
    expect(cuerpo.componentes.mysql.version).toMatch(/\d+\.\d+/);
    expect(r.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
  });

  it('GET /salud público dice solo ok o degradado: sin versiones, pid, host ni componentes', async () => {
    const r = await fetch(`${pila.url}/salud`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ estado: 'ok' });
  });

  it('el detalle no se da a quien no es el operador; con el token de operador sí', async () => {
    // A forwarded request is not local even on loopback (a reverse proxy on the same host).
    const ajeno = { 'X-Forwarded-For': '203.0.113.5' };
    const sin = await fetch(`${pila.url}/salud/detalle`, { headers: ajeno });
    expect(sin.status).toBe(401);
    const cuerpo = await sin.json();
    expect(cuerpo.error).toMatchObject({ tipo: 'autenticacion', codigo: 'operador_requerido' });
    expect(JSON.stringify(cuerpo)).not.toMatch(/componentes|version/);
    const conOtro = await fetch(`${pila.url}/salud/detalle`, {
      headers: { ...ajeno, Authorization: `Bearer ${'x'.repeat(40)}` },
    });
    expect(conOtro.status).toBe(401);
    const con = await fetch(`${pila.url}/salud/detalle`, {
      headers: { ...ajeno, Authorization: `Bearer ${TOKEN}` },
    });
    expect(con.status).toBe(200);
    expect((await con.json()).componentes.mysql.estado).toBe('ok');
  });

  it('la sonda es un workflow real cuyas actividades (una por cola) escribieron las filas que la API leyó', async () => {
    const antes = Date.now();
    await fetch(`${pila.url}/salud/detalle`);
    const filas = await pila.db('sondas_salud').orderBy('creado_en', 'desc').limit(2);
    const fila = filas.find((f) => !f.id.endsWith(':pdf'));
    const pdf = filas.find((f) => f.id === `${fila.id}:pdf`);
    expect(fila.id).toMatch(/^sonda-salud:/);
    // The stamping worker does not launch Chromium for it; the PDF worker reported its own.
    expect([fila.chromium, pdf.chromium]).toEqual([null, expect.stringMatching(/Chrome\/\d+/)]);
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
  it('sin worker ni PAC responde 503: el público solo degradado, el detalle dice cuáles fallan', async () => {
    const pila = await iniciarPila({ worker: false, pac: false, saludTimeoutMs: 1500 });
    try {
      const publica = await fetch(`${pila.url}/salud`);
      expect(publica.status).toBe(503);
      expect(await publica.json()).toEqual({ estado: 'degradado' });
      const r = await fetch(`${pila.url}/salud/detalle`);
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

  it('sin el worker de PDF: el worker sano, worker_pdf y Chromium en error (los PDF esperan en su cola)', async () => {
    const pila = await iniciarPila({ workerPdf: false, saludTimeoutMs: 3000 });
    try {
      const r = await fetch(`${pila.url}/salud/detalle`);
      const cuerpo = await r.json();
      expect(r.status).toBe(503);
      expect(cuerpo.componentes.worker.estado).toBe('ok');
      expect(cuerpo.componentes.worker_pdf).toMatchObject({
        estado: 'error',
        detalle: expect.stringContaining(`${pila.taskQueue}-pdf`),
      });
      expect(cuerpo.componentes.chromium.estado).toBe('error');
      await pila.arrancarWorkerPdf();
      const otra = await esperar(async () => {
        const x = await fetch(`${pila.url}/salud/detalle`);
        return x.status === 200 ? x.json() : undefined;
      }, 30_000);
      expect(otra.componentes.worker_pdf.estado).toBe('ok');
    } finally {
      await pila.detener();
    }
  }, 60_000);

  it('una caída inyectada en el PAC sandbox se reporta como PAC en error, y se recupera', async () => {
    const pila = await iniciarPila({ worker: false, saludTimeoutMs: 1500 });
    const fallas = (modo: string) =>
      fetch(`${pila.pacUrl}/sandbox/fallas`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ modo }),
      });
    try {
      const pac = async () => (await (await fetch(`${pila.url}/salud/detalle`)).json()).componentes.pac;
      // The first probes may exceed the short deadline on a loaded machine: healthy means it becomes ok.
      expect(await esperar(async () => ((await pac()).estado === 'ok' ? 'ok' : undefined), 15_000)).toBe(
        'ok',
      );
      for (const modo of ['caido', 'error_500']) {
        expect((await fallas(modo)).status).toBe(200);
        expect(await pac()).toMatchObject({ estado: 'error', detalle: expect.stringContaining(modo) });
      }
      await fallas('normal');
      expect((await pac()).estado).toBe('ok');
    } finally {
      await fallas('normal');
      await pila.detener();
    }
  });
});
