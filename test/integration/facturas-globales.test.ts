import { X509Certificate, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Esquema } from '../../contrato';
import { cadenaOriginal } from '../../cfdi/cadena';
import { fechaCfdi } from '../../cfdi/fecha';
import { verificarSello } from '../../cfdi/sello';
import { parsear } from '../../cfdi/xml/parsear';
import { idProgramacionGlobal } from '../../temporal/programaciones-globales';
import { idReexpedicion } from '../../temporal/reexpedidor';
import { archivoSat, CSD_VALIDO } from '../support/certificados';
import { CLIENTE as COMPRADOR } from '../support/cuentas';
import { cuentaLista, esperar } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';
import { cadenaPorXslt, validarConEsquema } from '../support/xslt';

type Factura = Esquema<'Factura'>;
type Recibo = Esquema<'Recibo'>;

/**
 * The global invoice through the whole stack: the SAT's own XSD and XSLT judge every global issued, the motivo-04
 * procedure runs as its Temporal workflow against the sandbox PAC, and the organization's schedule issues one
 * without a request.
 */
describe('factura global por HTTP', () => {
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  const dir = mkdtempSync(join(tmpdir(), 'globales-'));
  const csd = new X509Certificate(archivoSat(CSD_VALIDO.cer));
  // Yesterday at the organization's place of issue (42501, central time): a closed daily period.
  const ayer = fechaCfdi(new Date(Date.now() - 86_400_000), 'Tiempo del Centro').slice(0, 10);

  beforeAll(async () => {
    pila = await iniciarPila({ workerPdf: false });
    c = await cuentaLista(pila);
  }, 90_000);
  afterAll(async () => {
    await pila?.detener();
    rmSync(dir, { recursive: true, force: true });
  });

  const vender = async (cantidad: number, forma = '01') => {
    const r = await c.http.post('/v1/recibos', {
      organizacion: c.org,
      fecha: `${ayer}T11:30:00`,
      forma_pago: forma,
      folio: `T-${randomBytes(4).toString('hex')}`,
      conceptos: [{ producto: c.prod, cantidad }],
    });
    expect(r.status).toBe(201);
    return r.body as Recibo;
  };

  /** The CFDI as the SAT checks it: its XSD, the XSLT's cadena (ours must be the same) and the seal over it. */
  async function comoElSat(id: string) {
    const xml = (await c.http.binario(`/v1/facturas/${id}/xml`)).body.toString('utf8');
    const archivo = join(dir, `${id}.xml`);
    writeFileSync(archivo, xml);
    expect(validarConEsquema([archivo]).get(archivo)).toEqual([]);
    const nodo = parsear(xml);
    const cadena = cadenaPorXslt(xml);
    expect(cadenaOriginal(nodo)).toBe(cadena);
    expect(verificarSello(cadena, nodo.atributos.Sello!, csd)).toBe(true);
    return nodo;
  }

  const factura = async (id: string) => (await c.http.get(`/v1/facturas/${id}`)).body as Factura;
  const recibosDe = async (globalId: string) =>
    ((await c.http.get(`/v1/recibos?factura_global=${globalId}`)).body.datos as Recibo[]).map((r) => r.id);

  it('tres recibos en una global válida; uno reclamado después sale por motivo 04 y cada venta queda una vez', async () => {
    const rs = [await vender(1), await vender(4, '04'), await vender(2)];
    const g = await c.http.post('/v1/facturas_globales', {
      organizacion: c.org,
      periodicidad: '01',
      fecha: ayer,
    });
    expect(g.status).toBe(201);
    const global = g.body as Factura;
    expect(global).toMatchObject({
      estado: 'timbrada',
      forma_pago: '04',
      cliente: { rfc: 'XAXX010101000', nombre: 'PUBLICO EN GENERAL' },
      factura_global: { periodicidad: '01', desde: ayer, hasta: ayer, reemplaza: null },
    });
    const nodo = await comoElSat(global.id);
    const ig = nodo.hijos.find((h) => h.nombre.endsWith('InformacionGlobal'))!;
    expect(ig.atributos).toEqual({ Periodicidad: '01', Meses: ayer.slice(5, 7), Año: ayer.slice(0, 4) });
    expect((await recibosDe(global.id)).sort()).toEqual(rs.map((r) => r.id).sort());

    // The buyer of the second sale claims it: their invoice at once, the rest by the durable workflow.
    const f = await c.http.post(`/v1/recibos/${rs[1]!.id}/facturar`, COMPRADOR);
    expect(f.status).toBe(201);
    const nominativa = f.body as Factura;
    expect(nominativa).toMatchObject({ estado: 'timbrada', cliente: { rfc: COMPRADOR.rfc } });
    await comoElSat(nominativa.id);
    const flujo = pila.cliente.workflow.getHandle(idReexpedicion(rs[1]!.id));
    expect(await flujo.result()).toBe('cancelada');

    const anterior = await factura(global.id);
    expect(anterior).toMatchObject({
      estado: 'cancelada',
      cancelacion: { motivo: '04', estado: 'aceptada' },
    });
    const nuevaId = (await c.http.get(`/v1/recibos/${rs[0]!.id}`)).body.factura_global as string;
    const nueva = await factura(nuevaId);
    expect(nueva).toMatchObject({
      estado: 'timbrada',
      factura_global: { desde: ayer, reemplaza: global.id },
      relaciones: [{ tipo_relacion: '04', uuids: [global.uuid] }],
    });
    expect(nueva.conceptos.map((x) => x.no_identificacion)).toEqual([rs[0]!.folio, rs[2]!.folio]);
    const reexpedida = await comoElSat(nueva.id);
    const rel = reexpedida.hijos.find((h) => h.nombre.endsWith('CfdiRelacionados'))!;
    expect(rel.atributos.TipoRelacion).toBe('04');

    // Every sale in exactly one valid CFDI: the claimed one in its buyer's, the others in the reissue.
    const validas = new Map<string, string[]>();
    for (const id of [global.id, nominativa.id, nueva.id]) {
      const x = await factura(id);
      if (x.estado !== 'timbrada') continue;
      for (const concepto of x.conceptos) {
        const venta = x.factura_global ? concepto.no_identificacion! : rs[1]!.folio!;
        validas.set(venta, [...(validas.get(venta) ?? []), id]);
      }
    }
    expect([...validas.entries()].sort()).toEqual(
      [
        [rs[0]!.folio!, [nueva.id]],
        [rs[1]!.folio!, [nominativa.id]],
        [rs[2]!.folio!, [nueva.id]],
      ].sort(),
    );
    // Ops find the workflow among the global's.
    const { typedSearchAttributes } = await flujo.describe();
    expect(typedSearchAttributes.getAll().find((p) => p.key.name === 'FacturaId')?.value).toBe(global.id);
  }, 90_000);

  it('la programación de la organización la emite sin solicitud (disparada a mano), visible en Temporal', async () => {
    const otra = await cuentaLista(pila);
    const r = await otra.http.post('/v1/recibos', {
      organizacion: otra.org,
      fecha: `${ayer}T09:00:00`,
      forma_pago: '01',
      conceptos: [{ producto: otra.prod, cantidad: 1 }],
    });
    const ajuste = await otra.http.patch(`/v1/organizaciones/${otra.org}`, {
      factura_global: { automatica: true, periodicidad: '01' },
    });
    expect(ajuste.body.factura_global).toEqual({ automatica: true, periodicidad: '01' });
    const programacion = pila.cliente.schedule.getHandle(idProgramacionGlobal(otra.org));
    const d = await programacion.describe();
    expect(d.spec.timezone).toBe('America/Mexico_City');
    await programacion.trigger();
    const globalId = await esperar(async () => {
      const x = (await otra.http.get(`/v1/recibos/${r.body.id}`)).body as Recibo;
      return x.estado === 'en_factura_global' ? x.factura_global! : undefined;
    }, 30_000);
    const g = await esperar(async () => {
      const x = (await otra.http.get(`/v1/facturas/${globalId}`)).body as Factura;
      return x.estado === 'timbrada' ? x : undefined;
    });
    expect(g.factura_global).toMatchObject({ periodicidad: '01', desde: ayer, hasta: ayer });
    const xml = (await otra.http.binario(`/v1/facturas/${g.id}/xml`)).body.toString('utf8');
    const archivo = join(dir, 'programada.xml');
    writeFileSync(archivo, xml);
    expect(validarConEsquema([archivo]).get(archivo)).toEqual([]);

    // Turned off, the schedule is gone.
    await otra.http.patch(`/v1/organizaciones/${otra.org}`, { factura_global: { automatica: false } });
    await expect(programacion.describe()).rejects.toThrow();
  }, 90_000);
});
