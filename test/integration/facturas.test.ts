import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { cadenaOriginal } from '../../cfdi/cadena';
import { urlVerificacionDe } from '../../cfdi/qr';
import { verificarSello } from '../../cfdi/sello';
import { extraerTimbre, verificarTimbre } from '../../cfdi/timbre';
import { parsear } from '../../cfdi/xml/parsear';
import { archivoSat, CONTRASENA_PRUEBA, CSD_VALIDO } from '../support/certificados';
import { CLIENTE, nuevaCuenta, ORGANIZACION } from '../support/cuentas';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';
import { validarConEsquema } from '../support/xslt';

/** Every string and decoded byte array of a value, depth first. */
function textoDe(v: unknown, acc: string[] = []): string[] {
  if (v instanceof Uint8Array) acc.push(Buffer.from(v).toString('utf8'));
  else if (typeof v === 'string') acc.push(v);
  else if (Array.isArray(v)) for (const x of v) textoDe(x, acc);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) textoDe(x, acc);
  return acc;
}

describe('facturas de punta a punta (API → Temporal → PAC sandbox → MySQL → PDF)', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  let certificadoSat: X509Certificate;
  const dir = mkdtempSync(join(tmpdir(), 'facturas-'));
  beforeAll(async () => {
    pila = await iniciarPila();
    c = await cuentaLista(pila);
    certificadoSat = new X509Certificate(
      Buffer.from(await (await fetch(`${pila.pacUrl}/sat/certificado`)).arrayBuffer()),
    );
  });
  afterAll(async () => {
    await pila.detener();
    rmSync(dir, { recursive: true, force: true });
  });

  it('crea y timbra: 201 timbrada con UUID; el XML valida, su sello y su timbre verifican', async () => {
    const r = await c.http.post('/v1/facturas', facturaNueva(c));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      objeto: 'factura',
      estado: 'timbrada',
      tipo: 'ingreso',
      timbrado: { estado: 'timbrada', ultimo_error: null },
      subtotal: '6499.99',
      total: '7539.99',
      cliente: { rfc: CLIENTE.rfc, uso_cfdi: 'G03' },
    });
    expect(r.body.uuid).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    expect(r.body.conceptos[0]).toMatchObject({
      producto: c.prod,
      no_identificacion: 'CONS-01',
      cantidad: '2',
    });

    const xml = await fetch(`${pila.url}/v1/facturas/${r.body.id}/xml`, {
      headers: { authorization: `Basic ${Buffer.from(`${c.secreto}:`).toString('base64')}` },
    });
    expect(xml.headers.get('content-type')).toContain('application/xml');
    const texto = await xml.text();
    const archivo = join(dir, 'timbrada.xml');
    writeFileSync(archivo, texto);
    expect(validarConEsquema([archivo]).get(archivo)).toEqual([]);
    const nodo = parsear(texto);
    const sello = nodo.atributos.Sello!;
    expect(verificarSello(cadenaOriginal(nodo), sello, new X509Certificate(archivoSat(CSD_VALIDO.cer)))).toBe(
      true,
    );
    expect(verificarTimbre(nodo, certificadoSat)).toBe(true);
    expect(extraerTimbre(nodo)!.atributos.UUID).toBe(r.body.uuid);

    const eventos = await c.http.get('/v1/eventos?tipo=factura.timbrada');
    expect(eventos.body.datos.map((e: { datos: { id: string } }) => e.datos.id)).toContain(r.body.id);

    // The PDF is rendered right after stamping; its QR decodes to the SAT verification URL.
    const pdf = await esperar(async () => {
      const p = await c.http.binario(`/v1/facturas/${r.body.id}/pdf`);
      return p.status === 200 ? p.body : undefined;
    });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    writeFileSync(join(dir, 'f.pdf'), pdf);
    execFileSync('pdftoppm', ['-png', '-r', '150', '-f', '1', '-l', '1', join(dir, 'f.pdf'), join(dir, 'p')]);
    const png = execFileSync('ls', [dir])
      .toString()
      .split('\n')
      .find((n) => n.startsWith('p') && n.endsWith('.png'))!;
    const qr = execFileSync('zbarimg', ['--raw', '-q', join(dir, png)])
      .toString()
      .trim();
    expect(qr).toBe(urlVerificacionDe(nodo));
  });

  it('el workflow se encuentra por sus atributos de búsqueda', async () => {
    const r = await c.http.post('/v1/facturas', facturaNueva(c));
    await pila.cliente.workflow.getHandle(`timbrado:${r.body.id}`).result();
    const lista = pila.cliente.workflow.list({ query: `FacturaId="${r.body.id}"` });
    const encontrados: string[] = [];
    for await (const w of lista) encontrados.push(w.workflowId);
    // One workflow per invoice: the stamping renders its PDF too.
    expect(encontrados).toEqual([`timbrado:${r.body.id}`]);
  });

  it('borrador: 201 + factura.creada; timbrar → 200 timbrada; timbrar otra vez → 409', async () => {
    const b = await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({ estado: 'borrador', uuid: null, timbrado: { estado: 'no_solicitado' } });
    const creada = await c.http.get('/v1/eventos?tipo=factura.creada');
    expect(creada.body.datos[0].datos.id).toBe(b.body.id);
    const t = await c.http.post(`/v1/facturas/${b.body.id}/timbrar`);
    expect(t.status).toBe(200);
    expect(t.body.estado).toBe('timbrada');
    const otra = await c.http.post(`/v1/facturas/${b.body.id}/timbrar`);
    expect(otra.status).toBe(409);
    expect(otra.body.error.codigo).toBe('factura_no_es_borrador');
  });

  it('un rechazo fiscal deja el borrador con el error, emite timbrado_fallido y responde 422 con la factura', async () => {
    const cli = await c.http.post('/v1/clientes', {
      ...CLIENTE,
      rfc: 'XOJI740919U48',
      nombre: 'INGRID XODAR JIMENEZ',
      regimen_fiscal: '605',
      uso_cfdi: 'G03',
      organizacion: c.org,
    });
    expect(cli.body.advertencias[0].codigo).toBe('uso_cfdi_incompatible');
    const r = await c.http.post('/v1/facturas', facturaNueva(c, { cliente: cli.body.id }));
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({
      codigo: 'timbrado_rechazado',
      factura: expect.stringMatching(/^fac_/),
    });
    const f = await c.http.get(`/v1/facturas/${r.body.error.factura}`);
    expect(f.body).toMatchObject({
      estado: 'borrador',
      uuid: null,
      timbrado: { estado: 'fallido', ultimo_error: { codigo: 'CFDI40161' } },
    });
    const ev = await c.http.get('/v1/eventos?tipo=factura.timbrado_fallido');
    // The event carries the invoice as GET shows it, its error in timbrado.ultimo_error.
    expect(ev.body.datos[0].datos).toMatchObject({
      id: r.body.error.factura,
      objeto: 'factura',
      timbrado: { estado: 'fallido', ultimo_error: { codigo: 'CFDI40161' } },
    });

    // Correcting the client outside the invoice is what lets the draft be stamped.
    expect((await c.http.patch(`/v1/clientes/${cli.body.id}`, { uso_cfdi: 'S01' })).status).toBe(200);
    const t = await c.http.post(`/v1/facturas/${r.body.error.factura}/timbrar`);
    expect(t.status).toBe(200);
    expect(t.body).toMatchObject({ estado: 'timbrada', cliente: { id: cli.body.id, uso_cfdi: 'S01' } });
    const xml = await c.http.get(`/v1/facturas/${r.body.error.factura}/xml`);
    expect(xml.body).toContain('UsoCFDI="S01"');
  });

  it.each([
    [
      { conceptos: [{ cantidad: 1, descripcion: 'x' }] },
      'concepto_incompleto',
      'conceptos[0].clave_prod_serv',
    ],
    [{ moneda: 'USD' }, 'tipo_cambio_requerido', 'tipo_cambio'],
    [{ cliente: 'AAA010101AAA' }, 'cliente_no_encontrado', 'cliente'],
    [{ organizacion: 'org_01m83600000000000000000000' }, 'organizacion_no_encontrada', 'organizacion'],
  ])('rechaza solicitudes inválidas sin crear nada (%#)', async (cambio, codigo, parametro) => {
    const antes = await pila.db('facturas').where({ cuenta_id: c.cuentaId }).count({ n: '*' });
    const r = await c.http.post('/v1/facturas', { ...facturaNueva(c), ...cambio });
    expect([400, 404, 422]).toContain(r.status);
    expect(r.body.error).toMatchObject({ codigo, parametro });
    const despues = await pila.db('facturas').where({ cuenta_id: c.cuentaId }).count({ n: '*' });
    expect(despues).toEqual(antes);
  });

  it('10 creaciones simultáneas dan 10 facturas con 10 UUID distintos', async () => {
    const rs = await Promise.all(
      Array.from({ length: 10 }, () => c.http.post('/v1/facturas', facturaNueva(c))),
    );
    expect(rs.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(rs.map((r) => r.body.uuid)).size).toBe(10);
  });

  it('lista con filtros por estado, organización y cliente (id o RFC)', async () => {
    const borradores = await c.http.get('/v1/facturas?estado=borrador');
    expect(borradores.body.datos.every((f: { estado: string }) => f.estado === 'borrador')).toBe(true);
    const porRfc = await c.http.get(`/v1/facturas?cliente=${CLIENTE.rfc}&paginacion.limite=100`);
    const porId = await c.http.get(`/v1/facturas?cliente=${c.cli}&paginacion.limite=100`);
    expect(porRfc.body.datos.length).toBeGreaterThan(10);
    expect(porId.body.datos.map((f: { id: string }) => f.id)).toEqual(
      porRfc.body.datos.map((f: { id: string }) => f.id),
    );
    expect(
      (await c.http.get(`/v1/facturas?organizacion=${ORGANIZACION.rfc}`)).body.datos.length,
    ).toBeGreaterThan(0);
  });

  it('el registro de eventos es inmutable: la base de datos rechaza cambios y borrados', async () => {
    const [e] = await pila.db('eventos').where({ cuenta_id: c.cuentaId }).limit(1);
    await expect(pila.db('eventos').where({ id: e.id }).update({ tipo: 'x' })).rejects.toThrow(/inmutable/);
    await expect(pila.db('eventos').where({ id: e.id }).delete()).rejects.toThrow(/inmutable/);
    const uno = await c.http.get(`/v1/eventos/${e.id}`);
    expect(uno.body).toMatchObject({ id: e.id, objeto: 'evento', modo: 'test' });
    const otra = await nuevaCuenta(pila.db, pila.url);
    expect((await otra.http.get(`/v1/eventos/${e.id}`)).status).toBe(404);
  });

  it('ningún payload de Temporal lleva llaves, contraseñas ni XML: solo identificadores', async () => {
    const r = await c.http.post('/v1/facturas', facturaNueva(c));
    await c.http.post(`/v1/facturas/${r.body.id}/cancelar`, { motivo: '02' });
    const llave = archivoSat(CSD_VALIDO.key).toString('base64');
    for (const id of [`timbrado:${r.body.id}`, `cancelacion:${r.body.id}`]) {
      // Payloads are bytes inside the history: decode every one, so the checks see what Temporal stores.
      const historia = textoDe(await pila.cliente.workflow.getHandle(id).fetchHistory()).join('\n');
      expect(historia).toContain(`"facturaId":"${r.body.id}"`);
      expect(historia).not.toContain(CONTRASENA_PRUEBA);
      expect(historia).not.toContain(llave.slice(0, 40));
      expect(historia).not.toContain(c.secreto);
      expect(historia).not.toContain('cfdi:Comprobante');
    }
  });
});
