import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Esquema } from '../../contrato';
import { CLIENTE } from '../support/cuentas';
import { cuentaLista } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';

type Recibo = Esquema<'Recibo'>;

/** Zbar reads the PNG as a phone's camera would read the printed ticket. */
function leerQr(png: Buffer): string {
  const ruta = join(mkdtempSync(join(tmpdir(), 'qr-recibo-')), 'qr.png');
  writeFileSync(ruta, png);
  return execFileSync('zbarimg', ['--raw', '-q', ruta], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'], // zbar complains about D-Bus on stderr
  }).trim();
}

/**
 * Receipts over HTTP: what only the whole stack shows (the contract's validation of every answer, idempotency,
 * the QR as bytes, scoping by key). Receipts need no worker: none is started.
 */
describe('recibos por HTTP', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  let otra: Awaited<ReturnType<typeof cuentaLista>>;
  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, workerPdf: false });
    c = await cuentaLista(pila);
    otra = await cuentaLista(pila);
  }, 60_000);
  afterAll(async () => pila?.detener());

  const nuevo = (extra: Record<string, unknown> = {}) => ({
    organizacion: c.org,
    forma_pago: '04',
    conceptos: [{ producto: c.prod, cantidad: '1.5' }],
    ...extra,
  });

  it('crea (idempotente), lee, lista, cancela una vez, y otra cuenta no lo alcanza', async () => {
    const folio = `T-${Date.now()}`;
    const clave = { 'Clave-Idempotencia': `recibo-${folio}` };
    const r = await c.http.post('/v1/recibos', nuevo({ folio, sucursal: 'Centro' }), clave);
    expect(r.status).toBe(201);
    const recibo = r.body as Recibo;
    expect(recibo).toMatchObject({ estado: 'abierto', folio, sucursal: 'Centro', total: '2610.00' });
    expect(recibo.url_autofactura).toBe(
      `${pila.config.autofacturaUrlBase}/autofactura?clave=${recibo.clave}`,
    );

    const repetida = await c.http.post('/v1/recibos', nuevo({ folio, sucursal: 'Centro' }), clave);
    expect([repetida.status, repetida.headers.get('idempotencia-repetida')]).toEqual([201, 'true']);
    expect(repetida.body).toEqual(recibo);
    const duplicado = await c.http.post('/v1/recibos', nuevo({ folio }));
    expect([duplicado.status, duplicado.body.error.codigo]).toEqual([409, 'folio_duplicado']);

    expect((await c.http.get(`/v1/recibos/${recibo.id}`)).body).toEqual(recibo);
    const lista = await c.http.get(`/v1/recibos?organizacion=${c.org}&estado=abierto&paginacion.limite=5`);
    expect(lista.body.datos.map((x: Recibo) => x.id)).toEqual([recibo.id]);

    for (const ruta of [`/v1/recibos/${recibo.id}`, `/v1/recibos/${recibo.id}/qr`]) {
      const ajena = await otra.http.get(ruta);
      expect([ajena.status, ajena.body.error?.codigo]).toEqual([404, 'recibo_no_encontrado']);
    }
    expect((await otra.http.post(`/v1/recibos/${recibo.id}/cancelar`)).status).toBe(404);
    expect((await otra.http.get('/v1/recibos')).body.datos).toEqual([]);

    const cancelado = await c.http.post(`/v1/recibos/${recibo.id}/cancelar`);
    expect([cancelado.status, cancelado.body.estado]).toEqual([200, 'cancelado']);
    const otraVez = await c.http.post(`/v1/recibos/${recibo.id}/cancelar`);
    expect([otraVez.status, otraVez.body.error.codigo]).toEqual([409, 'recibo_no_abierto']);

    // The event log keeps the receipt without its buyer's key.
    const eventos = await c.http.get('/v1/eventos?tipo=recibo.creado');
    expect(eventos.body.datos.map((e: { datos: Recibo }) => [e.datos.id, e.datos.clave])).toEqual([
      [recibo.id, null],
    ]);
  });

  it('el QR: PNG por omisión que se lee como url_autofactura, y SVG', async () => {
    const recibo = (await c.http.post('/v1/recibos', nuevo())).body as Recibo;
    const png = await c.http.binario(`/v1/recibos/${recibo.id}/qr`);
    expect([png.status, png.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(leerQr(png.body)).toBe(recibo.url_autofactura);
    const svg = await c.http.binario(`/v1/recibos/${recibo.id}/qr?formato=svg`);
    expect([svg.status, svg.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    expect(svg.body.toString('utf8')).toContain('<svg xmlns="http://www.w3.org/2000/svg"');
    const malo = await c.http.get(`/v1/recibos/${recibo.id}/qr?formato=gif`);
    expect([malo.status, malo.body.error.parametro]).toEqual([400, 'formato']);
  });
});

/** Invoicing a receipt stamps it: this part needs the worker and the sandbox PAC. */
describe('recibos facturados por HTTP', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  beforeAll(async () => {
    pila = await iniciarPila({ workerPdf: false });
    c = await cuentaLista(pila);
  }, 60_000);
  afterAll(async () => pila?.detener());

  const comprador = {
    rfc: CLIENTE.rfc,
    nombre: CLIENTE.nombre,
    regimen_fiscal: CLIENTE.regimen_fiscal,
    domicilio_fiscal: CLIENTE.domicilio_fiscal,
    uso_cfdi: CLIENTE.uso_cfdi,
  };
  const nuevo = async () =>
    (
      await c.http.post('/v1/recibos', {
        organizacion: c.org,
        forma_pago: '04',
        conceptos: [{ producto: c.prod, cantidad: '1.5' }],
      })
    ).body as Recibo;

  it('se timbra al comprador (su Receptor en el XML) y el recibo queda facturado; otra vez, la misma factura', async () => {
    const recibo = await nuevo();
    const r = await c.http.post(`/v1/recibos/${recibo.id}/facturar`, comprador);
    expect(r.status).toBe(201);
    const f = r.body as Esquema<'Factura'>;
    expect(f).toMatchObject({
      estado: 'timbrada',
      metodo_pago: 'PUE',
      forma_pago: '04',
      total: recibo.total,
    });
    const xml = (await c.http.get(`/v1/facturas/${f.id}/xml`)).body as string;
    expect(xml).toMatch(new RegExp(`<cfdi:Receptor [^>]*Rfc="${CLIENTE.rfc}"`));
    expect(xml).toMatch(/<cfdi:Receptor [^>]*UsoCFDI="G03"/);
    expect((await c.http.get(`/v1/recibos/${recibo.id}`)).body).toMatchObject({
      estado: 'facturado',
      factura: f.id,
    });
    const otraVez = await c.http.post(`/v1/recibos/${recibo.id}/facturar`, comprador);
    expect([otraVez.status, otraVez.body.id]).toEqual([200, f.id]);
    const ajeno = await c.http.post(`/v1/recibos/${recibo.id}/facturar`, {
      ...comprador,
      rfc: 'EKU9003173C9',
      nombre: 'ESCUELA KEMPER URGATE',
      regimen_fiscal: '601',
    });
    expect([ajeno.status, ajeno.body.error.codigo]).toEqual([409, 'recibo_facturado_a_otro_rfc']);
  }, 60_000);

  it('un doble envío concurrente da una sola factura', async () => {
    const facturas = async () =>
      (await c.http.get(`/v1/facturas?organizacion=${c.org}&paginacion.limite=100`)).body
        .datos as Esquema<'Factura'>[];
    const antes = (await facturas()).length;
    const recibo = await nuevo();
    const [x, y] = await Promise.all([
      c.http.post(`/v1/recibos/${recibo.id}/facturar`, comprador),
      c.http.post(`/v1/recibos/${recibo.id}/facturar`, comprador),
    ]);
    expect([x.status, y.status].sort()).toEqual([200, 201]);
    expect(y.body.id).toBe(x.body.id);
    expect((await facturas()).length).toBe(antes + 1);
    expect((await c.http.get(`/v1/recibos/${recibo.id}`)).body.factura).toBe(x.body.id);
  }, 60_000);

  it('uso de CFDI que el régimen no admite: 422 uso_cfdi_incompatible; el recibo sigue abierto', async () => {
    const recibo = await nuevo();
    const r = await c.http.post(`/v1/recibos/${recibo.id}/facturar`, { ...comprador, regimen_fiscal: '605' });
    expect([r.status, r.body.error.codigo, r.body.error.parametro]).toEqual([
      422,
      'uso_cfdi_incompatible',
      'uso_cfdi',
    ]);
    expect((await c.http.get(`/v1/recibos/${recibo.id}`)).body.estado).toBe('abierto');
  });
});
