import { PRODUCTO } from '../support/cuentas';
import { alcance } from '../support/memoria';
import {
  entornoConOrganizacion,
  errorNegocio,
  rechazoSinEscrituras,
  type ServiciosEnMemoria,
} from '../support/memoria/servicios';

const a = alcance();
const x = entornoConOrganizacion();

type Entrada = Parameters<ServiciosEnMemoria['productos']['crear']>[1];
const entrada = (extra: Partial<Entrada> = {}) => ({ ...PRODUCTO, organizacion: x.org, ...extra }) as Entrada;

describe('productos', () => {
  it('guarda precio y tasas con sus 6 decimales y ambas listas de impuestos', async () => {
    const p = await x.s.productos.crear(
      a,
      entrada({
        impuestos_default: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.16' }] },
      }),
    );
    expect(p).toMatchObject({
      objeto: 'producto',
      organizacion: x.org,
      valor_unitario: '1500.000000',
      impuestos_default: {
        traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }],
        retenciones: [],
      },
    });
    expect(await x.s.productos.obtener(a, p.id)).toEqual(p);
  });

  it('organización desconocida → organizacion_no_encontrada en organizacion', async () => {
    const e = await rechazoSinEscrituras(x.s.m, () =>
      x.s.productos.crear(a, entrada({ organizacion: 'org_x' })),
    );
    expect([e.codigo, e.parametro]).toEqual(['organizacion_no_encontrada', 'organizacion']);
  });

  it('una clave fuera del catálogo se rechaza sin escribir, al crear y al actualizar', async () => {
    const e1 = await rechazoSinEscrituras(x.s.m, () =>
      x.s.productos.crear(a, entrada({ clave_prod_serv: '99999999' })),
    );
    expect([e1.tipo, e1.codigo, e1.parametro]).toEqual([
      'regla_de_negocio',
      'clave_prod_serv_invalida',
      'clave_prod_serv',
    ]);
    const p = await x.s.productos.crear(a, entrada());
    const e2 = await rechazoSinEscrituras(x.s.m, () =>
      x.s.productos.actualizar(a, p.id, { clave_unidad: 'ZZZ' }),
    );
    expect(e2.parametro).toBe('clave_unidad');
  });

  it('actualizar normaliza precio e impuestos', async () => {
    const p = await x.s.productos.crear(a, entrada());
    const q = await x.s.productos.actualizar(a, p.id, {
      valor_unitario: '99.5',
      impuestos_default: { retenciones: [{ impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.1' }] },
    });
    expect(q.valor_unitario).toBe('99.500000');
    expect(q.impuestos_default).toEqual({
      traslados: [],
      retenciones: [{ impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' }],
    });
  });

  it('eliminado no se lee, no se actualiza ni se elimina otra vez; ajeno tampoco existe', async () => {
    const p = await x.s.productos.crear(a, entrada());
    expect(await x.s.productos.eliminar(a, p.id)).toEqual({ id: p.id, objeto: 'producto', eliminado: true });
    const ops = [
      () => x.s.productos.obtener(a, p.id),
      () => x.s.productos.actualizar(a, p.id, { descripcion: 'x' }),
      () => x.s.productos.eliminar(a, p.id),
    ];
    for (const op of ops) {
      const e = await errorNegocio(op());
      expect([e.tipo, e.codigo, e.parametro]).toEqual(['no_encontrado', 'producto_no_encontrado', 'id']);
    }
    const vivo = await x.s.productos.crear(a, entrada());
    expect((await errorNegocio(x.s.productos.obtener(alcance('cta_b'), vivo.id))).codigo).toBe(
      'producto_no_encontrado',
    );
  });

  it('lista por texto en descripción o número de identificación, página a página', async () => {
    const consultoria = await x.s.productos.crear(a, entrada());
    const soporte = await x.s.productos.crear(
      a,
      entrada({ descripcion: 'Soporte técnico', no_identificacion: 'SOP_%' }),
    );
    const q = async (texto: string) =>
      (await x.s.productos.listar(a, { q: texto }, { limite: 10 })).datos.map((p) => p.id);
    expect(await q('CONSULTOR')).toEqual([consultoria.id]);
    // The wildcards a user types are literal.
    expect(await q('sop_%')).toEqual([soporte.id]);
    expect(await q('%')).toEqual([soporte.id]);
    const p1 = await x.s.productos.listar(a, {}, { limite: 1 });
    expect([p1.hayMas, p1.datos.map((p) => p.id)]).toEqual([true, [[consultoria.id, soporte.id].sort()[1]]]);
  });
});
