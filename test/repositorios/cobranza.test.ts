import { randomUUID } from 'node:crypto';
import { nuevoId } from '../../db/ids';
import type { Alcance } from '../../dominio/alcance';
import type { Cancelacion } from '../../dominio/factura';
import {
  contrato,
  documento,
  escenario,
  nuevaFactura,
  nuevaOrganizacion,
  parcialidad,
  solicitudPago,
  type Implementacion,
} from './soporte';

interface Datos {
  cliente?: string | null;
  tipo?: 'ingreso' | 'pago';
  serie?: string;
  folio?: string;
  fecha?: string;
  moneda?: string;
  total?: string;
  metodo?: 'PUE' | 'PPD';
  /** Stamped at this local time; absent: a draft. */
  timbrada?: string;
  cancelada?: boolean;
}

contrato('cobranza', (impl) => {
  /** An invoice as the console reads it: its document's serie, folio, date and currency, stamped or not. */
  async function factura(i: Implementacion, a: Alcance, org: string, d: Datos = {}): Promise<string> {
    const doc = documento({ total: d.total ?? '116.00', metodo_pago: d.metodo ?? 'PPD' });
    Object.assign(doc.entrada, {
      serie: d.serie,
      folio: d.folio,
      fecha: d.fecha ?? '2026-01-10T10:00:00',
      moneda: d.moneda ?? 'MXN',
      decimales_moneda: d.moneda === 'JPY' ? 0 : 2,
    });
    const id = await nuevaFactura(i, a, org, {
      cliente_id: d.cliente === undefined ? null : d.cliente,
      tipo: d.tipo ?? 'ingreso',
      documento: doc,
      timbrado_estado: d.timbrada ? 'pendiente' : 'no_solicitado',
    });
    if (d.timbrada) {
      await i.transacciones.ejecutar((tx) =>
        i.repos.facturas.guardarTimbre(tx, a, id, {
          uuid: randomUUID().toUpperCase(),
          xml: '<cfdi:Comprobante/>',
          fechaTimbrado: d.timbrada!,
          noCertificadoSat: '30001000000500003456',
        }),
      );
    }
    if (d.cancelada) {
      const c: Cancelacion = {
        estado: 'aceptada',
        motivo: '02',
        uuid_sustitucion: null,
        solicitada_en: '2026-01-20T00:00:00.000Z',
        actualizada_en: '2026-01-20T00:00:00.000Z',
      };
      await i.repos.facturas.guardarCancelacion(a, id, c, { cancelada: true });
    }
    return id;
  }

  /** A registered payment received at `fecha`, with its stamped payment CFDI (serie P). */
  async function pago(
    i: Implementacion,
    a: Alcance,
    org: string,
    fecha: string,
    renglones: { factura: string; num: number; anterior: string; pagado: string; insoluto: string }[],
    moneda = 'MXN',
  ) {
    const id = nuevoId('pago');
    const solicitud = {
      ...solicitudPago(renglones.map((r) => ({ factura: r.factura, imp_pagado: r.pagado }))),
      fecha_pago: fecha,
    };
    await i.repos.pagos.crear(a, { id, organizacion_id: org, solicitud });
    const cfdi = await factura(i, a, org, { tipo: 'pago', serie: 'P', folio: id.slice(-4), timbrada: fecha });
    await i.transacciones.ejecutar(async (tx) => {
      await i.repos.facturas.bloquearVarias(
        tx,
        a,
        renglones.map((r) => r.factura),
      );
      await i.repos.pagos.registrar(
        tx,
        a,
        id,
        cfdi,
        renglones.map((r) => ({ ...parcialidad(r.factura, r.num, r), moneda })),
      );
    });
    return { id, cfdi };
  }

  it("a client's statement lists its stamped and cancelled ingreso invoices, oldest first, with what the document says", async () => {
    const { a, live, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const cli = nuevoId('cli');
    const f1 = await factura(impl(), a, org, {
      cliente: cli,
      serie: 'A',
      folio: '7',
      total: '1160.00',
      timbrada: '2026-01-10T10:00:05',
    });
    const f2 = await factura(impl(), a, org, {
      cliente: cli,
      folio: '8',
      moneda: 'USD',
      metodo: 'PUE',
      fecha: '2026-01-11T09:00:00',
      timbrada: '2026-01-11T09:00:05',
      cancelada: true,
    });
    await factura(impl(), a, org, { cliente: cli }); // a draft
    await factura(impl(), a, org, { cliente: nuevoId('cli'), timbrada: '2026-01-12T00:00:00' });
    await factura(impl(), a, org, { cliente: cli, tipo: 'pago', timbrada: '2026-01-12T00:00:00' });

    const filas = await impl().repos.cobranza.facturasDeCliente(a, cli);
    expect(
      filas.map((f) => [f.id, f.serie, f.folio, f.fecha, f.estado, f.total, f.moneda, f.metodo_pago]),
    ).toEqual([
      [f1, 'A', '7', '2026-01-10T10:00:00', 'timbrada', '1160.000000', 'MXN', 'PPD'],
      [f2, null, '8', '2026-01-11T09:00:00', 'cancelada', '116.000000', 'USD', 'PUE'],
    ]);
    expect(filas[0]!.uuid).toMatch(/^[0-9A-F-]{36}$/);
    expect(filas[0]!.organizacion_id).toBe(org);
    expect(await impl().repos.cobranza.facturasDeCliente(live, cli)).toEqual([]);
    expect(await impl().repos.cobranza.facturasDeCliente(otra, cli)).toEqual([]);
  });

  it("a client's payments: the vigente instalments of its invoices, by date received, with their payment CFDI", async () => {
    const { a, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const cli = nuevoId('cli');
    const f1 = await factura(impl(), a, org, {
      cliente: cli,
      total: '300.00',
      timbrada: '2026-01-10T10:00:05',
    });
    const f2 = await factura(impl(), a, org, {
      cliente: cli,
      total: '100.00',
      timbrada: '2026-01-10T11:00:05',
    });
    const ajena = await factura(impl(), a, org, {
      cliente: nuevoId('cli'),
      total: '50.00',
      timbrada: '2026-01-10T11:00:05',
    });
    const segundo = await pago(impl(), a, org, '2026-02-03T12:00:00', [
      { factura: f1, num: 2, anterior: '200', pagado: '50', insoluto: '150' },
    ]);
    const primero = await pago(impl(), a, org, '2026-02-01T12:00:00', [
      { factura: f1, num: 1, anterior: '300', pagado: '100', insoluto: '200' },
      { factura: f2, num: 1, anterior: '100', pagado: '100', insoluto: '0' },
      { factura: ajena, num: 1, anterior: '50', pagado: '10', insoluto: '40' },
    ]);
    // A cancelled payment CFDI gives its amounts back: its rows no longer count.
    const cancelado = await pago(impl(), a, org, '2026-02-02T12:00:00', [
      { factura: f2, num: 9, anterior: '1', pagado: '1', insoluto: '0' },
    ]);
    await impl().transacciones.ejecutar((tx) => impl().repos.pagos.revertir(tx, a, cancelado.cfdi));

    const filas = await impl().repos.cobranza.pagosDeCliente(a, cli);
    expect(
      filas.map((p) => [
        p.factura_id,
        p.pago_id,
        p.factura_pago_id,
        p.fecha_pago,
        p.num_parcialidad,
        p.imp_pagado,
        p.imp_saldo_insoluto,
      ]),
    ).toEqual(
      [
        [f1, primero.id, primero.cfdi, '2026-02-01T12:00:00', 1, '100.000000', '200.000000'],
        [f2, primero.id, primero.cfdi, '2026-02-01T12:00:00', 1, '100.000000', '0.000000'],
        [f1, segundo.id, segundo.cfdi, '2026-02-03T12:00:00', 2, '50.000000', '150.000000'],
      ].sort((x, y) => (`${x[3]}|${x[0]}` < `${y[3]}|${y[0]}` ? -1 : 1)),
    );
    expect(filas[0]).toMatchObject({
      serie_pago: 'P',
      imp_saldo_anterior: expect.stringMatching(/\.000000$/),
    });
    expect(filas[0]!.uuid_pago).toMatch(/^[0-9A-F-]{36}$/);
    expect(await impl().repos.cobranza.pagosDeCliente(otra, cli)).toEqual([]);
  });

  it('billed per stamp day, by state and payment method, within the days, currency and organization asked', async () => {
    const { a, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const org2 = await nuevaOrganizacion(impl(), a);
    await factura(impl(), a, org, { total: '100.00', metodo: 'PUE', timbrada: '2026-03-01T00:00:00' });
    await factura(impl(), a, org, { total: '50.50', metodo: 'PUE', timbrada: '2026-03-01T23:59:59' });
    await factura(impl(), a, org, { total: '10.00', timbrada: '2026-03-01T12:00:00' });
    await factura(impl(), a, org, { total: '7.00', timbrada: '2026-03-02T12:00:00', cancelada: true });
    await factura(impl(), a, org2, { total: '1.00', timbrada: '2026-03-02T12:00:00' });
    await factura(impl(), a, org, { total: '99.00', moneda: 'USD', timbrada: '2026-03-02T12:00:00' });
    await factura(impl(), a, org, { total: '99.00', timbrada: '2026-02-28T23:59:59' });
    await factura(impl(), a, org, { total: '99.00', timbrada: '2026-03-03T00:00:00' });
    await factura(impl(), a, org, { total: '99.00', tipo: 'pago', timbrada: '2026-03-02T00:00:00' });
    await factura(impl(), a, org, { total: '99.00' });
    await factura(impl(), otra, await nuevaOrganizacion(impl(), otra), { timbrada: '2026-03-01T12:00:00' });

    const f = { desde: '2026-03-01', hasta: '2026-03-02', moneda: 'MXN' };
    expect(await impl().repos.cobranza.facturadoPorDia(a, f)).toEqual([
      { dia: '2026-03-01', estado: 'timbrada', metodo_pago: 'PPD', facturas: 1, total: '10.000000' },
      { dia: '2026-03-01', estado: 'timbrada', metodo_pago: 'PUE', facturas: 2, total: '150.500000' },
      { dia: '2026-03-02', estado: 'cancelada', metodo_pago: 'PPD', facturas: 1, total: '7.000000' },
      { dia: '2026-03-02', estado: 'timbrada', metodo_pago: 'PPD', facturas: 1, total: '1.000000' },
    ]);
    expect(await impl().repos.cobranza.facturadoPorDia(a, { ...f, organizacionId: org2 })).toEqual([
      { dia: '2026-03-02', estado: 'timbrada', metodo_pago: 'PPD', facturas: 1, total: '1.000000' },
    ]);
    expect(await impl().repos.cobranza.facturadoPorDia(a, { ...f, moneda: 'USD' })).toEqual([
      { dia: '2026-03-02', estado: 'timbrada', metodo_pago: 'PPD', facturas: 1, total: '99.000000' },
    ]);
  });

  it('collected per day the payment was received: vigente instalments in the currency asked', async () => {
    const { a, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const org2 = await nuevaOrganizacion(impl(), a);
    const f1 = await factura(impl(), a, org, { total: '300.00', timbrada: '2026-03-01T00:00:00' });
    const f2 = await factura(impl(), a, org2, { total: '300.00', timbrada: '2026-03-01T00:00:00' });
    await pago(impl(), a, org, '2026-03-05T08:00:00', [
      { factura: f1, num: 1, anterior: '300', pagado: '100.25', insoluto: '199.75' },
    ]);
    await pago(impl(), a, org, '2026-03-05T20:00:00', [
      { factura: f1, num: 2, anterior: '199.75', pagado: '0.75', insoluto: '199' },
    ]);
    await pago(impl(), a, org2, '2026-03-06T20:00:00', [
      { factura: f2, num: 1, anterior: '300', pagado: '1', insoluto: '299' },
    ]);
    await pago(impl(), a, org, '2026-03-07T00:00:00', [
      { factura: f1, num: 3, anterior: '199', pagado: '9', insoluto: '190' },
    ]);
    const cancelado = await pago(impl(), a, org, '2026-03-06T10:00:00', [
      { factura: f1, num: 4, anterior: '1', pagado: '1', insoluto: '0' },
    ]);
    await impl().transacciones.ejecutar((tx) => impl().repos.pagos.revertir(tx, a, cancelado.cfdi));
    await pago(
      impl(),
      a,
      org,
      '2026-03-06T10:00:00',
      [{ factura: f1, num: 5, anterior: '1', pagado: '5', insoluto: '0' }],
      'USD',
    );

    const f = { desde: '2026-03-05', hasta: '2026-03-06', moneda: 'MXN' };
    expect(await impl().repos.cobranza.cobradoPorDia(a, f)).toEqual([
      { dia: '2026-03-05', parcialidades: 2, total: '101.000000' },
      { dia: '2026-03-06', parcialidades: 1, total: '1.000000' },
    ]);
    expect(await impl().repos.cobranza.cobradoPorDia(a, { ...f, organizacionId: org })).toEqual([
      { dia: '2026-03-05', parcialidades: 2, total: '101.000000' },
    ]);
    expect(await impl().repos.cobranza.cobradoPorDia(a, { ...f, moneda: 'USD' })).toEqual([
      { dia: '2026-03-06', parcialidades: 1, total: '5.000000' },
    ]);
    expect(await impl().repos.cobranza.cobradoPorDia(otra, f)).toEqual([]);
  });
});
