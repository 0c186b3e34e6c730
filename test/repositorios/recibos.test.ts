import { randomBytes } from 'node:crypto';
import { nuevoId } from '../../db/ids';
import type { ReciboNuevoFila } from '../../db/repositorios/recibos';
import type { Alcance } from '../../dominio/alcance';
import type { DocumentoRecibo } from '../../dominio/recibo';
import {
  contrato,
  dormir,
  escenario,
  nuevaFactura,
  nuevaOrganizacion,
  recorrer,
  refusal,
  type Implementacion,
} from './soporte';

const DOCUMENTO: DocumentoRecibo = {
  forma_pago: '01',
  moneda: 'MXN',
  decimales_moneda: 2,
  lugar_expedicion: '42501',
  huso_horario: 'Tiempo del Centro',
  conceptos: [
    {
      cantidad: '2',
      clave_prod_serv: '50192100',
      clave_unidad: 'H87',
      descripcion: 'Torta',
      valor_unitario: '50.000000',
      objeto_imp: '01',
    },
  ],
  productos: [null],
  importes: { conceptos: [], subtotal: '100.00', traslados: [], retenciones: [], total: '100.00' },
};

contrato('recibos', (impl) => {
  function fila(org: string, o: Partial<ReciboNuevoFila> = {}): ReciboNuevoFila {
    return {
      id: nuevoId('rec'),
      organizacion_id: org,
      fecha: '2026-03-10T13:00:00',
      folio: null,
      sucursal: null,
      documento: DOCUMENTO,
      clave_hash: randomBytes(32).toString('hex'),
      clave_cifrada: randomBytes(40),
      dek_cifrada: randomBytes(60),
      version_clave: 1,
      vence_en: new Date('2026-04-09T19:00:00.123Z'),
      ...o,
    };
  }
  const insertar = (i: Implementacion, a: Alcance, f: ReciboNuevoFila) =>
    i.transacciones.ejecutar((tx) => i.repos.recibos.insertar(tx, a, f));

  it('stores and reads a receipt in its own scope only: document as an object, sealed key as bytes', async () => {
    const { a, live, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const f = fila(org, { folio: 'T-1', sucursal: 'Centro' });
    await insertar(impl(), a, f);
    const leido = await impl().repos.recibos.obtener(a, f.id);
    expect(leido).toEqual({
      id: f.id,
      modo: 'test',
      organizacion_id: org,
      estado: 'abierto',
      fecha: f.fecha,
      folio: 'T-1',
      sucursal: 'Centro',
      documento: DOCUMENTO,
      clave_cifrada: f.clave_cifrada,
      dek_cifrada: f.dek_cifrada,
      version_clave: 1,
      vence_en: f.vence_en,
      factura_id: null,
      factura_global_id: null,
      cancelado_en: null,
      fuera_de_global_en: null,
      creado_en: expect.any(Date),
      actualizado_en: expect.any(Date),
    });
    expect(Buffer.isBuffer(leido!.clave_cifrada)).toBe(true);
    expect(await impl().repos.recibos.obtener(live, f.id)).toBeUndefined();
    expect(await impl().repos.recibos.obtener(otra, f.id)).toBeUndefined();
    expect((await impl().repos.recibos.listar(otra, {}, { limite: 10 })).datos).toEqual([]);
  });

  it('a folio is unique within its organization, case aside; other organizations and receipts without folio are free', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const otraOrg = await nuevaOrganizacion(impl(), a);
    await insertar(impl(), a, fila(org, { folio: 'T-001' }));
    expect(await refusal(insertar(impl(), a, fila(org, { folio: 't-001' })))).toBe('RegistroDuplicado');
    expect(await refusal(insertar(impl(), a, fila(otraOrg, { folio: 'T-001' })))).toBe('aceptado');
    expect(await refusal(insertar(impl(), a, fila(org)))).toBe('aceptado');
    expect(await refusal(insertar(impl(), a, fila(org)))).toBe('aceptado');
    const h = randomBytes(32).toString('hex');
    await insertar(impl(), a, fila(org, { clave_hash: h }));
    expect(await refusal(insertar(impl(), a, fila(otraOrg, { clave_hash: h })))).toBe('RegistroDuplicado');
  });

  it('lists newest first with cursors, by organization, state and local days of the sale', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const otraOrg = await nuevaOrganizacion(impl(), a);
    const r1 = fila(org, { fecha: '2026-03-09T23:59:59' });
    const r2 = fila(org, { fecha: '2026-03-10T00:00:00' });
    const r3 = fila(otraOrg, { fecha: '2026-03-11T08:00:00' });
    for (const f of [r1, r2, r3]) await insertar(impl(), a, f);
    const ids = async (filtros: Parameters<Implementacion['repos']['recibos']['listar']>[1]) =>
      (await impl().repos.recibos.listar(a, filtros, { limite: 10 })).datos.map((x) => x.id);
    expect(await recorrer((p) => impl().repos.recibos.listar(a, {}, p), 2)).toEqual([
      [r3.id, r2.id],
      [r1.id],
    ]);
    expect(await ids({ organizacionId: org })).toEqual([r2.id, r1.id]);
    expect(await ids({ fechaDesde: '2026-03-10' })).toEqual([r3.id, r2.id]);
    expect(await ids({ fechaHasta: '2026-03-10' })).toEqual([r2.id, r1.id]);
    expect(await ids({ fechaDesde: '2026-03-10', fechaHasta: '2026-03-10' })).toEqual([r2.id]);
    await impl().transacciones.ejecutar((tx) => impl().repos.recibos.cancelar(tx, a, r2.id, new Date()));
    expect(await ids({ estado: 'abierto' })).toEqual([r3.id, r1.id]);
    expect(await ids({ estado: 'cancelado', organizacionId: org })).toEqual([r2.id]);
  });

  it('cancels only an open receipt of its scope, once; a rolled back cancellation leaves it open', async () => {
    const { a, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const f = fila(org);
    await insertar(impl(), a, f);
    const cancelar = (x: Alcance, en: Date) =>
      impl().transacciones.ejecutar((tx) => impl().repos.recibos.cancelar(tx, x, f.id, en));
    expect(await cancelar(otra, new Date())).toBe(false);
    await expect(
      impl().transacciones.ejecutar(async (tx) => {
        await impl().repos.recibos.cancelar(tx, a, f.id, new Date());
        throw new Error('deshacer');
      }),
    ).rejects.toThrow('deshacer');
    expect((await impl().repos.recibos.obtener(a, f.id))!.estado).toBe('abierto');
    const en = new Date('2026-03-10T20:00:00.456Z');
    expect(await cancelar(a, en)).toBe(true);
    expect(await cancelar(a, new Date())).toBe(false);
    expect(await impl().repos.recibos.obtener(a, f.id)).toMatchObject({
      estado: 'cancelado',
      cancelado_en: en,
      actualizado_en: en,
    });
  });

  it("locks a receipt of its scope only; a second locker waits and reads the first one's commit (facturado once)", async () => {
    const { a, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const f = fila(org);
    await insertar(impl(), a, f);
    const fac = await nuevaFactura(impl(), a, org);
    const r = impl().repos.recibos;
    expect(await impl().transacciones.ejecutar((tx) => r.bloquear(tx, otra, f.id))).toBeUndefined();
    expect(await impl().transacciones.ejecutar((tx) => r.facturar(tx, otra, f.id, fac, new Date()))).toBe(
      false,
    );
    const orden: string[] = [];
    let avisar!: () => void;
    const bloqueado = new Promise<void>((x) => (avisar = x));
    const en = new Date('2026-03-11T10:00:00.789Z');
    const primera = impl().transacciones.ejecutar(async (tx) => {
      expect(await r.bloquear(tx, a, f.id)).toMatchObject({ id: f.id, estado: 'abierto', factura_id: null });
      avisar();
      await dormir(150);
      expect(await r.facturar(tx, a, f.id, fac, en)).toBe(true);
      orden.push('primera');
    });
    await bloqueado;
    const segunda = impl().transacciones.ejecutar(async (tx) => {
      const x = await r.bloquear(tx, a, f.id);
      orden.push('segunda');
      return { x, otraVez: await r.facturar(tx, a, f.id, fac, new Date()) };
    });
    await primera;
    const { x, otraVez } = await segunda;
    expect(orden).toEqual(['primera', 'segunda']);
    expect(x).toMatchObject({ estado: 'facturado', factura_id: fac, actualizado_en: en });
    expect(otraVez).toBe(false);
    // A cancelled receipt is not invoiced.
    const g = fila(org);
    await insertar(impl(), a, g);
    await impl().transacciones.ejecutar((tx) => r.cancelar(tx, a, g.id, new Date()));
    expect(await impl().transacciones.ejecutar((tx) => r.facturar(tx, a, g.id, fac, new Date()))).toBe(false);
  });

  it('global invoice moves: open receipts of a period and currency, locked, oldest first; claims; replacement', async () => {
    const { a, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const otraOrg = await nuevaOrganizacion(impl(), otra);
    const r = impl().repos.recibos;
    const g = impl().repos.facturasGlobales;
    const ej = <T>(
      f: (tx: Parameters<Parameters<Implementacion['transacciones']['ejecutar']>[0]>[0]) => Promise<T>,
    ) => impl().transacciones.ejecutar(f);
    const tarde = fila(org, { fecha: '2026-03-10T23:59:59' });
    const temprano = fila(org, { fecha: '2026-03-10T00:00:00' });
    const otroDia = fila(org, { fecha: '2026-03-11T00:00:00' });
    const dolares = fila(org, { documento: { ...DOCUMENTO, moneda: 'USD' } });
    const cancelado = fila(org);
    for (const f of [tarde, temprano, otroDia, dolares, cancelado]) await insertar(impl(), a, f);
    await insertar(impl(), otra, fila(otraOrg));
    await ej((tx) => r.cancelar(tx, a, cancelado.id, new Date()));
    const periodo = {
      organizacionId: org,
      desde: '2026-03-10',
      hasta: '2026-03-10',
      moneda: 'MXN',
      limite: 10,
    };
    const abiertos = await ej((tx) => r.abiertosDelPeriodo(tx, a, periodo));
    expect(abiertos.map((x) => x.id)).toEqual([temprano.id, tarde.id]);
    expect(
      (await ej((tx) => r.abiertosDelPeriodo(tx, a, { ...periodo, limite: 1 }))).map((x) => x.id),
    ).toEqual([temprano.id]);
    expect(await ej((tx) => r.abiertosDelPeriodo(tx, otra, periodo))).toEqual([]);

    // The global takes them; a claim of one; the buyer's invoice rejected gives it back.
    const global = await nuevaFactura(impl(), a, org);
    const en = new Date('2026-03-11T06:15:00.000Z');
    await ej(async (tx) => {
      await g.insertar(tx, a, {
        factura_id: global,
        organizacion_id: org,
        periodicidad: '01',
        desde: '2026-03-10',
        hasta: '2026-03-10',
        origen: 'programacion',
        reemplaza: null,
      });
      await r.aGlobal(tx, a, [temprano.id, tarde.id], global, en);
    });
    expect(await g.obtener(otra, global)).toBeUndefined();
    expect(await g.obtener(a, global)).toMatchObject({
      desde: '2026-03-10',
      hasta: '2026-03-10',
      reemplazada_en: null,
    });
    expect(await ej((tx) => r.deGlobal(tx, a, global))).toMatchObject([
      { id: temprano.id, estado: 'en_factura_global', factura_global_id: global },
      { id: tarde.id, estado: 'en_factura_global', factura_global_id: global },
    ]);
    expect(await ej((tx) => r.abiertosDelPeriodo(tx, a, periodo))).toEqual([]);
    const nominativa = await nuevaFactura(impl(), a, org);
    expect(await ej((tx) => r.reclamar(tx, otra, tarde.id, nominativa, en))).toBe(false);
    expect(await ej((tx) => r.reclamar(tx, a, tarde.id, nominativa, en))).toBe(true);
    expect(await ej((tx) => r.reclamar(tx, a, tarde.id, nominativa, en))).toBe(false);
    expect(await r.reclamosPendientes(new Date(en.getTime() + 1), 10)).toEqual([
      {
        id: tarde.id,
        cuenta_id: a.cuentaId,
        modo: 'test',
        factura_id: nominativa,
        factura_global_id: global,
        organizacion_id: org,
      },
    ]);
    expect(await ej((tx) => r.devolverPorRechazo(tx, a, nominativa, en))).toBe(1);
    expect(await r.obtener(a, tarde.id)).toMatchObject({ estado: 'en_factura_global', factura_id: null });

    // Claimed again and taken out by a replacement; the replacement undone; a failed global lets them go.
    await ej((tx) => r.reclamar(tx, a, tarde.id, nominativa, en));
    await ej(async (tx) => {
      await g.marcarReemplazada(tx, a, global, null, en);
      await r.fueraDeGlobal(tx, a, [tarde.id], en);
    });
    expect(await r.reclamosPendientes(new Date(en.getTime() + 1), 10)).toEqual([]);
    expect(await g.obtener(a, global)).toMatchObject({ reemplazada_por: null, reemplazada_en: en });
    await ej((tx) => g.deshacerReemplazo(tx, a, global));
    expect((await g.obtener(a, global))!.reemplazada_en).toBeNull();
    expect(await ej((tx) => r.liberarDeGlobal(tx, a, global, en))).toBe(1);
    expect(await r.obtener(a, temprano.id)).toMatchObject({ estado: 'abierto', factura_global_id: null });
    expect(await r.obtener(a, tarde.id)).toMatchObject({ estado: 'facturado', factura_global_id: global });
    // An open receipt's invoice rejected: open again.
    const propia = await nuevaFactura(impl(), a, org);
    await ej((tx) => r.facturar(tx, a, otroDia.id, propia, en));
    await ej((tx) => r.devolverPorRechazo(tx, a, propia, en));
    expect(await r.obtener(a, otroDia.id)).toMatchObject({ estado: 'abierto', factura_id: null });
  });

  it('finds the owner of a key by its hash, in any account (the portal has no API key)', async () => {
    const { a, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const f = fila(org);
    await insertar(impl(), a, f);
    expect(await impl().repos.recibos.porHashClave(f.clave_hash)).toEqual({
      id: f.id,
      cuenta_id: a.cuentaId,
      modo: 'test',
    });
    expect(await impl().repos.recibos.porHashClave(randomBytes(32).toString('hex'))).toBeUndefined();
    expect(otra.cuentaId).not.toBe(a.cuentaId);
  });
});
