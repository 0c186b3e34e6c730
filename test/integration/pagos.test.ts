import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cadenaOriginal } from '../../cfdi/cadena';
import { verificarSello } from '../../cfdi/sello';
import { parsear } from '../../cfdi/xml/parsear';
import { archivoSat, CSD_VALIDO } from '../support/certificados';
import { cuentaLista, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';
import { validarConEsquema } from '../support/xslt';

describe('pagos: libro de saldos, parcialidades y CFDI de pago (Pagos 2.0)', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  let dir: string;
  beforeAll(async () => {
    pila = await iniciarPila({ timbradoEsperaMs: 15_000 });
    c = await cuentaLista(pila);
    dir = mkdtempSync(join(tmpdir(), 'pagos-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await pila.detener();
  });

  const ppd = async (extra: Record<string, unknown> = {}) => {
    const r = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { metodo_pago: 'PPD', forma_pago: undefined, ...extra }),
    );
    expect(r.status).toBe(201);
    return r.body as { id: string; uuid: string; total: string; fecha: string };
  };
  const hoy = () => new Date().toISOString();

  it('dos parcialidades: saldos exactos, CFDI de pago timbrado, válido ante el esquema y con sello verificable', async () => {
    const f = await ppd();
    const uno = await c.http.post('/v1/pagos', {
      organizacion: c.org,
      fecha_pago: hoy(),
      forma_pago: '03',
      monto: '1000.00',
      facturas_pagadas: [{ factura: f.id, imp_pagado: '1000.00' }],
    });
    expect(uno.status).toBe(201);
    expect(uno.body).toMatchObject({
      objeto: 'pago',
      estado: 'timbrada',
      error: null,
      facturas_pagadas: [
        {
          factura: f.id,
          uuid: f.uuid,
          num_parcialidad: 1,
          imp_saldo_anterior: f.total,
          imp_pagado: '1000.00',
          vigente: true,
        },
      ],
    });
    const saldo1 = (Number(f.total) - 1000).toFixed(2);
    expect(uno.body.facturas_pagadas[0].imp_saldo_insoluto).toBe(saldo1);

    const dos = await c.http.post('/v1/pagos', {
      organizacion: c.org,
      fecha_pago: hoy(),
      forma_pago: '03',
      monto: saldo1,
      facturas_pagadas: [{ factura: f.id, imp_pagado: saldo1 }],
    });
    expect(dos.status).toBe(201);
    expect(dos.body.facturas_pagadas[0]).toMatchObject({
      num_parcialidad: 2,
      imp_saldo_anterior: saldo1,
      imp_saldo_insoluto: '0.00',
    });

    const leida = await c.http.get(`/v1/facturas/${f.id}`);
    expect(leida.body).toMatchObject({ saldo_insoluto: '0.00', num_parcialidades: 2 });
    expect(leida.body.parcialidades.map((p: { num_parcialidad: number }) => p.num_parcialidad)).toEqual([
      1, 2,
    ]);

    const cfdi = await c.http.get(`/v1/facturas/${dos.body.factura_pago}`);
    expect(cfdi.body).toMatchObject({ tipo: 'pago', estado: 'timbrada', pago: dos.body.id, moneda: 'XXX' });
    const xml = await fetch(`${pila.url}/v1/facturas/${dos.body.factura_pago}/xml`, {
      headers: { authorization: `Basic ${Buffer.from(`${c.secreto}:`).toString('base64')}` },
    });
    const texto = await xml.text();
    const archivo = join(dir, 'pago.xml');
    writeFileSync(archivo, texto);
    expect(validarConEsquema([archivo]).get(archivo)).toEqual([]);
    const nodo = parsear(texto);
    expect(
      verificarSello(
        cadenaOriginal(nodo),
        nodo.atributos.Sello!,
        new X509Certificate(archivoSat(CSD_VALIDO.cer)),
      ),
    ).toBe(true);
    expect(texto).toContain('NumParcialidad="2"');

    const eventos = await c.http.get('/v1/eventos?tipo=pago.creado');
    expect(eventos.body.datos.map((e: { datos: { id: string } }) => e.datos.id)).toEqual(
      expect.arrayContaining([uno.body.id, dos.body.id]),
    );
    const lista = await c.http.get(`/v1/pagos?factura=${f.id}`);
    expect(lista.body.datos.map((p: { id: string }) => p.id)).toEqual([dos.body.id, uno.body.id]);
  });

  it('importe mayor que el saldo: 422 importe_excede_saldo y nada cambia', async () => {
    const f = await ppd();
    const r = await c.http.post('/v1/pagos', {
      organizacion: c.org,
      fecha_pago: hoy(),
      forma_pago: '03',
      monto: '999999.00',
      facturas_pagadas: [{ factura: f.id, imp_pagado: '999999.00' }],
    });
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({
      codigo: 'importe_excede_saldo',
      parametro: 'facturas_pagadas[0].imp_pagado',
    });
    const leida = await c.http.get(`/v1/facturas/${f.id}`);
    expect(leida.body).toMatchObject({ saldo_insoluto: f.total, num_parcialidades: 0 });
  });
});
