import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import type { ClienteCfdi, operations } from '../../sdk/src';
import { sdkDePrueba, servidorFalso } from '../support/sdk-servidor';

/** Operator and probe routes, and the self-invoicing portal (its buyers' browser calls it): not in the SDK. */
const FUERA = /^\/(salud|metricas|autofactura)/;
/** Those routes, and the webhooks section's operations (integrators receive those, the SDK verifies them). */
type Fuera =
  | 'obtenerSalud'
  | 'obtenerSaludDetalle'
  | 'obtenerVivo'
  | 'obtenerMetricas'
  | `evento${string}`
  | `${string}Autofactura`;

const ID = 'id_1';
const x = {} as never;

/**
 * How the SDK performs each operation. Typed over the generated `operations`: an operation added to openapi.yaml
 * (after `npm run generar`) fails the type check here until it has its method.
 */
const INVOCACIONES: Record<Exclude<keyof operations, Fuera>, (sdk: ClienteCfdi) => Promise<unknown>> = {
  crearFactura: (s) => s.facturas.crear(x),
  listarFacturas: (s) => s.facturas.listar().pagina(),
  obtenerFactura: (s) => s.facturas.obtener(ID),
  timbrarFactura: (s) => s.facturas.timbrar(ID),
  reintentarTimbrado: (s) => s.facturas.reintentarTimbrado(ID),
  abandonarTimbrado: (s) => s.facturas.abandonarTimbrado(ID),
  cancelarFactura: (s) => s.facturas.cancelar(ID, { motivo: '02' }),
  reintentarCancelacion: (s) => s.facturas.reintentarCancelacion(ID),
  descargarXmlFactura: (s) => s.facturas.xml(ID),
  descargarPdfFactura: (s) => s.facturas.pdf(ID),
  descargarAcuseFactura: (s) => s.facturas.acuse(ID),
  obtenerEstadoSatFactura: (s) => s.facturas.estadoSat(ID),
  descargarAuditoriaFactura: (s) => s.facturas.auditoria(ID),
  obtenerHistoriaFactura: (s) => s.facturas.historia(ID),
  crearCliente: (s) => s.clientes.crear(x),
  listarClientes: (s) => s.clientes.listar().pagina(),
  obtenerCliente: (s) => s.clientes.obtener(ID),
  actualizarCliente: (s) => s.clientes.actualizar(ID, {}),
  eliminarCliente: (s) => s.clientes.eliminar(ID),
  obtenerEstadoDeCuentaCliente: (s) => s.clientes.estadoDeCuenta(ID, { fecha: '2026-11-27' }),
  crearProducto: (s) => s.productos.crear(x),
  listarProductos: (s) => s.productos.listar().pagina(),
  obtenerProducto: (s) => s.productos.obtener(ID),
  actualizarProducto: (s) => s.productos.actualizar(ID, {}),
  eliminarProducto: (s) => s.productos.eliminar(ID),
  crearOrganizacion: (s) => s.organizaciones.crear(x),
  listarOrganizaciones: (s) => s.organizaciones.listar().pagina(),
  obtenerOrganizacion: (s) => s.organizaciones.obtener(ID),
  actualizarOrganizacion: (s) => s.organizaciones.actualizar(ID, {}),
  subirLogoOrganizacion: (s) => s.organizaciones.subirLogo(ID, Buffer.from([0x89, 0x50]), 'image/png'),
  obtenerLogoOrganizacion: (s) => s.organizaciones.logo(ID),
  eliminarLogoOrganizacion: (s) => s.organizaciones.eliminarLogo(ID),
  subirCertificado: (s) =>
    s.certificados.subir({
      organizacion: 'EKU9003173C9',
      contrasena: '12345678a',
      cer: Buffer.from('c'),
      llave: Buffer.from('k'),
    }),
  listarCertificados: (s) => s.certificados.listar().pagina(),
  obtenerCertificado: (s) => s.certificados.obtener(ID),
  actualizarCertificado: (s) => s.certificados.actualizar(ID, { activo: true }),
  crearPago: (s) => s.pagos.crear(x),
  listarPagos: (s) => s.pagos.listar().pagina(),
  obtenerPago: (s) => s.pagos.obtener(ID),
  listarClavesProdServ: (s) => s.catalogos.clavesProdServ({ q: 'computadora' }),
  listarClavesUnidad: (s) => s.catalogos.clavesUnidad(),
  listarCodigosPostales: (s) => s.catalogos.codigosPostales(),
  listarRegimenesFiscales: (s) => s.catalogos.regimenesFiscales(),
  listarUsosCfdi: (s) => s.catalogos.usosCfdi(),
  listarFormasPago: (s) => s.catalogos.formasPago(),
  listarMetodosPago: (s) => s.catalogos.metodosPago(),
  listarMonedas: (s) => s.catalogos.monedas(),
  listarExportaciones: (s) => s.catalogos.exportaciones(),
  listarObjetosImp: (s) => s.catalogos.objetosImp(),
  listarTiposRelacion: (s) => s.catalogos.tiposRelacion(),
  crearWebhook: (s) => s.webhooks.crear(x),
  listarWebhooks: (s) => s.webhooks.listar().pagina(),
  obtenerWebhook: (s) => s.webhooks.obtener(ID),
  actualizarWebhook: (s) => s.webhooks.actualizar(ID, { activo: false }),
  eliminarWebhook: (s) => s.webhooks.eliminar(ID),
  rotarSecretoWebhook: (s) => s.webhooks.rotarSecreto(ID),
  listarEntregasWebhook: (s) => s.webhooks.entregas(ID).pagina(),
  reenviarEvento: (s) => s.webhooks.reenviar(ID, 'evt_1'),
  listarEventos: (s) => s.eventos.listar().pagina(),
  obtenerEvento: (s) => s.eventos.obtener(ID),
  listarEntregasEvento: (s) => s.eventos.entregas(ID).pagina(),
  obtenerEntrega: (s) => s.entregas.obtener(ID),
  listarEntregas: (s) => s.entregas.listar({ estado: 'fallida' }).pagina(),
  reintentarEntrega: (s) => s.entregas.reintentar(ID),
  listarPendientes: (s) => s.pendientes.listar({ tipo: 'timbrado' }).pagina(),
  obtenerResumenFacturacion: (s) => s.resumen.facturacion({ agrupacion: 'mes' }),
  crearRecibo: (s) => s.recibos.crear(x),
  listarRecibos: (s) => s.recibos.listar({ estado: 'abierto' }).pagina(),
  obtenerRecibo: (s) => s.recibos.obtener(ID),
  cancelarRecibo: (s) => s.recibos.cancelar(ID),
  facturarRecibo: (s) => s.recibos.facturar(ID, x),
  descargarQrRecibo: (s) => s.recibos.qr(ID),
  crearFacturaGlobal: (s) => s.facturasGlobales.crear(x),
  enviarCorreoFactura: (s) => s.correos.enviar(ID, { destinatarios: ['a@b.mx'] }),
  listarCorreos: (s) => s.correos.listar({ factura: ID }).pagina(),
  obtenerCorreo: (s) => s.correos.obtener(ID),
  obtenerCuenta: (s) => s.cuenta.obtener(),
  completarCuenta: (s) => s.cuenta.completar(x),
  actualizarCuenta: (s) => s.cuenta.actualizar({}),
  listarLlavesApi: (s) => s.llaves.listar().pagina(),
  crearLlaveApi: (s) => s.llaves.crear({ nombre: 'ci', modo: 'test' }),
  revocarLlaveApi: (s) => s.llaves.revocar(ID),
};

interface Operacion {
  id: string;
  metodo: string;
  ruta: string;
}

/** Every operation under `paths` (callbacks such as `recibirEvento` are the integrator's, not the SDK's). */
function operacionesDelContrato(): Operacion[] {
  const doc = YAML.parse(readFileSync(join(__dirname, '..', '..', 'openapi.yaml'), 'utf8'));
  const ops: Operacion[] = [];
  for (const [ruta, item] of Object.entries<Record<string, { operationId?: string }>>(doc.paths)) {
    if (FUERA.test(ruta)) continue;
    for (const metodo of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[metodo];
      if (op?.operationId) ops.push({ id: op.operationId, metodo: metodo.toUpperCase(), ruta });
    }
  }
  return ops;
}

describe('SDK: cada operación de openapi.yaml tiene su método', () => {
  let s: Awaited<ReturnType<typeof servidorFalso>>;
  let contrato: Operacion[];
  beforeAll(async () => {
    contrato = operacionesDelContrato();
    s = await servidorFalso((r) =>
      r.ruta.endsWith('/xml') ||
      r.ruta.endsWith('/pdf') ||
      r.ruta.endsWith('/acuse') ||
      r.ruta.endsWith('/auditoria') ||
      r.ruta.endsWith('/qr') ||
      (r.ruta.endsWith('/logo') && r.metodo === 'GET')
        ? { cuerpo: 'bytes' }
        : {
            json: {
              id: ID,
              objeto: 'lista',
              datos: [],
              paginacion: { hay_mas: false, siguiente_cursor: null },
            },
          },
    );
  });
  afterAll(() => s.cerrar());

  it('el contrato y la tabla nombran las mismas operaciones', () => {
    const ids = contrato.map((o) => o.id);
    expect(ids.length).toBeGreaterThan(50);
    expect([...ids].sort()).toEqual(Object.keys(INVOCACIONES).sort());
  });

  it('cada método llega con el método HTTP y la ruta de su operación', async () => {
    const { sdk } = sdkDePrueba(s.url);
    for (const op of contrato) {
      const invocar = INVOCACIONES[op.id as keyof typeof INVOCACIONES];
      await invocar(sdk);
      const r = s.recibidas.at(-1)!;
      expect(`${op.id}: ${r.metodo} ${r.ruta}`).toBe(
        `${op.id}: ${op.metodo} ${op.ruta.replace(/\{id\}/g, ID)}`,
      );
      expect([op.id, r.encabezados['clave-idempotencia'] !== undefined]).toEqual([
        op.id,
        op.metodo === 'POST',
      ]);
    }
  });

  it('subir un certificado es multipart: partes cer y llave con los bytes, organizacion y contrasena', async () => {
    const { sdk } = sdkDePrueba(s.url);
    const cer = Buffer.from([0x30, 0x82, 0x05, 0xbb, 0xff, 0x00]);
    const llave = new Uint8Array([0x30, 0x82, 0x01, 0x02, 0x80]);
    await sdk.certificados.subir({ organizacion: 'org_1', contrasena: '12345678a', cer, llave });
    const r = s.recibidas.at(-1)!;
    expect(r.encabezados['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const partes = await new Response(new Uint8Array(r.cuerpo), {
      headers: { 'content-type': r.encabezados['content-type']! },
    }).formData();
    expect(partes.get('organizacion')).toBe('org_1');
    expect(partes.get('contrasena')).toBe('12345678a');
    expect(Buffer.from(await (partes.get('cer') as Blob).arrayBuffer()).equals(cer)).toBe(true);
    expect(Buffer.from(await (partes.get('llave') as Blob).arrayBuffer()).equals(Buffer.from(llave))).toBe(
      true,
    );
  });
});
