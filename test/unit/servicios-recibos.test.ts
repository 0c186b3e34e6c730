import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fechaCfdi } from '../../cfdi/fecha';
import { validarCliente } from '../../cfdi/reglas';
import type { FacturacionRecibo, ReciboNuevo } from '../../servicios/recibos';
import { hashClaveRecibo } from '../../seguridad/claves-recibo';
import { CLIENTE, ORGANIZACION } from '../support/cuentas';
import { alcance } from '../support/memoria';
import {
  AHORA,
  catalogosPrueba,
  crearServiciosEnMemoria,
  errorNegocio,
  rechazoSinEscrituras,
  sembrar,
  solicitudFactura,
  type ServiciosEnMemoria,
} from '../support/memoria/servicios';

const DIA_MS = 86_400_000;
const a = alcance();
let s: ServiciosEnMemoria;
let ids: Awaited<ReturnType<typeof sembrar>>;

beforeEach(async () => {
  s = crearServiciosEnMemoria();
  ids = await sembrar(s, a);
});

const CONCEPTO_EN_LINEA = {
  cantidad: '3',
  clave_prod_serv: '50192100',
  clave_unidad: 'H87',
  descripcion: 'Torta de milanesa',
  valor_unitario: '45.500000',
  descuento: '1.25',
  objeto_imp: '02',
  impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
} as const;

// Invalid values are sent on purpose: a body reaches the service as whatever JSON arrived.
const recibo = (o: Partial<Record<keyof ReciboNuevo, unknown>> = {}): ReciboNuevo =>
  ({
    organizacion: ids.org,
    forma_pago: '01',
    conceptos: [{ producto: ids.prod, cantidad: 2 }, CONCEPTO_EN_LINEA],
    ...o,
  }) as ReciboNuevo;

describe('recibos: alta', () => {
  it('calcula conceptos, impuestos y totales exactamente como una factura de los mismos conceptos', async () => {
    const r = await s.recibos.crear(a, recibo());
    const { factura: f } = await s.facturas.crear(
      a,
      solicitudFactura(ids, { forma_pago: '01', auto_timbrar: false, conceptos: recibo().conceptos }),
    );
    expect(r.conceptos).toEqual(f.conceptos);
    expect(r.impuestos).toEqual(f.impuestos);
    expect([r.subtotal, r.descuento, r.total]).toEqual([f.subtotal, f.descuento, f.total]);
    expect(r).toMatchObject({
      objeto: 'recibo',
      modo: 'test',
      organizacion: ids.org,
      estado: 'abierto',
      forma_pago: '01',
      moneda: 'MXN',
      tipo_cambio: null,
      lugar_expedicion: ORGANIZACION.codigo_postal,
      folio: null,
      sucursal: null,
      factura: null,
      factura_global: null,
      cancelado_en: null,
    });
    expect(r.conceptos[0]!.producto).toBe(ids.prod);
  });

  it('fecha por omisión ahora en hora local; vence a los 30 días de la organización, o a su plazo propio', async () => {
    const r = await s.recibos.crear(a, recibo());
    expect(r.fecha).toBe(fechaCfdi(AHORA, 'Tiempo del Centro'));
    expect(r.vence_en).toBe(new Date(AHORA.getTime() + 30 * DIA_MS).toISOString());
    await s.organizaciones.actualizar(a, ids.org, { autofactura_plazo_dias: 7 });
    expect((await s.organizaciones.obtener(a, ids.org)).autofactura_plazo_dias).toBe(7);
    const siete = await s.recibos.crear(a, recibo());
    expect(siete.vence_en).toBe(new Date(AHORA.getTime() + 7 * DIA_MS).toISOString());
    const propio = new Date(AHORA.getTime() + 90 * DIA_MS).toISOString();
    expect((await s.recibos.crear(a, recibo({ vence_en: propio }))).vence_en).toBe(propio);
  });

  it('fecha con zona se convierte a la hora local; solo la fecha son las 12:00', async () => {
    const ayer = new Date(AHORA.getTime() - DIA_MS);
    const conZona = await s.recibos.crear(a, recibo({ fecha: ayer.toISOString() }));
    expect(conZona.fecha).toBe(fechaCfdi(ayer, 'Tiempo del Centro'));
    const dia = fechaCfdi(ayer, 'Tiempo del Centro').slice(0, 10);
    expect((await s.recibos.crear(a, recibo({ fecha: dia }))).fecha).toBe(`${dia}T12:00:00`);
  });

  it('la clave: 80 bits legibles, guardada solo cifrada y como hash, que encuentra el recibo aunque se teclee mal', async () => {
    const r = await s.recibos.crear(a, recibo());
    expect(r.clave).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
    expect(r.url_autofactura).toBe(`https://facturas.ejemplo.mx/autofactura?clave=${r.clave}`);
    expect(s.m.almacen.volcado()).not.toContain(r.clave!.replace(/-/g, ''));
    expect(s.m.almacen.volcado()).not.toContain(r.clave);
    const tecleada = r.clave!.toLowerCase().replace(/-/g, ' ').replace(/0/g, 'o').replace(/1/g, 'l');
    expect(await s.m.recibos.porHashClave(hashClaveRecibo(tecleada))).toEqual({
      id: r.id,
      cuenta_id: a.cuentaId,
      modo: 'test',
    });
    // Every read shows the same key again.
    expect((await s.recibos.obtener(a, r.id)).clave).toBe(r.clave);
    const otro = await s.recibos.crear(a, recibo());
    expect(otro.clave).not.toBe(r.clave);
  });

  it('emite recibo.creado con el recibo, sin su clave', async () => {
    const r = await s.recibos.crear(a, recibo({ folio: 'T-1', sucursal: 'Centro' }));
    const ev = await s.m.eventos.listar(a, { tipo: 'recibo.creado' }, { limite: 10 });
    expect(ev.datos).toHaveLength(1);
    expect(ev.datos[0]!.datos).toEqual({ ...r, clave: null, url_autofactura: null });
  });

  it('la repetición de una creación ya confirmada responde el mismo recibo', async () => {
    const r = await s.recibos.crear(a, recibo());
    expect(await s.recibos.crear(a, recibo(), { recurso: r.id })).toEqual(r);
  });

  it.each([
    ['forma de pago 99', { forma_pago: '99' }, 'forma_pago_invalida', 'forma_pago'],
    ['fecha futura', { fecha: new Date(AHORA.getTime() + 3_600_000).toISOString() }, 'fecha_futura', 'fecha'],
    ['fecha inexistente', { fecha: '2026-02-30' }, 'fecha_invalida', 'fecha'],
    [
      'vence en el pasado',
      { vence_en: new Date(AHORA.getTime() - 1000).toISOString() },
      'vence_en_invalido',
      'vence_en',
    ],
    [
      'vence en más de 366 días',
      { vence_en: new Date(AHORA.getTime() + 367 * DIA_MS).toISOString() },
      'vence_en_invalido',
      'vence_en',
    ],
    [
      'concepto incompleto',
      { conceptos: [{ cantidad: '1' }] },
      'concepto_incompleto',
      'conceptos[0].clave_prod_serv',
    ],
    [
      'descuento mayor que el importe (matriz del SAT)',
      { conceptos: [{ ...CONCEPTO_EN_LINEA, descuento: '1000' }] },
      'descuento_mayor_importe',
      'conceptos[0].descuento',
    ],
    ['moneda sin tipo de cambio', { moneda: 'USD' }, 'tipo_cambio_requerido', 'tipo_cambio'],
    [
      'organización inexistente',
      { organizacion: 'org_no_existe' },
      'organizacion_no_encontrada',
      'organizacion',
    ],
  ])('rechaza %s sin escribir nada', async (_n, cambios, codigo, parametro) => {
    const e = await rechazoSinEscrituras(s.m, () => s.recibos.crear(a, recibo(cambios)));
    expect([e.codigo, e.parametro]).toEqual([codigo, parametro]);
  });

  it('el folio es único en la organización (sin mayúsculas), no entre organizaciones ni sin folio', async () => {
    await s.recibos.crear(a, recibo({ folio: 'T-001' }));
    const e = await rechazoSinEscrituras(s.m, () => s.recibos.crear(a, recibo({ folio: 't-001' })));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'folio_duplicado', 'folio']);
    const otra = await s.organizaciones.crear(a, {
      ...ORGANIZACION,
      rfc: 'XIA190128J61',
      codigo_postal: '76343',
    });
    await s.recibos.crear(
      a,
      recibo({ organizacion: otra.id, folio: 'T-001', conceptos: [CONCEPTO_EN_LINEA] }),
    );
    await s.recibos.crear(a, recibo());
    await s.recibos.crear(a, recibo());
  });
});

describe('recibos: lectura, lista y cancelación', () => {
  it('otra cuenta u otro modo no lo ven: 404 recibo_no_encontrado', async () => {
    const r = await s.recibos.crear(a, recibo());
    for (const otro of [alcance('cta_b'), alcance('cta_a', 'live')]) {
      for (const f of [
        () => s.recibos.obtener(otro, r.id),
        () => s.recibos.cancelar(otro, r.id),
        () => s.recibos.qr(otro, r.id, 'png'),
      ]) {
        const e = await errorNegocio(f());
        expect([e.tipo, e.codigo]).toEqual(['no_encontrado', 'recibo_no_encontrado']);
      }
      expect((await s.recibos.listar(otro, {}, { limite: 10 })).datos).toEqual([]);
    }
    expect((await s.recibos.obtener(a, r.id)).estado).toBe('abierto');
  });

  it('lista del más nuevo al más antiguo, con filtros de organización, estado y días de la venta', async () => {
    const hoy = fechaCfdi(AHORA, 'Tiempo del Centro').slice(0, 10);
    const viejo = await s.recibos.crear(a, recibo({ fecha: '2025-01-10T09:00:00' }));
    const r1 = await s.recibos.crear(a, recibo());
    const r2 = await s.recibos.crear(a, recibo());
    await s.recibos.cancelar(a, r2.id);
    const ids = async (f: Parameters<typeof s.recibos.listar>[1]) =>
      (await s.recibos.listar(a, f, { limite: 10 })).datos.map((x) => x.id);
    expect(await ids({})).toEqual([r2.id, r1.id, viejo.id]);
    expect(await ids({ estado: 'abierto' })).toEqual([r1.id, viejo.id]);
    expect(await ids({ estado: 'cancelado' })).toEqual([r2.id]);
    expect(await ids({ organizacion: ORGANIZACION.rfc, fecha_desde: hoy })).toEqual([r2.id, r1.id]);
    expect(await ids({ fecha_desde: '2025-01-10', fecha_hasta: '2025-01-10' })).toEqual([viejo.id]);
    expect(await ids({ fecha_hasta: '2025-01-09' })).toEqual([]);
    const e = await errorNegocio(s.recibos.listar(a, { organizacion: 'XAXX010101000' }, { limite: 10 }));
    expect([e.codigo, e.parametro]).toEqual(['organizacion_no_encontrada', 'organizacion']);
    // Every item of the list carries its key, as a read does.
    expect((await s.recibos.listar(a, {}, { limite: 1 })).datos[0]!.clave).toBe(r2.clave);
  });

  it('cancela solo un recibo abierto, una vez, con recibo.cancelado', async () => {
    const r = await s.recibos.crear(a, recibo());
    s.reloj.ahora = new Date(AHORA.getTime() + 60_000);
    const c = await s.recibos.cancelar(a, r.id);
    expect(c).toMatchObject({
      estado: 'cancelado',
      clave: r.clave,
      cancelado_en: s.reloj.ahora.toISOString(),
    });
    const e = await rechazoSinEscrituras(s.m, () => s.recibos.cancelar(a, r.id));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'recibo_no_abierto', 'id']);
    const ev = await s.m.eventos.listar(a, { tipo: 'recibo.cancelado' }, { limite: 10 });
    expect(ev.datos.map((x) => x.datos)).toEqual([{ ...c, clave: null, url_autofactura: null }]);
  });

  it('el QR en PNG y en SVG codifica url_autofactura', async () => {
    const r = await s.recibos.crear(a, recibo());
    const png = await s.recibos.qr(a, r.id, 'png');
    expect(png.tipo).toBe('image/png');
    expect(png.cuerpo.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const dir = mkdtempSync(join(tmpdir(), 'qr-recibo-'));
    writeFileSync(join(dir, 'qr.png'), png.cuerpo);
    const leido = execFileSync('zbarimg', ['--raw', '-q', join(dir, 'qr.png')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
    expect(leido).toBe(r.url_autofactura);
    const svg = await s.recibos.qr(a, r.id, 'svg');
    expect(svg.tipo).toBe('image/svg+xml');
    expect(svg.cuerpo.toString('utf8')).toMatch(/^<\?xml[^>]*>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });
});

describe('recibos: facturación al comprador', () => {
  const COMPRADOR = {
    rfc: 'EKU9003173C9',
    nombre: 'ESCUELA KEMPER URGATE',
    regimen_fiscal: '601',
    domicilio_fiscal: CLIENTE.domicilio_fiscal,
    uso_cfdi: 'G03',
    correo: 'compras@kemper.example',
  } as FacturacionRecibo;

  it('crea y timbra una factura PUE con los conceptos y totales del recibo, al comprador, y deja el recibo facturado', async () => {
    const r = await s.recibos.crear(a, recibo());
    const x = await s.recibos.facturar(a, r.id, COMPRADOR);
    expect([x.nueva, x.pendiente]).toEqual([true, false]);
    const f = x.factura;
    expect(f).toMatchObject({
      estado: 'timbrada',
      organizacion: ids.org,
      metodo_pago: 'PUE',
      forma_pago: '01',
      moneda: 'MXN',
      cliente: { rfc: COMPRADOR.rfc, nombre: COMPRADOR.nombre, uso_cfdi: 'G03' },
      correos_adicionales: [COMPRADOR.correo],
    });
    expect(f.conceptos).toEqual(r.conceptos);
    expect(f.impuestos).toEqual(r.impuestos);
    expect([f.subtotal, f.descuento, f.total]).toEqual([r.subtotal, r.descuento, r.total]);
    const despues = await s.recibos.obtener(a, r.id);
    expect(despues).toMatchObject({ estado: 'facturado', factura: f.id });
    // The buyer became a client of the organization, with the email the invoice goes to.
    const cs = await s.m.clientes.porRfc(a, ids.org, COMPRADOR.rfc);
    expect(cs).toHaveLength(1);
    expect(cs[0]).toMatchObject({ id: f.cliente!.id, correo: COMPRADOR.correo, regimen_fiscal: '601' });
    const ev = await s.m.eventos.listar(a, { tipo: 'recibo.facturado' }, { limite: 10 });
    expect(ev.datos.map((e) => e.datos)).toEqual([{ ...despues, clave: null, url_autofactura: null }]);
  });

  it('un cliente con ese RFC en la organización se reutiliza', async () => {
    const r = await s.recibos.crear(a, recibo());
    const { correo: _c, ...sinCorreo } = COMPRADOR;
    const x = await s.recibos.facturar(a, r.id, { ...sinCorreo, ...CLIENTE });
    expect(x.factura.cliente!.id).toBe(ids.cli);
    expect(x.factura.correos_adicionales).toEqual([]);
  });

  it('vencido: 409 recibo_vencido; no abierto: 409 recibo_no_abierto; nada se escribe', async () => {
    const r = await s.recibos.crear(a, recibo());
    s.reloj.ahora = new Date(new Date(r.vence_en).getTime() + 1);
    let e = await rechazoSinEscrituras(s.m, () => s.recibos.facturar(a, r.id, COMPRADOR));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'recibo_vencido', 'id']);
    s.reloj.ahora = AHORA;
    await s.recibos.cancelar(a, r.id);
    e = await rechazoSinEscrituras(s.m, () => s.recibos.facturar(a, r.id, COMPRADOR));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'recibo_no_abierto', 'id']);
    expect(e.message).toContain('cancelado');
    e = await errorNegocio(s.recibos.facturar(a, 'rec_no_existe', COMPRADOR));
    expect(e.codigo).toBe('recibo_no_encontrado');
  });

  it('el mismo RFC otra vez (doble envío, también concurrente) responde la misma factura; otro RFC, 409', async () => {
    const r = await s.recibos.crear(a, recibo());
    const [x, y] = await Promise.all([
      s.recibos.facturar(a, r.id, COMPRADOR),
      s.recibos.facturar(a, r.id, { ...COMPRADOR, rfc: COMPRADOR.rfc.toLowerCase() }),
    ]);
    expect([x.nueva, y.nueva].sort()).toEqual([false, true]);
    expect(y.factura.id).toBe(x.factura.id);
    const z = await s.recibos.facturar(a, r.id, COMPRADOR);
    expect([z.nueva, z.factura.id]).toEqual([false, x.factura.id]);
    expect((await s.m.facturas.listar(a, {}, { limite: 10 })).datos).toHaveLength(1);
    // A request that finds it still stamping joins the same workflow (its id is the invoice's).
    expect(new Set(s.timbrador.llamadas.map((l) => l.factura.id))).toEqual(new Set([x.factura.id]));
    const e = await rechazoSinEscrituras(s.m, () =>
      s.recibos.facturar(a, r.id, { ...COMPRADOR, ...CLIENTE }),
    );
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'recibo_facturado_a_otro_rfc', 'id']);
  });

  it('un uso de CFDI que el régimen no admite: 422 con el mensaje de las reglas de clientes, nada se escribe', async () => {
    const r = await s.recibos.crear(a, recibo());
    const pedido = { ...CLIENTE, regimen_fiscal: '605' } as FacturacionRecibo;
    const e = await rechazoSinEscrituras(s.m, () => s.recibos.facturar(a, r.id, pedido));
    const [aviso] = validarCliente(pedido, catalogosPrueba()).advertencias;
    expect([e.tipo, e.codigo, e.parametro]).toEqual([
      'regla_de_negocio',
      'uso_cfdi_incompatible',
      'uso_cfdi',
    ]);
    expect(e.message).toBe(aviso!.mensaje);
    expect((await s.recibos.obtener(a, r.id)).estado).toBe('abierto');
  });
});
