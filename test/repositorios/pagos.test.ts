import { randomUUID } from 'node:crypto';
import { nuevoId } from '../../db/ids';
import type { Alcance } from '../../dominio/alcance';
import type { Pagina } from '../../dominio/paginacion';
import type { RechazoPago } from '../../dominio/pago';
import {
  contrato,
  dormir,
  escenario,
  facturaTimbrada,
  nuevaFactura,
  nuevaOrganizacion,
  nuevoPago,
  paginasEsperadas,
  parcialidad,
  recorrer,
  refusal,
  solicitudPago,
  type Implementacion,
} from './soporte';

contrato('pagos', (impl) => {
  const rechazo: RechazoPago = {
    tipo: 'regla_de_negocio',
    codigo: 'saldo_insuficiente',
    mensaje: 'No alcanza',
    parametro: 'monto',
  };

  /** An organization with two stamped PPD invoices and a payment CFDI. */
  async function base(i: Implementacion, a: Alcance) {
    const org = await nuevaOrganizacion(i, a);
    const f1 = (await facturaTimbrada(i, a, org, { total: '100.00' })).id;
    const f2 = (await facturaTimbrada(i, a, org, { total: '300.00' })).id;
    const cfdi = await nuevaFactura(i, a, org, { tipo: 'pago', timbrado_estado: 'pendiente' });
    return { org, f1, f2, cfdi };
  }

  /** A payment of `importe` to each of f1 and f2, still registrando. */
  const pagoDeAmbas = (a: Alcance, b: { org: string; f1: string; f2: string }, importe = '10') =>
    nuevoPago(impl(), a, b.org, [
      { factura: b.f1, imp_pagado: importe },
      { factura: b.f2, imp_pagado: importe },
    ]);

  /** Registers the payment `pagoId` against f1 then f2 (in that order of the request). */
  async function registrar(
    i: Implementacion,
    a: Alcance,
    pagoId: string,
    b: { f1: string; f2: string; cfdi: string },
    nums = [1, 1],
  ) {
    await i.transacciones.ejecutar(async (tx) => {
      await i.repos.facturas.bloquearVarias(tx, a, [b.f1, b.f2]);
      await i.repos.pagos.registrar(tx, a, pagoId, b.cfdi, [
        parcialidad(b.f2, nums[1]!, { anterior: '300.00', pagado: '50', insoluto: '250.00' }),
        parcialidad(b.f1, nums[0]!, { anterior: '100', pagado: '40.5', insoluto: '59.5' }),
      ]);
    });
  }

  it('a new payment is registrando with its request as an object and no ledger', async () => {
    const { a } = await escenario(impl());
    const b = await base(impl(), a);
    const facturas = [
      { factura: b.f1, imp_pagado: '40.50' },
      { factura: b.f2, imp_pagado: '50.00' },
    ];
    const id = await nuevoPago(impl(), a, b.org, facturas);
    expect(await impl().repos.pagos.obtener(a, id)).toEqual({
      id,
      modo: 'test',
      organizacion_id: b.org,
      estado: 'registrando',
      solicitud: solicitudPago(facturas),
      error: null,
      factura_pago_id: null,
      factura_pago_estado: null,
      factura_pago_uuid: null,
      parcialidades: [],
      creado_en: expect.any(Date),
      actualizado_en: expect.any(Date),
    });
  });

  it('registering writes the ledger in the request order, amounts as DECIMAL(24,6), and names the payment CFDI', async () => {
    const { a } = await escenario(impl());
    const b = await base(impl(), a);
    const id = await nuevoPago(impl(), a, b.org, [
      { factura: b.f1, imp_pagado: '40.50' },
      { factura: b.f2, imp_pagado: '50.00' },
    ]);
    await registrar(impl(), a, id, b);
    const p = await impl().repos.pagos.obtener(a, id);
    expect(p).toMatchObject({
      estado: 'registrado',
      factura_pago_id: b.cfdi,
      factura_pago_estado: 'borrador',
      factura_pago_uuid: null,
    });
    expect(p!.parcialidades).toEqual([
      {
        ...parcialidad(b.f1, 1, { anterior: '100.000000', pagado: '40.500000', insoluto: '59.500000' }),
        uuid: expect.any(String),
        vigente: true,
      },
      {
        ...parcialidad(b.f2, 1, { anterior: '300.000000', pagado: '50.000000', insoluto: '250.000000' }),
        uuid: expect.any(String),
        vigente: true,
      },
    ]);
    // The paid invoice lists the instalment; the payment CFDI names its payment.
    expect((await impl().repos.facturas.obtener(a, b.f1))!.parcialidades).toEqual([
      {
        pago: id,
        factura_pago: b.cfdi,
        num_parcialidad: 1,
        imp_saldo_anterior: '100.000000',
        imp_pagado: '40.500000',
        imp_saldo_insoluto: '59.500000',
      },
    ]);
    expect((await impl().repos.facturas.obtener(a, b.cfdi))!.pago_id).toBe(id);
    expect(await impl().repos.pagos.vigentesDeFactura(a, b.f1)).toEqual([id]);
  });

  it('an invoice lists its vigente instalments by number', async () => {
    const { a } = await escenario(impl());
    const b = await base(impl(), a);
    const p1 = await pagoDeAmbas(a, b);
    const p2 = await pagoDeAmbas(a, b);
    const cfdi2 = await nuevaFactura(impl(), a, b.org, { tipo: 'pago' });
    // The second payment registered first: the list still goes by instalment number.
    await registrar(impl(), a, p2, { ...b, cfdi: cfdi2 }, [2, 2]);
    await registrar(impl(), a, p1, b, [1, 1]);
    const parcialidades = (await impl().repos.facturas.obtener(a, b.f1))!.parcialidades;
    expect(parcialidades.map((x) => [x.num_parcialidad, x.pago])).toEqual([
      [1, p1],
      [2, p2],
    ]);
    expect((await impl().repos.pagos.vigentesDeFactura(a, b.f1)).sort()).toEqual([p1, p2].sort());
  });

  it('two vigente rows of one invoice never share an instalment number; a reverted one frees it', async () => {
    const { a } = await escenario(impl());
    const b = await base(impl(), a);
    const p1 = await pagoDeAmbas(a, b);
    await registrar(impl(), a, p1, b);
    const p2 = await pagoDeAmbas(a, b);
    const cfdi2 = await nuevaFactura(impl(), a, b.org, { tipo: 'pago' });
    // Not translated by the repository: the ledger step checks the numbers under the invoices' locks.
    expect(await refusal(registrar(impl(), a, p2, { ...b, cfdi: cfdi2 }))).toBe('ER_DUP_ENTRY');
    // The unit of work rolled back whole.
    expect(await impl().repos.pagos.obtener(a, p2)).toMatchObject({
      estado: 'registrando',
      parcialidades: [],
    });

    await impl().transacciones.ejecutar((tx) => impl().repos.pagos.revertir(tx, a, b.cfdi));
    expect(await refusal(registrar(impl(), a, p2, { ...b, cfdi: cfdi2 }))).toBe('aceptado');
  });

  it('a rejection only ends a payment still registrando', async () => {
    const { a } = await escenario(impl());
    const b = await base(impl(), a);
    const pendiente = await nuevoPago(impl(), a, b.org, [{ factura: b.f1, imp_pagado: '10' }]);
    await impl().transacciones.ejecutar((tx) => impl().repos.pagos.rechazar(tx, a, pendiente, rechazo));
    expect(await impl().repos.pagos.obtener(a, pendiente)).toMatchObject({
      estado: 'rechazado',
      error: rechazo,
    });

    const registrado = await pagoDeAmbas(a, b);
    await registrar(impl(), a, registrado, b);
    await impl().transacciones.ejecutar((tx) => impl().repos.pagos.rechazar(tx, a, registrado, rechazo));
    expect(await impl().repos.pagos.obtener(a, registrado)).toMatchObject({
      estado: 'registrado',
      error: null,
    });
  });

  it('reverting a payment CFDI gives its amounts back and keeps the rows as history', async () => {
    const { a } = await escenario(impl());
    const b = await base(impl(), a);
    const id = await pagoDeAmbas(a, b);
    await registrar(impl(), a, id, b);
    const antes = (await impl().repos.pagos.obtener(a, id))!;
    await dormir(5);
    expect(await impl().transacciones.ejecutar((tx) => impl().repos.pagos.revertir(tx, a, b.cfdi))).toBe(id);
    const despues = (await impl().repos.pagos.obtener(a, id))!;
    expect(despues.estado).toBe('registrado');
    expect(despues.parcialidades.map((x) => x.vigente)).toEqual([false, false]);
    expect(despues.actualizado_en.getTime()).toBeGreaterThan(antes.actualizado_en.getTime());
    expect(await impl().repos.pagos.vigentesDeFactura(a, b.f1)).toEqual([]);
    expect((await impl().repos.facturas.obtener(a, b.f1))!.parcialidades).toEqual([]);
    // Still listed, and still among the invoice's payments.
    expect((await impl().repos.pagos.deFactura(a, b.f1)).map((p) => p.id)).toEqual([id]);
  });

  it('reverting with a rejection also ends the payment rechazado; an unknown CFDI reverts nothing', async () => {
    const { a } = await escenario(impl());
    const b = await base(impl(), a);
    const id = await pagoDeAmbas(a, b);
    await registrar(impl(), a, id, b);
    expect(
      await impl().transacciones.ejecutar((tx) => impl().repos.pagos.revertir(tx, a, nuevoId('fac'))),
    ).toBeUndefined();
    expect(
      await impl().transacciones.ejecutar((tx) => impl().repos.pagos.revertir(tx, a, b.cfdi, rechazo)),
    ).toBe(id);
    expect(await impl().repos.pagos.obtener(a, id)).toMatchObject({ estado: 'rechazado', error: rechazo });
  });

  it('another account or mode never sees, locks, rejects or reverts the payment', async () => {
    const { a, live, otra } = await escenario(impl());
    const b = await base(impl(), a);
    const id = await pagoDeAmbas(a, b);
    const pendiente = await nuevoPago(impl(), a, b.org, [{ factura: b.f1, imp_pagado: '10' }]);
    await registrar(impl(), a, id, b);
    const antes = [await impl().repos.pagos.obtener(a, id), await impl().repos.pagos.obtener(a, pendiente)];
    for (const fuera of [live, otra]) {
      expect(await impl().repos.pagos.obtener(fuera, id)).toBeUndefined();
      expect((await impl().repos.pagos.listar(fuera, {}, { limite: 10 })).datos).toEqual([]);
      expect(await impl().repos.pagos.deFactura(fuera, b.f1)).toEqual([]);
      expect(await impl().repos.pagos.vigentesDeFactura(fuera, b.f1)).toEqual([]);
      await impl().transacciones.ejecutar(async (tx) => {
        expect(await impl().repos.pagos.bloquear(tx, fuera, id)).toBeUndefined();
        await impl().repos.pagos.rechazar(tx, fuera, pendiente, rechazo);
        expect(await impl().repos.pagos.revertir(tx, fuera, b.cfdi)).toBeUndefined();
      });
    }
    expect([await impl().repos.pagos.obtener(a, id), await impl().repos.pagos.obtener(a, pendiente)]).toEqual(
      antes,
    );
  });

  it('lists registered and registering payments newest first, page by page, by organization and by invoice', async () => {
    const { a } = await escenario(impl());
    const b = await base(impl(), a);
    const otraOrg = await nuevaOrganizacion(impl(), a);
    const f3 = await nuevaFactura(impl(), a, otraOrg);
    const deB = [];
    for (let i = 0; i < 3; i++) deB.push(await pagoDeAmbas(a, b, '1'));
    await registrar(impl(), a, deB[0]!, b);
    const deOtra = await nuevoPago(impl(), a, otraOrg, [{ factura: f3, imp_pagado: '1' }]);
    const rechazado = await nuevoPago(impl(), a, b.org, [{ factura: b.f1, imp_pagado: '1' }]);
    await impl().transacciones.ejecutar((tx) => impl().repos.pagos.rechazar(tx, a, rechazado, rechazo));
    const listar =
      (f: { organizacionId?: string; facturaId?: string } = {}) =>
      (p: Pagina) =>
        impl().repos.pagos.listar(a, f, p);
    expect(await recorrer(listar(), 2)).toEqual(paginasEsperadas([...deB, deOtra], 2));
    expect(await recorrer(listar({ organizacionId: b.org }), 2)).toEqual(paginasEsperadas(deB, 2));
    // By invoice: through the ledger, so only the registered one.
    expect(await recorrer(listar({ facturaId: b.f1 }), 2)).toEqual([[deB[0]]]);
    const [conLibro] = (await impl().repos.pagos.listar(a, { facturaId: b.f1 }, { limite: 1 })).datos;
    expect(conLibro!.parcialidades.map((x) => x.factura)).toEqual([b.f1, b.f2]);
  });

  it("an invoice's payments, rejected ones included, in id order", async () => {
    const { a } = await escenario(impl());
    const b = await base(impl(), a);
    const p1 = await pagoDeAmbas(a, b, '1');
    const p2 = await pagoDeAmbas(a, b, '1');
    const cfdi2 = await nuevaFactura(impl(), a, b.org, { tipo: 'pago' });
    await registrar(impl(), a, p2, { ...b, cfdi: cfdi2 }, [1, 1]);
    await impl().transacciones.ejecutar((tx) => impl().repos.pagos.revertir(tx, a, cfdi2, rechazo));
    await registrar(impl(), a, p1, b, [1, 1]);
    expect((await impl().repos.pagos.deFactura(a, b.f1)).map((p) => [p.id, p.estado])).toEqual(
      [
        [p1, 'registrado'],
        [p2, 'rechazado'],
      ].sort((x, y) => (x[0]! < y[0]! ? -1 : 1)),
    );
    expect(await impl().repos.pagos.deFactura(a, nuevoId('fac'))).toEqual([]);
  });

  it('the payment CFDI state and UUID come from its invoice', async () => {
    const { a } = await escenario(impl());
    const b = await base(impl(), a);
    const id = await pagoDeAmbas(a, b, '1');
    await registrar(impl(), a, id, b);
    const uuid = randomUUID().toUpperCase();
    await impl().transacciones.ejecutar((tx) =>
      impl().repos.facturas.guardarTimbre(tx, a, b.cfdi, {
        uuid,
        xml: '<pago/>',
        fechaTimbrado: '2024-05-02T12:00:00',
        noCertificadoSat: '1',
      }),
    );
    expect(await impl().repos.pagos.obtener(a, id)).toMatchObject({
      factura_pago_estado: 'timbrada',
      factura_pago_uuid: uuid,
    });
  });

  it('a second locker of the payment waits for the first transaction and reads what it committed', async () => {
    const { a } = await escenario(impl());
    const b = await base(impl(), a);
    const id = await nuevoPago(impl(), a, b.org, [{ factura: b.f1, imp_pagado: '1' }]);
    let avisar!: () => void;
    const bloqueado = new Promise<void>((r) => (avisar = r));
    const primera = impl().transacciones.ejecutar(async (tx) => {
      expect(await impl().repos.pagos.bloquear(tx, a, id)).toEqual({ estado: 'registrando' });
      avisar();
      await dormir(150);
      await impl().repos.pagos.rechazar(tx, a, id, rechazo);
    });
    await bloqueado;
    const segunda = impl().transacciones.ejecutar((tx) => impl().repos.pagos.bloquear(tx, a, id));
    await primera;
    expect(await segunda).toEqual({ estado: 'rechazado' });
  });

  it('payments still registrando across accounts, oldest first, with their invoices', async () => {
    const { a, otra } = await escenario(impl());
    const b = await base(impl(), a);
    const orgOtra = await nuevaOrganizacion(impl(), otra);
    const fOtra = await nuevaFactura(impl(), otra, orgOtra);
    const p1 = await nuevoPago(impl(), a, b.org, [
      { factura: b.f2, imp_pagado: '1' },
      { factura: b.f1, imp_pagado: '1' },
    ]);
    await dormir(5);
    const p2 = await nuevoPago(impl(), otra, orgOtra, [{ factura: fOtra, imp_pagado: '1' }]);
    const registrado = await pagoDeAmbas(a, b, '1');
    await registrar(impl(), a, registrado, b);
    const mios = [p1, p2, registrado];
    const propios = (l: { id: string }[]) => l.filter((p) => mios.includes(p.id));
    expect(
      propios(await impl().repos.pagos.registrosPendientes(new Date(Date.now() + 1000), 10_000)),
    ).toEqual([
      { id: p1, cuenta_id: a.cuentaId, modo: 'test', organizacion_id: b.org, facturas: [b.f2, b.f1] },
      { id: p2, cuenta_id: otra.cuentaId, modo: 'test', organizacion_id: orgOtra, facturas: [fOtra] },
    ]);
    expect(
      propios(await impl().repos.pagos.registrosPendientes(new Date(Date.now() - 60_000), 10_000)),
    ).toEqual([]);
  });
});
