import { fechaCfdi } from '../../cfdi/fecha';
import { validarCliente } from '../../cfdi/reglas';
import type { ReciboNuevo } from '../../servicios/recibos';
import { fechaLegible, type FacturacionAutofactura } from '../../servicios/autofactura';
import { alcance } from '../support/memoria';
import {
  AHORA,
  catalogosPrueba,
  crearServiciosEnMemoria,
  errorNegocio,
  rechazoSinEscrituras,
  sembrar,
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

const nuevoRecibo = async (o: Partial<ReciboNuevo> = {}) =>
  s.recibos.crear(a, {
    organizacion: ids.org,
    forma_pago: '04',
    folio: `T-${Math.random().toString(36).slice(2, 8)}`,
    sucursal: 'Centro',
    conceptos: [{ producto: ids.prod, cantidad: 2 }],
    ...o,
  } as ReciboNuevo);

/** A buyer who is a persona física (13-character RFC) in the regime of business activities. */
const COMPRADOR = {
  rfc: 'MASO451221PM4',
  nombre: 'MARIA OLIVIA MARTINEZ SAGAZ',
  regimen_fiscal: '612',
  domicilio_fiscal: '80290',
  uso_cfdi: 'G03',
  correo: 'maria@ejemplo.mx',
} as const;
const pedido = (clave: string, o: Partial<FacturacionAutofactura> = {}) =>
  ({ clave, ...COMPRADOR, ...o }) as FacturacionAutofactura;

/** The same key as a person types it back: lower case, spaces for dashes, O for 0, L for 1. */
const tecleada = (clave: string) =>
  clave.toLowerCase().replace(/-/g, ' ').replace(/0/g, 'o').replace(/1/g, 'l');

describe('autofactura: el recibo de una clave', () => {
  it('muestra al comprador el recibo sin ids ni clave: emisor, fecha, conceptos, impuestos y totales del recibo', async () => {
    const r = await nuevoRecibo();
    const v = await s.autofactura.recibo(tecleada(r.clave!));
    expect(v).toEqual({
      objeto: 'recibo_autofactura',
      modo: 'test',
      estado: 'abierto',
      facturable: true,
      aviso: null,
      emisor: { nombre: 'ESCUELA KEMPER URGATE', rfc: 'EKU9003173C9', logo: null },
      fecha: r.fecha,
      folio: r.folio,
      sucursal: 'Centro',
      forma_pago: { clave: '04', descripcion: 'Tarjeta de crédito' },
      moneda: 'MXN',
      conceptos: r.conceptos.map((c) => ({
        descripcion: c.descripcion,
        cantidad: c.cantidad,
        unidad: expect.any(String),
        valor_unitario: c.valor_unitario,
        importe: c.importe,
        descuento: c.descuento,
      })),
      impuestos: [{ tipo: 'traslado', descripcion: 'IVA 16 %', importe: r.impuestos.traslados[0]!.importe }],
      subtotal: r.subtotal,
      descuento: r.descuento,
      total: r.total,
      vence_en: r.vence_en,
      vence_en_local: fechaCfdi(new Date(r.vence_en), 'Tiempo del Centro'),
    });
    expect(JSON.stringify(v)).not.toContain(r.id);
    expect(JSON.stringify(v)).not.toContain(r.clave!);
  });

  it('con logo, lo da como URI data: con su tipo', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    await s.logos.subir(a, ids.org, 'image/png', png);
    const r = await nuevoRecibo();
    expect((await s.autofactura.recibo(r.clave!)).emisor.logo).toBe(
      `data:image/png;base64,${png.toString('base64')}`,
    );
  });

  it('una clave mal formada, una desconocida y la de un recibo cancelado responden exactamente lo mismo', async () => {
    const cancelado = await nuevoRecibo();
    await s.recibos.cancelar(a, cancelado.id);
    const respuestas = [];
    for (const clave of ['no-es-una-clave', '0000-0000-0000-0000', cancelado.clave!]) {
      for (const f of [
        () => s.autofactura.recibo(clave),
        () => s.autofactura.facturar(pedido(clave)),
        () => s.autofactura.factura(clave, COMPRADOR.rfc),
        () => s.autofactura.xml(clave, COMPRADOR.rfc),
      ]) {
        const e = await rechazoSinEscrituras(s.m, f);
        respuestas.push(JSON.stringify([e.tipo, e.codigo, e.message, e.parametro]));
      }
    }
    expect(new Set(respuestas).size).toBe(1);
    expect(JSON.parse(respuestas[0]!)).toEqual([
      'no_encontrado',
      'clave_no_valida',
      expect.stringMatching(/^No encontramos un recibo vigente con esa clave/),
      'clave',
    ]);
  });

  it('vencido: lo muestra sin formulario, con la fecha local; facturarlo es 409 recibo_vencido con el mismo aviso', async () => {
    const r = await nuevoRecibo({ vence_en: new Date(AHORA.getTime() + DIA_MS).toISOString() });
    s.reloj.ahora = new Date(AHORA.getTime() + 2 * DIA_MS);
    const v = await s.autofactura.recibo(r.clave!);
    const local = fechaLegible(fechaCfdi(new Date(r.vence_en), 'Tiempo del Centro'));
    expect(v).toMatchObject({
      estado: 'vencido',
      facturable: false,
      aviso: `El plazo para facturar este recibo venció el ${local}. Pida su factura directamente a ESCUELA KEMPER URGATE.`,
    });
    const e = await rechazoSinEscrituras(s.m, () => s.autofactura.facturar(pedido(r.clave!)));
    expect([e.tipo, e.codigo, e.message, e.parametro]).toEqual([
      'conflicto',
      'recibo_vencido',
      v.aviso,
      'clave',
    ]);
  });

  it('fechaLegible: la hora local del CFDI en palabras', () => {
    expect(fechaLegible('2027-01-04T09:05:59')).toBe('4 de enero de 2027 a las 09:05');
  });
});

describe('autofactura: revisión de los datos mientras se escriben', () => {
  it('sin datos ofrece todos los regímenes y usos vigentes; con un RFC, solo los de su tipo de persona', () => {
    const todo = s.autofactura.validar({});
    expect(todo.errores).toEqual([]);
    expect(todo.regimenes_fiscales.map((r) => r.clave)).toEqual(
      expect.arrayContaining(['601', '605', '612']),
    );
    expect(todo.usos_cfdi.length).toBeGreaterThan(20);
    const fisica = s.autofactura.validar({ rfc: COMPRADOR.rfc });
    expect(fisica.regimenes_fiscales.map((r) => r.clave)).toContain('612');
    expect(fisica.regimenes_fiscales.map((r) => r.clave)).not.toContain('601');
    const moral = s.autofactura.validar({ rfc: 'EKU9003173C9' });
    expect(moral.regimenes_fiscales.map((r) => r.clave)).toContain('601');
    expect(moral.usos_cfdi.map((u) => u.clave)).not.toContain('D01');
    expect(s.autofactura.validar({ rfc: 'XAXX010101000' }).regimenes_fiscales.map((r) => r.clave)).toEqual([
      '616',
    ]);
  });

  it('con régimen, solo los usos que el SAT le permite: 605 (sueldos) no ofrece G03', () => {
    const v = s.autofactura.validar({ rfc: COMPRADOR.rfc, regimen_fiscal: '605' });
    const usos = v.usos_cfdi.map((u) => u.clave);
    expect(usos).toEqual(expect.arrayContaining(['CN01', 'D01', 'S01']));
    expect(usos).not.toContain('G03');
    expect(
      s.autofactura.validar({ rfc: COMPRADOR.rfc, regimen_fiscal: '612' }).usos_cfdi.map((u) => u.clave),
    ).toContain('G03');
  });

  it('los mensajes son los de la API: los de validarCliente y el 422 de POST /v1/recibos/{id}/facturar', async () => {
    const incompatible = { ...COMPRADOR, regimen_fiscal: '605' } as const;
    const v = s.autofactura.validar(incompatible);
    expect(v.errores.map((e) => [e.codigo, e.parametro])).toEqual([['uso_cfdi_incompatible', 'uso_cfdi']]);
    const r = await nuevoRecibo();
    const api = await errorNegocio(s.recibos.facturar(a, r.id, incompatible));
    expect([api.codigo, api.message, api.parametro]).toEqual([
      'uso_cfdi_incompatible',
      v.errores[0]!.mensaje,
      v.errores[0]!.parametro,
    ]);
    // Every rule at once, each with its own message.
    const varios = { rfc: 'MASO451321PM4', regimen_fiscal: '601', domicilio_fiscal: '00000' } as const;
    const cliente = validarCliente({ ...varios, uso_cfdi: 'G03' }, catalogosPrueba());
    expect(s.autofactura.validar(varios).errores).toEqual(
      cliente.errores.map((e) => ({ codigo: e.codigo, mensaje: e.mensaje, parametro: e.parametro })),
    );
    expect(s.autofactura.validar(varios).errores.map((e) => e.codigo)).toEqual([
      'rfc_fecha_invalida',
      'regimen_no_aplica_persona',
      'codigo_postal_invalido',
    ]);
  });
});

describe('autofactura: facturar', () => {
  it('timbra una vez; un doble envío (simultáneo) da la misma factura; otro RFC después, 409 con el aviso', async () => {
    const r = await nuevoRecibo();
    const [x, y] = await Promise.all([
      s.autofactura.facturar(pedido(r.clave!)),
      s.autofactura.facturar(pedido(tecleada(r.clave!))),
    ]);
    expect([x.nueva, y.nueva].sort()).toEqual([false, true]);
    expect(x.factura).toEqual(y.factura);
    expect(x.factura).toMatchObject({
      objeto: 'factura_autofactura',
      modo: 'test',
      estado: 'timbrada',
      emisor: { nombre: 'ESCUELA KEMPER URGATE', rfc: 'EKU9003173C9' },
      receptor: { nombre: COMPRADOR.nombre, rfc: COMPRADOR.rfc },
      total: r.total,
      moneda: 'MXN',
    });
    expect(x.factura.uuid).toMatch(/^[0-9a-f-]{36}$/i);
    const facturas = await s.m.facturas.listar(a, {}, { limite: 10 });
    expect(facturas.datos).toHaveLength(1);
    expect(facturas.datos[0]!.documento.correo).toEqual({ enviar: true, adicionales: [COMPRADOR.correo] });

    const otro = await rechazoSinEscrituras(s.m, () =>
      s.autofactura.facturar(pedido(r.clave!, { rfc: 'EKU9003173C9', regimen_fiscal: '601' })),
    );
    expect([otro.codigo, otro.parametro]).toEqual(['recibo_facturado_a_otro_rfc', 'rfc']);
    expect(otro.message).toBe(
      'Este recibo ya se facturó a otro RFC, y cada recibo se factura una sola vez. Si usted no lo facturó, comuníquese con ESCUELA KEMPER URGATE.',
    );
    // The page shows the receipt as invoiced, and its buyer finds the invoice again with the RFC.
    expect(await s.autofactura.recibo(r.clave!)).toMatchObject({ estado: 'facturado', facturable: false });
    expect((await s.autofactura.factura(r.clave!, COMPRADOR.rfc.toLowerCase())).factura).toEqual(x.factura);
    const ajeno = await errorNegocio(s.autofactura.factura(r.clave!, 'EKU9003173C9'));
    expect(ajeno.codigo).toBe('recibo_facturado_a_otro_rfc');
  });

  it('mientras se timbra: pendiente; repetir la misma solicitud responde por esa factura, ya timbrada', async () => {
    const r = await nuevoRecibo();
    s.timbrador.desenlace('pendiente');
    const x = await s.autofactura.facturar(pedido(r.clave!));
    expect([x.pendiente, x.nueva, x.factura.estado, x.factura.uuid]).toEqual([true, true, 'pendiente', null]);
    const dl = await errorNegocio(s.autofactura.xml(r.clave!, COMPRADOR.rfc));
    expect([dl.codigo, dl.message]).toEqual([
      'factura_no_timbrada',
      'Su factura aún se está timbrando: intente la descarga en unos segundos.',
    ]);
    const y = await s.autofactura.facturar(pedido(r.clave!));
    expect([y.pendiente, y.nueva, y.factura.estado]).toEqual([false, false, 'timbrada']);
    expect(y.factura.folio).toBe(x.factura.folio);
  });

  it('descargas con la clave y el RFC: el XML timbrado y el PDF, con nombre de serie-folio y UUID', async () => {
    const r = await nuevoRecibo();
    const antes = await errorNegocio(s.autofactura.pdf(r.clave!, COMPRADOR.rfc));
    expect([antes.codigo, antes.tipo]).toEqual(['recibo_no_facturado', 'conflicto']);
    const { factura } = await s.autofactura.facturar(pedido(r.clave!));
    const xml = await s.autofactura.xml(r.clave!, COMPRADOR.rfc);
    expect(xml.nombre).toBe(`${factura.folio}_${factura.uuid}.xml`);
    expect(xml.contenido.toString('utf8')).toBe('<cfdi:Comprobante/>');
    const pdf = await s.autofactura.pdf(r.clave!, COMPRADOR.rfc);
    expect(pdf.nombre).toBe(`${factura.folio}_${factura.uuid}.pdf`);
    expect(pdf.contenido.subarray(0, 5).toString()).toBe('%PDF-');
    // The PDF came through the invoice's own read (rendered on demand), in the receipt's scope.
    expect(s.timbrador.pdfsPedidos.map((p) => p.alcance.cuentaId)).toEqual([a.cuentaId]);
    expect((await errorNegocio(s.autofactura.xml(r.clave!, 'EKU9003173C9'))).codigo).toBe(
      'recibo_facturado_a_otro_rfc',
    );
  });

  it('las reglas fiscales del comprador responden como la API y no escriben nada', async () => {
    const r = await nuevoRecibo();
    const e = await rechazoSinEscrituras(s.m, () =>
      s.autofactura.facturar(pedido(r.clave!, { regimen_fiscal: '605' })),
    );
    const api = await errorNegocio(s.recibos.facturar(a, r.id, { ...COMPRADOR, regimen_fiscal: '605' }));
    expect([e.tipo, e.codigo, e.message, e.parametro]).toEqual([
      api.tipo,
      api.codigo,
      api.message,
      api.parametro,
    ]);
  });

  it('un rechazo del SAT se explica con su código, sin ids internos', async () => {
    const r = await nuevoRecibo();
    s.timbrador.desenlace({ rechazo: { codigo: 'CFDI40145', mensaje: 'El nombre no corresponde al RFC.' } });
    const e = await errorNegocio(s.autofactura.facturar(pedido(r.clave!)));
    expect([e.codigo, e.message]).toEqual([
      'timbrado_rechazado',
      'El SAT no aceptó la factura (CFDI40145: El nombre no corresponde al RFC.). Revise que sus datos sean los de su Constancia de Situación Fiscal y vuelva a intentarlo; si el problema sigue, comuníquese con ESCUELA KEMPER URGATE.',
    ]);
    expect(e.detalle).toEqual({});
  });

  it('la obra la hace el alcance del recibo sin llave: lo que llega al timbrado son ids, nunca la clave', async () => {
    const r = await nuevoRecibo();
    await s.autofactura.facturar(pedido(r.clave!));
    expect(s.timbrador.llamadas.map((l) => l.alcance)).toEqual([
      { cuentaId: a.cuentaId, modo: 'test', llaveId: 'sistema', origen: undefined },
    ]);
    expect(JSON.stringify(s.timbrador.llamadas)).not.toContain(r.clave!.slice(0, 4));
  });
});
