import { nuevoId } from '../../db/ids';
import type { Pagina } from '../../dominio/paginacion';
import {
  contrato,
  escenario,
  instante,
  nuevaOrganizacion,
  nuevoCertificado,
  paginasEsperadas,
  recorrer,
  refusal,
  rfcAleatorio,
} from './soporte';

contrato('organizaciones', (impl) => {
  const ahora = instante('2025-06-01T12:00:00.000Z');
  const datos = {
    rfc: 'EKU9003173C9',
    nombre: 'ESCUELA KEMPER URGATE',
    regimen_fiscal: '601',
    codigo_postal: '42501',
    color_acento: '#0A7F5C',
  };

  it('reads an organization by id or by RFC, with no certificate yet', async () => {
    const { a } = await escenario(impl());
    const id = nuevoId('org');
    await impl().repos.organizaciones.insertar(a, id, datos, ahora);
    const esperada = {
      id,
      modo: 'test',
      ...datos,
      // Email settings not given: no Reply-To, automatic email on.
      correo: null,
      correo_automatico: true,
      // Receipts open to their buyers for 30 days unless the organization says otherwise.
      autofactura_plazo_dias: 30,
      // No automatic global invoice, so no schedule to keep in step.
      factura_global_automatica: false,
      factura_global_periodicidad: '04',
      factura_global_sincronizada: true,
      creado_en: ahora,
      actualizado_en: ahora,
      cert_id: null,
      cert_no_certificado: null,
      cert_valido_hasta: null,
    };
    expect(await impl().repos.organizaciones.obtener(a, id)).toEqual(esperada);
    expect(await impl().repos.organizaciones.obtener(a, 'EKU9003173C9')).toEqual(esperada);
    expect(await impl().repos.organizaciones.obtener(a, 'XAXX010101000')).toBeUndefined();
  });

  it('an RFC is looked up as the collation compares it: without case', async () => {
    const { a } = await escenario(impl());
    const id = await nuevaOrganizacion(impl(), a, { rfc: 'EKU9003173C9' });
    expect(await impl().repos.organizaciones.obtener(a, 'eku9003173c9')).toMatchObject({ id });
  });

  it('carries its active certificate, which follows the activation', async () => {
    const { a } = await escenario(impl());
    const id = await nuevaOrganizacion(impl(), a);
    const hasta = instante('2027-05-06T07:08:09.010Z');
    const primero = await nuevoCertificado(impl(), a, id, {
      no_certificado: '30001000000500003416',
      valido_hasta: hasta,
    });
    expect(await impl().repos.organizaciones.obtener(a, id)).toMatchObject({
      cert_id: primero,
      cert_no_certificado: '30001000000500003416',
      cert_valido_hasta: hasta,
    });
    const segundo = await nuevoCertificado(impl(), a, id);
    expect(await impl().repos.organizaciones.obtener(a, id)).toMatchObject({ cert_id: segundo });
    const fila = await impl().repos.certificados.obtener(a, segundo);
    await impl().repos.certificados.cambiarActivo(a, fila!, false, ahora);
    expect(await impl().repos.organizaciones.obtener(a, id)).toMatchObject({ cert_id: null });
    const [listada] = (await impl().repos.organizaciones.listar(a, { limite: 1 })).datos;
    expect(listada).toMatchObject({ id, cert_id: null });
  });

  it('another account or mode never sees the organization, by id or RFC', async () => {
    const { a, live, otra } = await escenario(impl());
    const id = await nuevaOrganizacion(impl(), a, { rfc: 'EKU9003173C9' });
    for (const fuera of [live, otra]) {
      expect(await impl().repos.organizaciones.obtener(fuera, id)).toBeUndefined();
      expect(await impl().repos.organizaciones.obtener(fuera, 'EKU9003173C9')).toBeUndefined();
      expect((await impl().repos.organizaciones.listar(fuera, { limite: 10 })).datos).toEqual([]);
    }
  });

  it('lists newest first, page by page, only its own scope', async () => {
    const { a, live } = await escenario(impl());
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await nuevaOrganizacion(impl(), a));
    await nuevaOrganizacion(impl(), live);
    const listar = (p: Pagina) => impl().repos.organizaciones.listar(a, p);
    expect(await recorrer(listar, 2)).toEqual(paginasEsperadas(ids, 2));
    expect(await recorrer(listar, 5)).toEqual(paginasEsperadas(ids, 5));
    expect(await recorrer(listar, 10)).toEqual(paginasEsperadas(ids, 10));
  });

  it('a walk started before an insert goes on where it was, never repeating a row', async () => {
    const { a } = await escenario(impl());
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await nuevaOrganizacion(impl(), a));
    const primera = await impl().repos.organizaciones.listar(a, { limite: 2 });
    const nueva = await nuevaOrganizacion(impl(), a);
    const resto = await recorrer(
      (p) => impl().repos.organizaciones.listar(a, { ...p, despuesDe: p.despuesDe ?? primera.datos[1]!.id }),
      2,
    );
    const vistos = [...primera.datos.map((o) => o.id), ...resto.flat()];
    expect(vistos).toEqual([...ids].sort().reverse());
    expect(vistos).not.toContain(nueva);
  });

  it('an RFC repeated in the same account and mode is RegistroDuplicado; elsewhere it is fine', async () => {
    const { a, live, otra } = await escenario(impl());
    const rfc = rfcAleatorio();
    await nuevaOrganizacion(impl(), a, { rfc });
    expect(await refusal(nuevaOrganizacion(impl(), a, { rfc }))).toBe('RegistroDuplicado');
    // The unique key compares as the collation does.
    expect(await refusal(nuevaOrganizacion(impl(), a, { rfc: rfc.toLowerCase() }))).toBe('RegistroDuplicado');
    expect(await refusal(nuevaOrganizacion(impl(), live, { rfc }))).toBe('aceptado');
    expect(await refusal(nuevaOrganizacion(impl(), otra, { rfc }))).toBe('aceptado');
    expect((await impl().repos.organizaciones.listar(a, { limite: 10 })).datos).toHaveLength(1);
  });

  it('updates the fields named, only within its scope', async () => {
    const { a, live, otra } = await escenario(impl());
    const id = await nuevaOrganizacion(impl(), a, { nombre: 'ANTES' });
    const antes = await impl().repos.organizaciones.obtener(a, id);
    await impl().repos.organizaciones.actualizar(live, id, { nombre: 'LIVE' }, ahora);
    await impl().repos.organizaciones.actualizar(otra, id, { nombre: 'OTRA' }, ahora);
    expect(await impl().repos.organizaciones.obtener(a, id)).toEqual(antes);
    await impl().repos.organizaciones.actualizar(
      a,
      id,
      { nombre: 'DESPUES', color_acento: '#FFFFFF' },
      ahora,
    );
    expect(await impl().repos.organizaciones.obtener(a, id)).toEqual({
      ...antes,
      nombre: 'DESPUES',
      color_acento: '#FFFFFF',
      actualizado_en: ahora,
    });
  });

  it('an organization whose global-invoice schedule lags its setting is pending until marked at that version', async () => {
    const { a, otra } = await escenario(impl());
    const id = await nuevaOrganizacion(impl(), a);
    const o = impl().repos.organizaciones;
    const cambio = instante('2025-06-02T00:00:00.000Z');
    await o.actualizar(
      a,
      id,
      {
        factura_global_automatica: true,
        factura_global_periodicidad: '01',
        factura_global_sincronizada: false,
      },
      cambio,
    );
    const despues = new Date(cambio.getTime() + 1);
    const pendientes = (await o.programacionesPendientes(despues, 500)).filter((p) => p.id === id);
    expect(pendientes).toEqual([
      {
        id,
        cuenta_id: a.cuentaId,
        modo: 'test',
        automatica: true,
        periodicidad: '01',
        codigo_postal: '42501',
        actualizado_en: cambio,
      },
    ]);
    expect((await o.programacionesPendientes(cambio, 500)).some((p) => p.id === id)).toBe(false);
    // Another scope, or a version older than the row's, marks nothing.
    await o.marcarSincronizada(otra, id, cambio);
    await o.marcarSincronizada(a, id, ahora);
    expect((await o.obtener(a, id))!.factura_global_sincronizada).toBe(false);
    await o.marcarSincronizada(a, id, cambio);
    expect((await o.obtener(a, id))!.factura_global_sincronizada).toBe(true);
    expect((await o.programacionesPendientes(despues, 500)).some((p) => p.id === id)).toBe(false);
  });
});
