import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  ClienteCfdi,
  ErrorFirmaWebhook,
  ErrorNoEncontrado,
  ErrorSolicitudInvalida,
  verificarWebhook,
  type Factura,
  type FacturaNueva,
} from '../../sdk/src';
import { inicioRapido } from '../../sdk/ejemplos/inicio-rapido';
import { archivoSat, CONTRASENA_PRUEBA, CSD_VALIDO, DIRECTORIO_CSD_SAT } from '../support/certificados';
import { CLIENTE, nuevaCuenta, ORGANIZACION } from '../support/cuentas';
import { esperar } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';
import { receptorWebhooks } from '../support/receptor-webhooks';

const SDK = join(__dirname, '..', '..', 'sdk');
const ejecutar = promisify(execFile);

/**
 * Build the package and list what `npm pack` would ship. Started at load so it overlaps the stack's start; the
 * outcome is kept (never a rejected promise left unobserved).
 */
const empaque = (async () => {
  await ejecutar('npm', ['run', '-s', 'build'], { cwd: SDK });
  const { stdout } = await ejecutar('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: SDK });
  return JSON.parse(stdout) as { name: string; version: string; files: { path: string }[] }[];
})().then(
  (r) => ({ r }),
  (error: unknown) => ({ error }),
);

const facturaNueva = (organizacion: string, extra: Partial<FacturaNueva> = {}): FacturaNueva => ({
  organizacion,
  tipo: 'ingreso',
  cliente: CLIENTE.rfc,
  forma_pago: '03',
  conceptos: [
    {
      cantidad: '2',
      clave_prod_serv: '80111600',
      clave_unidad: 'E48',
      unidad: 'Servicio',
      descripcion: 'Consultoría fiscal',
      valor_unitario: '1500.00',
      objeto_imp: '02',
      impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
    },
  ],
  ...extra,
});

describe('SDK de punta a punta contra la pila real', () => {
  let pila: Pila;
  let sdk: ClienteCfdi;
  let hook: Awaited<ReturnType<typeof receptorWebhooks>>;
  beforeAll(async () => {
    [pila, hook] = await Promise.all([iniciarPila({ graciaDespachoMs: 0 }), receptorWebhooks()]);
    const cuenta = await nuevaCuenta(pila.db, pila.url);
    sdk = new ClienteCfdi({ llave: cuenta.secreto, urlBase: pila.url });
  });
  afterAll(async () => {
    await hook?.cerrar();
    await pila?.detener();
  });

  it('organización, CSD en multipart, cliente y webhook; factura timbrada, su XML y PDF, la lista y la entrega firmada', async () => {
    const org = await sdk.organizaciones.crear(ORGANIZACION);
    const cert = await sdk.certificados.subir({
      organizacion: org.id,
      contrasena: CONTRASENA_PRUEBA,
      cer: archivoSat(CSD_VALIDO.cer),
      llave: archivoSat(CSD_VALIDO.key),
    });
    expect(cert).toMatchObject({
      objeto: 'certificado',
      activo: true,
      no_certificado: CSD_VALIDO.noCertificado,
    });
    const cliente = await sdk.clientes.crear({ ...CLIENTE, organizacion: org.id });
    expect(cliente.id).toMatch(/^cli_/);
    const webhook = await sdk.webhooks.crear({ url: hook.url, eventos_suscritos: ['factura.timbrada'] });
    expect(webhook.secreto_firma).toMatch(/^whsec_/);

    // 201 stamped, or 202 on a loaded machine: esperarTimbrado covers both (it returns a final one at once).
    const creada = await sdk.facturas.crear(facturaNueva(org.id));
    const factura: Factura = await sdk.facturas.esperarTimbrado(creada, { tiempoMaximoMs: 30_000 });
    expect(factura).toMatchObject({ estado: 'timbrada', timbrado: { estado: 'timbrada' }, total: '3480.00' });

    const xml = await sdk.facturas.xml(factura.id);
    const textoXml = Buffer.from(xml).toString('utf8');
    expect(textoXml).toContain('<cfdi:Comprobante');
    expect(textoXml).toContain(factura.uuid!);
    const pdf = await sdk.facturas.pdf(factura.id);
    expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');

    // A draft too, then every invoice with one per page: the iterator follows the cursors.
    const borrador = await sdk.facturas.crear(facturaNueva(org.id, { auto_timbrar: false }));
    const ids: string[] = [];
    for await (const f of sdk.facturas.listar({ organizacion: org.rfc, limite: 1 })) ids.push(f.id);
    expect(ids).toEqual([borrador.id, factura.id]);
    const pagina = await sdk.facturas.listar({ estado: 'timbrada' }).pagina();
    expect(pagina.datos.map((f) => f.id)).toEqual([factura.id]);

    // The delivery of factura.timbrada, checked with the SDK over the raw bytes and headers received.
    const entrega = await esperar(async () => hook.recibidas[0], 20_000);
    const evento = verificarWebhook({
      cuerpo: entrega.cuerpo,
      encabezados: entrega.encabezados,
      secretos: webhook.secreto_firma,
    });
    expect(evento).toMatchObject({ tipo: 'factura.timbrada', datos: { id: factura.id } });
    expect(entrega.encabezados['x-facturacion-evento']).toBe(evento.id);
    expect(() =>
      verificarWebhook({ cuerpo: entrega.cuerpo, encabezados: entrega.encabezados, secretos: 'whsec_otro' }),
    ).toThrow(ErrorFirmaWebhook);
    const eventos = await sdk.eventos.listar({ tipo: 'factura.timbrada' }).aArreglo();
    expect(eventos.map((e) => e.id)).toEqual([evento.id]);
  });

  it('el inicio rápido del README corre tal cual: factura timbrada, su PDF y el webhook verificado', async () => {
    const cuenta = await nuevaCuenta(pila.db, pila.url);
    const pdf = join(mkdtempSync(join(tmpdir(), 'inicio-')), 'factura.pdf');
    const { factura, evento } = await inicioRapido({
      urlBase: pila.url,
      llave: cuenta.secreto,
      cer: join(DIRECTORIO_CSD_SAT, CSD_VALIDO.cer),
      key: join(DIRECTORIO_CSD_SAT, CSD_VALIDO.key),
      contrasena: CONTRASENA_PRUEBA,
      pdf,
    });
    expect(factura.timbrado.estado).toBe('timbrada');
    expect(readFileSync(pdf).subarray(0, 5).toString()).toBe('%PDF-');
    expect(evento).toMatchObject({ tipo: 'factura.timbrada', datos: { id: factura.id, uuid: factura.uuid } });
  });

  it('errores tipados: 404 con su código e id de solicitud; 400 con el parámetro', async () => {
    const e = await sdk.facturas.obtener('fac_00000000000000000000000000').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ErrorNoEncontrado);
    expect(e).toMatchObject({ estado: 404, tipo: 'no_encontrado', codigo: 'factura_no_encontrada' });
    expect((e as ErrorNoEncontrado).idSolicitud).toBeTruthy();
    const invalido = await sdk.facturas.obtener('no-es-un-id').catch((x: unknown) => x);
    expect(invalido).toBeInstanceOf(ErrorSolicitudInvalida);
    expect(invalido).toMatchObject({ codigo: 'parametro_invalido', parametro: 'id' });
    // The catalogs are public: the key the SDK always sends does not get in the way.
    expect((await sdk.catalogos.formasPago()).datos.length).toBeGreaterThan(10);
  });

  it('npm pack del paquete construido lleva dist/index.js y dist/index.d.ts', async () => {
    const resultado = await empaque;
    if ('error' in resultado) throw resultado.error;
    const [paquete] = resultado.r;
    expect(paquete).toMatchObject({ name: '@cfdi-api/sdk', version: '0.1.0' });
    const archivos = paquete!.files.map((f) => f.path);
    expect(archivos).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'package.json', 'README.md']),
    );
    expect(
      archivos.filter((a) => !/^(dist\/.*\.(js|d\.ts)|package\.json|README\.md|CHANGELOG\.md)$/.test(a)),
    ).toEqual([]);
  });
});
