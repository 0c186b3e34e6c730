import { nuevoId } from '../../db/ids';
import type { DatosProducto } from '../../db/repositorios/productos';
import type { Alcance } from '../../dominio/alcance';
import type { Pagina } from '../../dominio/paginacion';
import {
  contrato,
  escenario,
  instante,
  nuevaOrganizacion,
  paginasEsperadas,
  recorrer,
  type Implementacion,
} from './soporte';

contrato('productos', (impl) => {
  const ahora = instante('2025-06-01T12:00:00.000Z');
  const impuestos = {
    traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }],
    retenciones: [],
  } as DatosProducto['impuestos_default'];
  const base = {
    descripcion: 'Servicio de consultoría',
    valor_unitario: '1500.000000',
    clave_prod_serv: '80111600',
    clave_unidad: 'E48',
    unidad: 'Servicio',
    no_identificacion: 'CONS-01',
    objeto_imp: '02',
    impuestos_default: impuestos,
  };

  async function nuevoProducto(
    i: Implementacion,
    a: Alcance,
    organizacionId: string,
    d: Partial<DatosProducto> = {},
  ) {
    const id = nuevoId('prod');
    await i.repos.productos.insertar(a, id, { ...base, organizacion_id: organizacionId, ...d }, ahora);
    return id;
  }

  it('reads a product as written, its taxes as an object', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevoProducto(impl(), a, org);
    expect(await impl().repos.productos.obtener(a, id)).toEqual({
      id,
      modo: 'test',
      organizacion_id: org,
      ...base,
      creado_en: ahora,
      actualizado_en: ahora,
    });
  });

  it('the unit value comes back as the DECIMAL(24,6) column keeps it', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const entero = await nuevoProducto(impl(), a, org, { valor_unitario: '1500' });
    const largo = await nuevoProducto(impl(), a, org, { valor_unitario: '0.1234565' });
    expect((await impl().repos.productos.obtener(a, entero))!.valor_unitario).toBe('1500.000000');
    expect((await impl().repos.productos.obtener(a, largo))!.valor_unitario).toBe('0.123457');
    const despues = instante('2025-07-01T00:00:00.000Z');
    await impl().repos.productos.actualizar(a, entero, { valor_unitario: '99.5' }, despues);
    const [listado] = (await impl().repos.productos.listar(a, {}, { limite: 10 })).datos.filter(
      (p) => p.id === entero,
    );
    expect(listado!.valor_unitario).toBe('99.500000');
  });

  it('a read taxes object is a copy: changing it changes nothing stored', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevoProducto(impl(), a, org);
    const leido = await impl().repos.productos.obtener(a, id);
    leido!.impuestos_default.traslados.length = 0;
    expect((await impl().repos.productos.obtener(a, id))!.impuestos_default).toEqual(impuestos);
  });

  it('another account or mode never sees, updates or deletes the product', async () => {
    const { a, live, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevoProducto(impl(), a, org);
    const antes = await impl().repos.productos.obtener(a, id);
    for (const fuera of [live, otra]) {
      expect(await impl().repos.productos.obtener(fuera, id)).toBeUndefined();
      expect((await impl().repos.productos.listar(fuera, {}, { limite: 10 })).datos).toEqual([]);
      await impl().repos.productos.actualizar(fuera, id, { descripcion: 'AJENO' }, ahora);
      await impl().repos.productos.eliminar(fuera, id, ahora);
    }
    expect(await impl().repos.productos.obtener(a, id)).toEqual(antes);
  });

  it('lists newest first, page by page, filtered by organization', async () => {
    const { a } = await escenario(impl());
    const org1 = await nuevaOrganizacion(impl(), a);
    const org2 = await nuevaOrganizacion(impl(), a);
    const de1 = [];
    for (let i = 0; i < 5; i++) de1.push(await nuevoProducto(impl(), a, org1));
    const de2 = [await nuevoProducto(impl(), a, org2)];
    const listar = (organizacionId?: string) => (p: Pagina) =>
      impl().repos.productos.listar(a, { organizacionId }, p);
    expect(await recorrer(listar(), 4)).toEqual(paginasEsperadas([...de1, ...de2], 4));
    expect(await recorrer(listar(org1), 2)).toEqual(paginasEsperadas(de1, 2));
    expect(await recorrer(listar(org2), 2)).toEqual([de2]);
  });

  it('q searches description and product code under the collation; a null code matches nothing', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const consultoria = await nuevoProducto(impl(), a, org);
    const sinCodigo = await nuevoProducto(impl(), a, org, {
      descripcion: 'Licencia 100% anual',
      no_identificacion: null,
    });
    const buscar = async (q: string) =>
      (await impl().repos.productos.listar(a, { q }, { limite: 10 })).datos.map((p) => p.id).sort();
    expect(await buscar('CONSULTORIA')).toEqual([consultoria]);
    expect(await buscar('cons-0')).toEqual([consultoria]);
    expect(await buscar('100%')).toEqual([sinCodigo]);
    expect(await buscar('a')).toEqual([consultoria, sinCodigo].sort());
    expect(await buscar('_')).toEqual([]);
  });

  it('updates the fields named (taxes replaced whole) and deletes logically', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevoProducto(impl(), a, org);
    const despues = instante('2025-07-01T00:00:00.000Z');
    const otros = {
      traslados: [],
      retenciones: [{ impuesto: '001', tipo_factor: 'Tasa', tasa_o_cuota: '0.100000' }],
    } as DatosProducto['impuestos_default'];
    await impl().repos.productos.actualizar(a, id, { unidad: null, impuestos_default: otros }, despues);
    expect(await impl().repos.productos.obtener(a, id)).toMatchObject({
      descripcion: base.descripcion,
      unidad: null,
      impuestos_default: otros,
      actualizado_en: despues,
    });
    await impl().repos.productos.eliminar(a, id, despues);
    expect(await impl().repos.productos.obtener(a, id)).toBeUndefined();
    expect((await impl().repos.productos.listar(a, {}, { limite: 10 })).datos).toEqual([]);
    await impl().repos.productos.actualizar(a, id, { descripcion: 'REVIVIDO' }, despues);
    expect(await impl().repos.productos.obtener(a, id)).toBeUndefined();
  });
});
