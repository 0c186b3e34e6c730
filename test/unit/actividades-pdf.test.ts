import { alcance, tablaFacturas } from '../support/memoria';
import { crearEntornoActividades } from '../support/memoria/servicios';

let x: Awaited<ReturnType<typeof crearEntornoActividades>>;

beforeEach(async () => {
  x = await crearEntornoActividades();
});

const crear = (auto_timbrar: boolean) => x.facturar({ auto_timbrar });

describe('generarPdf', () => {
  it('imprime el XML timbrado con el color de la organización y lo guarda', async () => {
    await x.s.organizaciones.actualizar(x.a, x.ids.org, { color_acento: '#aa3300' });
    const f = await crear(true);
    await x.act.generarPdf(x.entrada(f.id));
    const guardada = tablaFacturas(x.m.almacen).buscar(f.id)!;
    expect(x.pdf.llamadas).toEqual([{ xml: guardada.xml_timbrado, color: '#AA3300' }]);
    expect(guardada.pdf?.toString()).toMatch(/^%PDF/);
    expect(await x.s.facturas.pdf(x.a, f.id)).toEqual(guardada.pdf);
  });

  it('una vez guardado no se vuelve a imprimir', async () => {
    const f = await crear(true);
    await x.act.generarPdf(x.entrada(f.id));
    await x.act.generarPdf(x.entrada(f.id));
    expect(x.pdf.llamadas).toHaveLength(1);
  });

  it('un borrador, o una factura de otro alcance, no se imprime', async () => {
    const b = await crear(false);
    const t = await crear(true);
    const antes = x.m.almacen.volcado();
    await x.act.generarPdf(x.entrada(b.id));
    await x.act.generarPdf({ ...x.entrada(t.id), cuentaId: alcance('cta_b').cuentaId });
    expect(x.pdf.llamadas).toEqual([]);
    expect(x.m.almacen.volcado()).toBe(antes);
  });
});
