import { alcance, tablaFacturas } from '../support/memoria';
import { crearContextoActividad } from '../support/memoria/actividad';
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
    const ctx = crearContextoActividad();
    await ctx.ejecutar(() => x.act.generarPdf(x.entrada(f.id)));
    // A render that ends within the heartbeat interval sends none (the server times it from the start).
    expect(ctx.latidos()).toBe(0);
    const guardada = tablaFacturas(x.m.almacen).buscar(f.id)!;
    expect(x.pdf.llamadas).toEqual([{ xml: guardada.xml_timbrado, color: '#AA3300' }]);
    expect(guardada.pdf?.toString()).toMatch(/^%PDF/);
    expect(await x.s.facturas.pdf(x.a, f.id)).toEqual(guardada.pdf);
  });

  it('una impresión larga avisa a Temporal cada 5 s que sigue viva', async () => {
    const f = await crear(true);
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      let soltar!: () => void;
      const generar = x.pdf.generar.bind(x.pdf);
      jest.spyOn(x.pdf, 'generar').mockImplementationOnce(async (xml, color) => {
        await new Promise<void>((r) => (soltar = r));
        return generar(xml, color);
      });
      const ctx = crearContextoActividad();
      const render = ctx.ejecutar(() => x.act.generarPdf(x.entrada(f.id)));
      await jest.advanceTimersByTimeAsync(12_000);
      soltar();
      await render;
      expect(ctx.latidos()).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('una vez guardado no se vuelve a imprimir', async () => {
    const f = await crear(true);
    const local = crearContextoActividad({ local: true });
    await local.ejecutar(() => x.act.generarPdf(x.entrada(f.id)));
    await local.ejecutar(() => x.act.generarPdf(x.entrada(f.id)));
    expect(x.pdf.llamadas).toHaveLength(1);
    expect(local.latidos()).toBe(0);
  });

  it('dos renders a la vez (la cola y una lectura): se queda el primero que se guardó', async () => {
    const f = await crear(true);
    const ctx = crearContextoActividad();
    await Promise.all([
      ctx.ejecutar(() => x.act.generarPdf(x.entrada(f.id))),
      ctx.ejecutar(() => x.act.generarPdf(x.entrada(f.id))),
    ]);
    expect(x.pdf.llamadas).toHaveLength(2);
    const guardado = tablaFacturas(x.m.almacen).buscar(f.id)!.pdf;
    await x.m.facturas.guardarPdf(x.a, f.id, Buffer.from('%PDF otro'));
    expect(tablaFacturas(x.m.almacen).buscar(f.id)!.pdf).toEqual(guardado);
  });

  it('un borrador, o una factura de otro alcance, no se imprime', async () => {
    const b = await crear(false);
    const t = await crear(true);
    const antes = x.m.almacen.volcado();
    const ctx = crearContextoActividad();
    await ctx.ejecutar(() => x.act.generarPdf(x.entrada(b.id)));
    await ctx.ejecutar(() => x.act.generarPdf({ ...x.entrada(t.id), cuentaId: alcance('cta_b').cuentaId }));
    expect(x.pdf.llamadas).toEqual([]);
    expect(x.m.almacen.volcado()).toBe(antes);
  });
});
