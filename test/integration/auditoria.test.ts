import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { strFromU8, unzipSync, type Unzipped } from 'fflate';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { repetirHistoria } from '../support/historias';
import { iniciarPila, type Pila } from '../support/pila';

/**
 * Issue 14, item 4: the audit package of an invoice with a payment, both cancelled, and webhook deliveries of
 * every event, over the real stack: every file signed by the manifest, the same bytes and events the API gives,
 * every workflow that touched it, and every raw history replaying with the current workflow code.
 */

interface Manifiesto {
  factura: string;
  generado_en: string;
  archivos: { ruta: string; sha256: string; bytes: number }[];
  omitidos: { ruta: string; motivo: string }[];
  flujos: {
    workflowId: string;
    runId: string;
    tipo: string;
    estado: string;
    historia: string;
    legible: string;
  }[];
}

describe('paquete de auditoría de una factura (GET /v1/facturas/{id}/auditoria)', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  let cerrarReceptor: () => Promise<void>;
  let webhook: string;

  beforeAll(async () => {
    pila = await iniciarPila({
      timbradoEsperaMs: 15_000,
      programaEntregasS: [0, 2, 4, 6, 8],
      graciaDespachoMs: 0,
    });
    const servidor = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('ok')));
    await new Promise<void>((r) => servidor.listen(0, '127.0.0.1', r));
    cerrarReceptor = () => new Promise((r) => servidor.close(() => r()));
    c = await cuentaLista(pila);
    const w = await c.http.post('/v1/webhooks', {
      url: `http://127.0.0.1:${(servidor.address() as AddressInfo).port}/hook`,
      eventos_suscritos: ['factura.timbrada', 'factura.cancelada', 'pago.creado'],
    });
    expect(w.status).toBe(201);
    webhook = w.body.id;
  }, 120_000);
  afterAll(async () => {
    await cerrarReceptor();
    await pila.detener();
  });

  const descargar = async (id: string, secreto = c.secreto) => {
    const r = await fetch(`${pila.url}/v1/facturas/${id}/auditoria`, {
      headers: { authorization: `Basic ${Buffer.from(`${secreto}:`).toString('base64')}` },
    });
    return { r, bytes: Buffer.from(await r.arrayBuffer()) };
  };
  const texto = (z: Unzipped, ruta: string) => strFromU8(z[ruta]!);

  it('una factura PPD con un pago, ambos cancelados: todo firmado, completo y reproducible', async () => {
    const f = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { metodo_pago: 'PPD', forma_pago: undefined }),
    );
    expect(f.status).toBe(201);
    const pago = await c.http.post('/v1/pagos', {
      organizacion: c.org,
      fecha_pago: new Date().toISOString(),
      forma_pago: '03',
      monto: '1000.00',
      facturas_pagadas: [{ factura: f.body.id, imp_pagado: '1000.00' }],
    });
    expect(pago.status).toBe(201);
    const cfdi: string = pago.body.factura_pago;
    expect((await c.http.post(`/v1/facturas/${cfdi}/cancelar`, { motivo: '02' })).status).toBe(200);
    expect((await c.http.post(`/v1/facturas/${f.body.id}/cancelar`, { motivo: '02' })).status).toBe(200);

    // Every event of the invoice, as the API lists it (all pages).
    const eventos: { id: string; tipo: string }[] = [];
    for (let cursor: string | null = null; ; ) {
      const q: string = cursor ? `&paginacion.cursor_inicio=${cursor}` : '';
      const r = await c.http.get(`/v1/eventos?factura=${f.body.id}&paginacion.limite=2${q}`);
      eventos.push(...r.body.datos);
      cursor = r.body.paginacion.siguiente_cursor;
      if (!cursor) break;
    }
    expect(eventos.map((e) => e.tipo)).toEqual([
      'factura.cancelada',
      'factura.cancelada',
      'factura.timbrada',
      'pago.creado',
      'factura.timbrada',
    ]);
    // Each event was delivered to the webhook: one delivery workflow per event.
    const esperados = [
      `timbrado:${f.body.id}`,
      `cancelacion:${f.body.id}`,
      `pago:${pago.body.id}`,
      `pdf:${cfdi}`,
      `cancelacion:${cfdi}`,
      ...eventos.map((e) => `entrega:${e.id}:${webhook}`),
    ].sort();

    // Visibility lags a little behind the workflows: the package is read again until it lists them all, closed.
    const { r, bytes, zip, m } = await esperar(async () => {
      const d = await descargar(f.body.id);
      expect(d.r.status).toBe(200);
      const z = unzipSync(d.bytes);
      const man = JSON.parse(texto(z, 'manifiesto.json')) as Manifiesto;
      const ids = [...new Set(man.flujos.map((w) => w.workflowId))].sort();
      const cerrados = man.flujos.every((w) => w.estado !== 'RUNNING');
      return JSON.stringify(ids) === JSON.stringify(esperados) && cerrados
        ? { ...d, zip: z, m: man }
        : undefined;
    }, 60_000);
    expect(r.headers.get('content-type')).toBe('application/zip');
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="auditoria-${f.body.id}.zip"`);
    expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');

    // The manifest signs every file, and the ZIP holds nothing it does not list.
    expect(m.factura).toBe(f.body.id);
    expect(Object.keys(zip).sort()).toEqual(['manifiesto.json', ...m.archivos.map((a) => a.ruta)].sort());
    for (const a of m.archivos) {
      const b = zip[a.ruta]!;
      expect([a.ruta, createHash('sha256').update(b).digest('hex'), b.byteLength]).toEqual([
        a.ruta,
        a.sha256,
        a.bytes,
      ]);
    }

    // The same resources and bytes the API gives.
    expect(JSON.parse(texto(zip, 'factura.json'))).toEqual(
      (await c.http.get(`/v1/facturas/${f.body.id}`)).body,
    );
    expect(texto(zip, 'cfdi.xml')).toBe((await c.http.get(`/v1/facturas/${f.body.id}/xml`)).body);
    expect(texto(zip, `pagos/${pago.body.id}/cfdi.xml`)).toBe(
      (await c.http.get(`/v1/facturas/${cfdi}/xml`)).body,
    );
    expect(JSON.parse(texto(zip, `pagos/${pago.body.id}/pago.json`))).toEqual(
      (await c.http.get(`/v1/pagos/${pago.body.id}`)).body,
    );
    expect(JSON.parse(texto(zip, 'eventos.json'))).toEqual(eventos);
    for (const pdf of ['factura.pdf', `pagos/${pago.body.id}/cfdi.pdf`]) {
      if (zip[pdf]) expect(Buffer.from(zip[pdf]).subarray(0, 5).toString('latin1')).toBe('%PDF-');
      else expect(m.omitidos.map((o) => o.ruta)).toContain(pdf);
    }
    // Both cancellations' acuses, the very bytes GET …/acuse serves (the sandbox's, with the UUID).
    for (const [ruta, id] of [
      ['acuse_cancelacion.xml', f.body.id],
      [`pagos/${pago.body.id}/acuse_cancelacion.xml`, cfdi],
    ]) {
      const servido = await c.http.get(`/v1/facturas/${id}/acuse`);
      expect(servido.status).toBe(200);
      expect(texto(zip, ruta)).toBe(servido.body);
      const uuid = (await c.http.get(`/v1/facturas/${id}`)).body.uuid;
      expect(texto(zip, ruta)).toContain(`<UUID>${uuid}</UUID><EstatusUUID>201</EstatusUUID>`);
    }
    expect(JSON.parse(texto(zip, `pagos/${pago.body.id}/cfdi.json`))).toEqual(
      (await c.http.get(`/v1/facturas/${cfdi}`)).body,
    );
    // The webhook delivery log: one delivery per event, each as GET /v1/entregas/{id} shows it, with its URL.
    const entregas = JSON.parse(texto(zip, 'entregas.json')) as { id: string; evento: string; url: string }[];
    expect(entregas.map((e) => e.evento).sort()).toEqual(eventos.map((e) => e.id).sort());
    for (const { url, ...e } of entregas) {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hook$/);
      expect(e).toEqual((await c.http.get(`/v1/entregas/${e.id}`)).body);
      expect(e).toMatchObject({ webhook, estado: 'entregada', intentos: [{ numero: 1, status_http: 200 }] });
    }

    // The story as people read it, from these very histories, the ledger and the logs (GET …/historia's).
    const historia = JSON.parse(texto(zip, 'historia.json'));
    expect(historia).toMatchObject({
      objeto: 'historia',
      factura: f.body.id,
      temporal: { leido: true, error: null },
    });
    expect(historia.pasos.map((p: any) => p.tipo)).toEqual(
      expect.arrayContaining([
        'creada',
        'sellada',
        'timbrada',
        'pago',
        'cancelacion_solicitada',
        'cancelada',
        'webhook_entregado',
      ]),
    );
    expect(historia.pasos.find((p: any) => p.tipo === 'pago').texto).toMatch(/: saldo insoluto \d+\.\d{2}/);
    expect(historia.pasos.find((p: any) => p.tipo === 'timbrada').actor).toMatchObject({ tipo: 'llave' });
    expect(texto(zip, 'historia.txt').trimEnd().split('\n').slice(2)).toHaveLength(historia.pasos.length);

    // Every raw history is Temporal's export and replays with the current workflow code; its readable twin
    // has the payloads decoded.
    for (const w of m.flujos) {
      const cruda = JSON.parse(texto(zip, w.historia));
      await expect(repetirHistoria(historyFromJSON(cruda), w.workflowId)).resolves.toBeUndefined();
      const legible = JSON.parse(texto(zip, w.legible));
      expect(legible.events).toHaveLength(cruda.events.length);
    }
    const timbrado = m.flujos.find((w) => w.workflowId === `timbrado:${f.body.id}`)!;
    const inicio = (h: any) => h.events[0].workflowExecutionStartedEventAttributes.input.payloads[0];
    expect(inicio(JSON.parse(texto(zip, timbrado.legible)))).toMatchObject({
      metadata: { encoding: 'json/plain' },
      data: { facturaId: f.body.id, cuentaId: c.cuentaId, modo: 'test' },
    });
    expect(typeof inicio(JSON.parse(texto(zip, timbrado.historia))).data).toBe('string');
  }, 180_000);

  it('la factura de otra cuenta responde 404, como una inexistente', async () => {
    const f = await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
    const intrusa = await cuentaLista(pila);
    const { r, bytes } = await descargar(f.body.id, intrusa.secreto);
    expect(r.status).toBe(404);
    expect(JSON.parse(bytes.toString('utf8')).error).toMatchObject({ codigo: 'factura_no_encontrada' });
    // The owner gets a package of a draft: no XML, no PDF, no workflow, and the manifest says why.
    const propio = await descargar(f.body.id);
    expect(propio.r.status).toBe(200);
    const m = JSON.parse(texto(unzipSync(propio.bytes), 'manifiesto.json')) as Manifiesto;
    expect(m.omitidos.map((o) => o.ruta)).toEqual(['cfdi.xml', 'factura.pdf']);
    expect(m.flujos).toEqual([]);
  });
});
