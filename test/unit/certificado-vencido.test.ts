import { aApiError } from '../../api/middleware/manejador-errores';
import type { ErrorNegocio } from '../../dominio/errores';
import type { RegistradorPagos } from '../../servicios/pagos';
import { CSD_VALIDO } from '../support/certificados';
import { tablaFacturas } from '../support/memoria';
import { tablaCertificados } from '../support/memoria/certificados';
import {
  AHORA,
  crearEntornoActividades,
  rechazoSinEscrituras,
  solicitudFactura,
} from '../support/memoria/servicios';

let x: Awaited<ReturnType<typeof crearEntornoActividades>>;

beforeEach(async () => {
  x = await crearEntornoActividades();
});

/** The organization's active CSD stops being valid at `hasta` (the clock stays at AHORA). */
const venceEn = (hasta: Date) => tablaCertificados(x.m.almacen).cambiar(x.ids.cert!, { valido_hasta: hasta });
const vencer = () => venceEn(AHORA);

/** A payment on the PPD invoice `factura`, refused before anything is written: the error, and what was started. */
async function pagoRechazado(factura: string) {
  const registrados: unknown[] = [];
  const registrador: RegistradorPagos = { registrar: async (_a, p) => void registrados.push(p) };
  const pagos = x.servicioPagos(registrador);
  const e = await rechazoSinEscrituras(x.m, () =>
    pagos.crear(x.a, {
      organizacion: x.ids.org,
      fecha_pago: AHORA.toISOString(),
      forma_pago: '03',
      monto: '10.00',
      facturas_pagadas: [{ factura, imp_pagado: '10.00' }],
    }),
  );
  return { e, registrados };
}

function esVencido(e: ErrorNegocio, parametro: string) {
  const api = aApiError(e);
  expect([api.status, e.tipo, e.codigo, e.parametro]).toEqual([
    422,
    'regla_de_negocio',
    'certificado_vencido',
    parametro,
  ]);
  expect(e.message).toBe(
    `El certificado ${CSD_VALIDO.noCertificado} (${x.ids.cert}) venció el ${AHORA.toISOString().slice(0, 10)} y ya no puede sellar: suba un CSD vigente con POST /v1/certificados.`,
  );
}

describe('CSD activo vencido', () => {
  it('crear con timbrado automático → 422 certificado_vencido en organizacion, sin escribir ni timbrar', async () => {
    vencer();
    const e = await rechazoSinEscrituras(x.m, () => x.s.facturas.crear(x.a, solicitudFactura(x.ids)));
    esVencido(e, 'organizacion');
    expect(x.s.timbrador.llamadas).toEqual([]);
  });

  it('un milisegundo antes de vencer todavía se timbra', async () => {
    venceEn(new Date(AHORA.getTime() + 1));
    const r = await x.s.facturas.crear(x.a, solicitudFactura(x.ids));
    expect(r).toMatchObject({ pendiente: false, factura: { estado: 'timbrada' } });
  });

  it('un borrador (auto_timbrar false) se crea igual; su POST …/timbrar → 422 certificado_vencido en id', async () => {
    vencer();
    const { factura, pendiente } = await x.s.facturas.crear(
      x.a,
      solicitudFactura(x.ids, { auto_timbrar: false }),
    );
    expect([factura.estado, pendiente]).toEqual(['borrador', false]);
    expect(tablaFacturas(x.m.almacen).buscar(factura.id)?.timbrado_estado).toBe('no_solicitado');

    const e = await rechazoSinEscrituras(x.m, () => x.s.facturas.timbrar(x.a, factura.id));
    esVencido(e, 'id');
    expect(x.s.timbrador.llamadas).toEqual([]);
  });

  it('un pago → 422 certificado_vencido en organizacion, sin escribir ni iniciar su workflow', async () => {
    const ppd = await x.facturar({ metodo_pago: 'PPD', forma_pago: undefined });
    vencer();
    const { e, registrados } = await pagoRechazado(ppd.id);
    esVencido(e, 'organizacion');
    expect(registrados).toEqual([]);
  });

  it('prepararTimbrado → rechazado certificado_vencido y nunca sella', async () => {
    x.s.timbrador.desenlace('pendiente');
    const { factura } = await x.s.facturas.crear(x.a, solicitudFactura(x.ids));
    vencer();
    const abrir = jest.spyOn(x.s.boveda, 'abrir');
    const sellar = jest.spyOn(x.m.facturas, 'guardarSello');
    const antes = x.m.almacen.volcado();

    const r = await x.act.prepararTimbrado(x.entrada(factura.id));
    expect(r).toEqual({
      estado: 'rechazado',
      error: {
        codigo: 'certificado_vencido',
        mensaje: `El certificado ${CSD_VALIDO.noCertificado} (${x.ids.cert}) venció el ${AHORA.toISOString().slice(0, 10)} y ya no puede sellar: suba un CSD vigente con POST /v1/certificados.`,
        paso: 'certificado',
      },
      referencias: expect.arrayContaining(['EKU9003173C9']) as string[],
    });
    expect(abrir).not.toHaveBeenCalled();
    expect(sellar).not.toHaveBeenCalled();
    expect(tablaFacturas(x.m.almacen).buscar(factura.id)?.xml_sellado).toBeNull();
    expect(x.m.almacen.volcado()).toBe(antes);
  });
});

describe('sin CSD activo', () => {
  /** The organization's only CSD deactivated: it has none to seal with. */
  const sinCsd = () => tablaCertificados(x.m.almacen).cambiar(x.ids.cert!, { activo: false });

  const esSinCertificado = (e: ErrorNegocio, parametro: string) =>
    expect([aApiError(e).status, e.tipo, e.codigo, e.parametro]).toEqual([
      422,
      'regla_de_negocio',
      'sin_certificado_activo',
      parametro,
    ]);

  it('crear con timbrado automático (el predeterminado) → 422 en organizacion, sin guardar un borrador', async () => {
    sinCsd();
    const e = await rechazoSinEscrituras(x.m, () => x.s.facturas.crear(x.a, solicitudFactura(x.ids)));
    esSinCertificado(e, 'organizacion');
    expect(x.s.timbrador.llamadas).toEqual([]);
  });

  it('un borrador (auto_timbrar false) se crea igual; su POST …/timbrar → 422 en id', async () => {
    sinCsd();
    const { factura } = await x.s.facturas.crear(x.a, solicitudFactura(x.ids, { auto_timbrar: false }));
    expect(factura.estado).toBe('borrador');
    const e = await rechazoSinEscrituras(x.m, () => x.s.facturas.timbrar(x.a, factura.id));
    esSinCertificado(e, 'id');
    expect(x.s.timbrador.llamadas).toEqual([]);
  });

  it('un pago → 422 en organizacion, sin escribir ni iniciar su workflow', async () => {
    const ppd = await x.facturar({ metodo_pago: 'PPD', forma_pago: undefined });
    sinCsd();
    const { e, registrados } = await pagoRechazado(ppd.id);
    esSinCertificado(e, 'organizacion');
    expect(registrados).toEqual([]);
  });
});
