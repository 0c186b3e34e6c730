import { nuevoId } from '../../db/ids';
import type { DatosCliente } from '../../db/repositorios/clientes';
import type { Alcance } from '../../dominio/alcance';
import type { Pagina } from '../../dominio/paginacion';
import {
  contrato,
  escenario,
  instante,
  nuevaOrganizacion,
  paginasEsperadas,
  recorrer,
  refusal,
  type Implementacion,
} from './soporte';

contrato('clientes', (impl) => {
  const ahora = instante('2025-06-01T12:00:00.000Z');
  const base = {
    rfc: 'MASO451221PM4',
    nombre: 'MARIA OLIVIA MARTINEZ SAGAZ',
    regimen_fiscal: '612',
    domicilio_fiscal: '80290',
    uso_cfdi: 'G03',
    correo: null,
  };

  async function nuevoCliente(
    i: Implementacion,
    a: Alcance,
    organizacionId: string,
    d: Partial<DatosCliente> = {},
  ) {
    const id = nuevoId('cli');
    await i.repos.clientes.insertar(a, id, { ...base, organizacion_id: organizacionId, ...d }, ahora);
    return id;
  }

  it('reads a client as written, without its internal columns', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevoCliente(impl(), a, org, { correo: 'maria@ejemplo.mx' });
    expect(await impl().repos.clientes.obtener(a, id)).toEqual({
      id,
      modo: 'test',
      organizacion_id: org,
      ...base,
      correo: 'maria@ejemplo.mx',
      creado_en: ahora,
      actualizado_en: ahora,
    });
  });

  it('another account or mode never sees, updates or deletes the client', async () => {
    const { a, live, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevoCliente(impl(), a, org);
    const antes = await impl().repos.clientes.obtener(a, id);
    for (const fuera of [live, otra]) {
      expect(await impl().repos.clientes.obtener(fuera, id)).toBeUndefined();
      expect(await impl().repos.clientes.existio(fuera, id)).toBe(false);
      expect(await impl().repos.clientes.porRfc(fuera, org, base.rfc)).toEqual([]);
      expect((await impl().repos.clientes.listar(fuera, {}, { limite: 10 })).datos).toEqual([]);
      await impl().repos.clientes.actualizar(fuera, id, { nombre: 'AJENO' }, ahora);
      await impl().repos.clientes.eliminar(fuera, id, ahora);
    }
    expect(await impl().repos.clientes.obtener(a, id)).toEqual(antes);
  });

  it('lists newest first, page by page, filtered by organization', async () => {
    const { a } = await escenario(impl());
    const org1 = await nuevaOrganizacion(impl(), a);
    const org2 = await nuevaOrganizacion(impl(), a);
    const de1 = [];
    for (let i = 0; i < 4; i++) de1.push(await nuevoCliente(impl(), a, org1, { rfc: `AAA01010${i}AA1` }));
    const de2 = [await nuevoCliente(impl(), a, org2)];
    const listar = (organizacionId?: string) => (p: Pagina) =>
      impl().repos.clientes.listar(a, { organizacionId }, p);
    expect(await recorrer(listar(), 2)).toEqual(paginasEsperadas([...de1, ...de2], 2));
    expect(await recorrer(listar(org1), 3)).toEqual(paginasEsperadas(de1, 3));
    expect(await recorrer(listar(org2), 3)).toEqual([de2]);
  });

  it('q searches RFC and name as LIKE does under the collation: any case, any accent, wildcards literal', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const jose = await nuevoCliente(impl(), a, org, { rfc: 'PEJJ800101AB1', nombre: 'JOSÉ PEÑA' });
    const porcentaje = await nuevoCliente(impl(), a, org, {
      rfc: 'CIE800101AB1',
      nombre: 'CIEN % SEGURO_SA',
    });
    const buscar = async (q: string) =>
      (await impl().repos.clientes.listar(a, { q }, { limite: 10 })).datos.map((c) => c.id).sort();
    expect(await buscar('pejj')).toEqual([jose]);
    expect(await buscar('jose pena')).toEqual([jose]);
    expect(await buscar('Peña')).toEqual([jose]);
    expect(await buscar('800101')).toEqual([jose, porcentaje].sort());
    expect(await buscar('%')).toEqual([porcentaje]);
    expect(await buscar('O_S')).toEqual([porcentaje]);
    expect(await buscar('n_p')).toEqual([]);
    expect(await buscar('nadie')).toEqual([]);
  });

  it('a deleted client vanishes from every read but existed; deleting or updating it again changes nothing', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevoCliente(impl(), a, org);
    await impl().repos.clientes.eliminar(a, id, ahora);
    expect(await impl().repos.clientes.obtener(a, id)).toBeUndefined();
    expect(await impl().repos.clientes.porRfc(a, org, base.rfc)).toEqual([]);
    expect((await impl().repos.clientes.listar(a, {}, { limite: 10 })).datos).toEqual([]);
    expect(await impl().repos.clientes.existio(a, id)).toBe(true);
    expect(await impl().repos.clientes.existio(a, nuevoId('cli'))).toBe(false);
    await impl().repos.clientes.actualizar(a, id, { nombre: 'REVIVIDO' }, ahora);
    expect(await impl().repos.clientes.obtener(a, id)).toBeUndefined();
  });

  it('porRfc finds the live clients of an organization with that RFC', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const otraOrg = await nuevaOrganizacion(impl(), a);
    const id = await nuevoCliente(impl(), a, org);
    await nuevoCliente(impl(), a, otraOrg);
    const g1 = await nuevoCliente(impl(), a, org, { rfc: 'XAXX010101000', nombre: 'PUBLICO 1' });
    const g2 = await nuevoCliente(impl(), a, org, { rfc: 'XAXX010101000', nombre: 'PUBLICO 2' });
    expect((await impl().repos.clientes.porRfc(a, org, base.rfc)).map((c) => c.id)).toEqual([id]);
    expect((await impl().repos.clientes.porRfc(a, org, 'XAXX010101000')).map((c) => c.id).sort()).toEqual(
      [g1, g2].sort(),
    );
    // As the collation compares: the RFC without case.
    expect((await impl().repos.clientes.porRfc(a, org, base.rfc.toLowerCase())).map((c) => c.id)).toEqual([
      id,
    ]);
  });

  it('one live client per RFC and organization: RegistroDuplicado, except generic RFCs and after deletion', async () => {
    const { a, live } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const otraOrg = await nuevaOrganizacion(impl(), a);
    const primero = await nuevoCliente(impl(), a, org);
    expect(await refusal(nuevoCliente(impl(), a, org))).toBe('RegistroDuplicado');
    expect(await refusal(nuevoCliente(impl(), a, org, { rfc: base.rfc.toLowerCase() }))).toBe(
      'RegistroDuplicado',
    );
    expect(await refusal(nuevoCliente(impl(), a, otraOrg))).toBe('aceptado');
    expect(await refusal(nuevoCliente(impl(), a, org, { rfc: 'XEXX010101000' }))).toBe('aceptado');
    expect(await refusal(nuevoCliente(impl(), a, org, { rfc: 'XEXX010101000' }))).toBe('aceptado');
    const orgLive = await nuevaOrganizacion(impl(), live);
    expect(await refusal(nuevoCliente(impl(), live, orgLive))).toBe('aceptado');

    // An update onto a taken RFC is refused too, and changes nothing.
    const otro = await nuevoCliente(impl(), a, org, { rfc: 'GOMA800101AB1' });
    const antes = await impl().repos.clientes.obtener(a, otro);
    expect(await refusal(impl().repos.clientes.actualizar(a, otro, { rfc: base.rfc }, ahora))).toBe(
      'RegistroDuplicado',
    );
    expect(await impl().repos.clientes.obtener(a, otro)).toEqual(antes);

    await impl().repos.clientes.eliminar(a, primero, ahora);
    expect(await refusal(nuevoCliente(impl(), a, org))).toBe('aceptado');
  });

  it('updates the fields named and actualizado_en', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevoCliente(impl(), a, org);
    const despues = instante('2025-07-01T00:00:00.000Z');
    await impl().repos.clientes.actualizar(a, id, { correo: 'nuevo@ejemplo.mx', uso_cfdi: 'S01' }, despues);
    expect(await impl().repos.clientes.obtener(a, id)).toMatchObject({
      ...base,
      correo: 'nuevo@ejemplo.mx',
      uso_cfdi: 'S01',
      creado_en: ahora,
      actualizado_en: despues,
    });
  });
});
