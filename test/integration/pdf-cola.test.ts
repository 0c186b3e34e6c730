import { temporal } from '@temporalio/proto';
import { cuentaLista, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';

// The PDF is off the stamping path: the stamping workflow answers first, then renders it as an activity on the
// PDF queue. Stamping never waits for Chromium, and a read of the PDF before it is stored renders it on the spot
// through the invoice's PDF workflow (`pdf:<factura>`), started only for such a read.

const { EventType } = temporal.api.enums.v1;

describe('PDF en su propia cola', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  beforeAll(async () => {
    // The PDF worker starts stopped: each test decides when it runs.
    pila = await iniciarPila({ workerPdf: false, pdfEsperaMs: 30_000 });
    c = await cuentaLista(pila);
  });
  afterAll(() => pila.detener());
  afterEach(() => pila.detenerWorkerPdf());

  const leerPdf = async (id: string) => {
    const r = await c.http.binario(`/v1/facturas/${id}/pdf`);
    return { status: r.status, tipo: r.headers.get('content-type'), cuerpo: r.body };
  };
  const pdfGuardado = async (id: string) =>
    ((await pila.db('facturas').where({ id }).first('pdf')) as { pdf: Buffer | null }).pdf;
  const corridas = async (id: string) => {
    const r: { runId: string; status: string }[] = [];
    for await (const w of pila.cliente.workflow.list({ query: `WorkflowId="pdf:${id}"` }))
      r.push({ runId: w.runId, status: w.status.name });
    return r;
  };
  const eventosDe = async (id: string) =>
    (await pila.cliente.workflow.getHandle(`pdf:${id}`).fetchHistory()).events ?? [];

  it('una ráfaga de timbrados con el worker de PDF detenido se timbra igual; los PDF aparecen cuando vuelve', async () => {
    const ids = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const r = await c.http.post('/v1/facturas', facturaNueva(c));
        expect([r.status, r.body.estado]).toEqual([201, 'timbrada']);
        return r.body.id as string;
      }),
    );
    // Stamped and answered; every PDF waits in its stamping workflow for the PDF worker.
    for (const id of ids) {
      expect(await pdfGuardado(id)).toBeNull();
      const d = await pila.cliente.workflow.getHandle(`timbrado:${id}`).describe();
      expect(d.status.name).toBe('RUNNING');
      expect(d.raw.pendingActivities?.map((a) => a.activityType?.name)).toEqual(['generarPdf']);
    }

    await pila.arrancarWorkerPdf();
    for (const id of ids)
      expect(await pila.cliente.workflow.getHandle(`timbrado:${id}`).result()).toBe('timbrada');
    for (const id of ids) {
      const guardado = await pdfGuardado(id);
      expect(guardado?.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      // Later reads come from storage: the same bytes.
      const r = await leerPdf(id);
      expect([r.status, r.tipo]).toEqual([200, 'application/pdf']);
      expect(r.cuerpo.equals(guardado!)).toBe(true);
      expect(await corridas(id)).toEqual([]);
    }
  }, 180_000);

  it('GET …/pdf antes de que se genere: lo genera al momento y responde el PDF en la misma solicitud', async () => {
    const r = await c.http.post('/v1/facturas', facturaNueva(c));
    expect(r.status).toBe(201);
    const id = r.body.id as string;
    expect(await pdfGuardado(id)).toBeNull();

    // The read arrives while the PDF still waits in the queue; the PDF worker comes back meanwhile.
    const lectura = leerPdf(id);
    // Time for the request to reach the workflow (nothing to observe: an update waits outside the history).
    await new Promise((r) => setTimeout(r, 1000));
    await pila.arrancarWorkerPdf();
    const l = await lectura;
    expect([l.status, l.tipo]).toEqual([200, 'application/pdf']);
    expect(l.cuerpo.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    // What was answered is what is stored: the first render stored wins, the other finds it stored.
    expect(l.cuerpo.equals((await pdfGuardado(id))!)).toBe(true);
    await pila.cliente.workflow.getHandle(`pdf:${id}`).result();
    expect(await corridas(id)).toEqual([expect.objectContaining({ status: 'COMPLETED' })]);
    expect(await pila.cliente.workflow.getHandle(`timbrado:${id}`).result()).toBe('timbrada');
    expect((await pdfGuardado(id))!.equals(l.cuerpo)).toBe(true);
  }, 120_000);

  it('sin flujo en curso (el timbrado terminado por un operador antes del PDF): la lectura lo genera al momento', async () => {
    const r = await c.http.post('/v1/facturas', facturaNueva(c));
    const id = r.body.id as string;
    await pila.cliente.workflow.getHandle(`timbrado:${id}`).terminate('prueba: sin flujo del PDF');
    await pila.arrancarWorkerPdf();

    const l = await leerPdf(id);
    expect([l.status, l.tipo]).toEqual([200, 'application/pdf']);
    expect(l.cuerpo.equals((await pdfGuardado(id))!)).toBe(true);
    // The new run rendered inside its workflow task (a local activity's marker), not behind the queue.
    const eventos = await eventosDe(id);
    const tipos = eventos.map((e) => e.eventType);
    expect(tipos).toContain(EventType.EVENT_TYPE_MARKER_RECORDED);
    expect(tipos).not.toContain(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
    expect((await corridas(id)).map((x) => x.status)).toEqual(['COMPLETED']);

    // Stored: a second read is answered from storage, no new run.
    expect((await leerPdf(id)).cuerpo.equals(l.cuerpo)).toBe(true);
    expect(await corridas(id)).toHaveLength(1);
  }, 120_000);

  it('un borrador no tiene PDF: 409 factura_no_timbrada, sin flujo', async () => {
    const b = await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
    const r = await c.http.get(`/v1/facturas/${b.body.id}/pdf`);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ codigo: 'factura_no_timbrada', parametro: 'id' });
    expect(await corridas(b.body.id)).toEqual([]);
  });
});
