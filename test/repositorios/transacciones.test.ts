import { nuevoId } from '../../db/ids';
import type { Transaccion } from '../../db/transacciones';
import { contrato, documento, escenario, nuevaOrganizacion, solicitudPago } from './soporte';

contrato('transacciones', (impl) => {
  /** An invoice and a payment written in `tx`: two tables, one unit of work. */
  async function escribir(
    tx: Transaccion,
    a: Parameters<typeof nuevaOrganizacion>[1],
    organizacionId: string,
  ) {
    const facturaId = nuevoId('fac');
    const pagoId = nuevoId('pago');
    const { facturas, pagos } = impl().repos;
    await facturas.insertar(tx, a, {
      id: facturaId,
      organizacion_id: organizacionId,
      cliente_id: null,
      tipo: 'ingreso',
      documento: documento(),
      timbrado_estado: 'no_solicitado',
    });
    await pagos.crear(a, { id: pagoId, organizacion_id: organizacionId, solicitud: solicitudPago([]) }, tx);
    return { facturaId, pagoId };
  }

  it('a committed unit of work is visible after it, and returns what the work returned', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const r = await impl().transacciones.ejecutar(async (tx) => ({
      ...(await escribir(tx, a, org)),
      hecho: true,
    }));
    expect(r.hecho).toBe(true);
    expect(await impl().repos.facturas.obtener(a, r.facturaId)).toMatchObject({ id: r.facturaId });
    expect(await impl().repos.pagos.obtener(a, r.pagoId)).toMatchObject({ id: r.pagoId });
  });

  it('reads given the transaction see its own writes before the commit', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const vistas = await impl().transacciones.ejecutar(async (tx) => {
      const ids = await escribir(tx, a, org);
      return [
        (await impl().repos.facturas.obtener(a, ids.facturaId, tx))?.id,
        (await impl().repos.pagos.obtener(a, ids.pagoId, tx))?.id,
        ids,
      ] as const;
    });
    expect(vistas.slice(0, 2)).toEqual([vistas[2].facturaId, vistas[2].pagoId]);
  });

  it('a throw rolls back every write of the unit of work and comes out as thrown', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const falla = new Error('falla a la mitad');
    let escritos: { facturaId: string; pagoId: string; eventoId: string } | undefined;
    const confirmadosAntes = impl().confirmados.length;
    await expect(
      impl().transacciones.ejecutar(async (tx) => {
        const ids = await escribir(tx, a, org);
        const eventoId = await impl().repos.eventos.registrar(tx, a, 'factura.creada', { id: ids.facturaId });
        escritos = { ...ids, eventoId };
        throw falla;
      }),
    ).rejects.toBe(falla);
    expect(await impl().repos.facturas.obtener(a, escritos!.facturaId)).toBeUndefined();
    expect(await impl().repos.pagos.obtener(a, escritos!.pagoId)).toBeUndefined();
    expect(await impl().repos.eventos.obtener(a, escritos!.eventoId)).toBeUndefined();
    expect(await impl().repos.eventos.porDespachar(new Date(Date.now() + 60_000), 10_000)).not.toContain(
      escritos!.eventoId,
    );
    // Nothing is announced for a unit of work that did not commit.
    expect(impl().confirmados.length).toBe(confirmadosAntes);
  });

  it('the events noted in a transaction are handed to alConfirmarEventos once, after the commit', async () => {
    const { a } = await escenario(impl());
    const confirmadosAntes = impl().confirmados.length;
    const ids = await impl().transacciones.ejecutar(async (tx) => {
      const e1 = await impl().repos.eventos.registrar(tx, a, 'factura.creada', { id: 'fac_1' });
      const e2 = await impl().repos.eventos.registrar(tx, a, 'factura.timbrada', { id: 'fac_1' });
      // Not yet: the commit has not happened.
      expect(impl().confirmados.length).toBe(confirmadosAntes);
      return [e1, e2];
    });
    expect(impl().confirmados.slice(confirmadosAntes)).toEqual([ids]);
  });

  it('a transaction that wrote no event announces nothing', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const confirmadosAntes = impl().confirmados.length;
    await impl().transacciones.ejecutar((tx) => escribir(tx, a, org));
    expect(impl().confirmados.length).toBe(confirmadosAntes);
  });

  it('a transaction handle used after its unit of work ended is refused and writes nothing', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    let cerrada: Transaccion | undefined;
    await impl().transacciones.ejecutar(async (tx) => {
      cerrada = tx;
    });
    const id = nuevoId('fac');
    await expect(
      impl().repos.facturas.insertar(cerrada!, a, {
        id,
        organizacion_id: org,
        cliente_id: null,
        tipo: 'ingreso',
        documento: documento(),
        timbrado_estado: 'no_solicitado',
      }),
    ).rejects.toThrow();
    expect(await impl().repos.facturas.obtener(a, id)).toBeUndefined();
  });
});

contrato('transacciones: isolation', (impl) => {
  const nueva = (id: string, org: string) => ({
    id,
    organizacion_id: org,
    cliente_id: null,
    tipo: 'ingreso' as const,
    documento: documento(),
    timbrado_estado: 'no_solicitado' as const,
  });

  it('another connection does not see the writes of an open transaction, and sees them once committed', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = nuevoId('fac');
    const pagoId = nuevoId('pago');
    const { facturas, pagos } = impl().repos;
    const fuera = await impl().transacciones.ejecutar(async (tx) => {
      await facturas.insertar(tx, a, nueva(id, org));
      await pagos.crear(a, { id: pagoId, organizacion_id: org, solicitud: solicitudPago([]) }, tx);
      // Reads not given `tx` run on another connection.
      return [
        await facturas.obtener(a, id),
        (await facturas.listar(a, {}, { limite: 10 })).datos,
        await pagos.obtener(a, pagoId),
      ];
    });
    expect(fuera).toEqual([undefined, [], undefined]);
    expect(await facturas.obtener(a, id)).toMatchObject({ id });
    expect(await pagos.obtener(a, pagoId)).toMatchObject({ id: pagoId });
  });

  it('an update in an open transaction is not seen outside it before the commit', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = nuevoId('fac');
    await impl().transacciones.ejecutar((tx) => impl().repos.facturas.insertar(tx, a, nueva(id, org)));
    const error = { codigo: 'X', mensaje: 'rechazada' };
    const [dentro, fuera] = await impl().transacciones.ejecutar(async (tx) => {
      await impl().repos.facturas.guardarRechazo(tx, a, id, error);
      return [
        (await impl().repos.facturas.obtener(a, id, tx))?.timbrado_estado,
        (await impl().repos.facturas.obtener(a, id))?.timbrado_estado,
      ];
    });
    expect([dentro, fuera]).toEqual(['fallido', 'no_solicitado']);
    expect(await impl().repos.facturas.obtener(a, id)).toMatchObject({ timbrado_estado: 'fallido' });
  });

  it('a write on another connection while a transaction is open commits on its own, whatever the transaction does', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = nuevoId('fac');
    let aparte = '';
    await expect(
      impl().transacciones.ejecutar(async (tx) => {
        await impl().repos.facturas.insertar(tx, a, nueva(id, org));
        aparte = await nuevaOrganizacion(impl(), a);
        // Committed already: even this transaction's other reads see it.
        expect(await impl().repos.organizaciones.obtener(a, aparte)).toMatchObject({ id: aparte });
        throw new Error('deshecha');
      }),
    ).rejects.toThrow('deshecha');
    expect(await impl().repos.facturas.obtener(a, id)).toBeUndefined();
    expect(await impl().repos.organizaciones.obtener(a, aparte)).toMatchObject({ id: aparte });
  });
});
