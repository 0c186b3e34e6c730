import { randomUUID } from 'node:crypto';
import { nuevoId } from '../../db/ids';
import type { FiltrosFacturas } from '../../db/repositorios/facturas';
import type { Cancelacion } from '../../dominio/factura';
import type { Pagina } from '../../dominio/paginacion';
import {
  contrato,
  documento,
  dormir,
  escenario,
  facturaTimbrada,
  nuevaFactura,
  nuevaOrganizacion,
  paginasEsperadas,
  recorrer,
  refusal,
} from './soporte';

contrato('facturas', (impl) => {
  const cancelacion = (estado: Cancelacion['estado']): Cancelacion => ({
    estado,
    motivo: '02',
    uuid_sustitucion: null,
    solicitada_en: '2025-06-01T12:00:00.000Z',
    actualizada_en: '2025-06-01T12:00:00.000Z',
  });
  const sello = (xml: string) => ({
    xml,
    noCertificado: '30001000000500003416',
    documento: documento({ total: '58.00' }),
  });

  it('reads a new invoice as a draft: the document as an object, the total as the DECIMAL column keeps it', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevaFactura(impl(), a, org, {
      total: '116.00',
      metodo_pago: 'PUE',
      cliente_id: 'cli_1',
      timbrado_estado: 'pendiente',
    });
    expect(await impl().repos.facturas.obtener(a, id)).toEqual({
      id,
      modo: 'test',
      organizacion_id: org,
      cliente_id: 'cli_1',
      tipo: 'ingreso',
      estado: 'borrador',
      documento: documento({ total: '116.00', metodo_pago: 'PUE' }),
      total: '116.000000',
      metodo_pago: 'PUE',
      uuid: null,
      fecha_timbrado: null,
      no_certificado: null,
      no_certificado_sat: null,
      timbrado_estado: 'pendiente',
      timbrado_intentos: 0,
      timbrado_error: null,
      cancelacion: null,
      parcialidades: [],
      pago_id: null,
      creado_en: expect.any(Date),
      actualizado_en: expect.any(Date),
    });
    expect(await impl().repos.facturas.obtenerConSellado(a, id)).toMatchObject({ id, xmlSellado: null });
    expect(await impl().repos.facturas.xml(a, id)).toEqual({ sellado: null, timbrado: null });
    expect(await impl().repos.facturas.pdf(a, id)).toEqual({
      pdf: null,
      estado: 'borrador',
      timbrada: false,
    });
  });

  it('an id inserted twice is a duplicate-key error (not translated), and the first row stays', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevaFactura(impl(), a, org, { total: '1.00' });
    const otra = impl().transacciones.ejecutar((tx) =>
      impl().repos.facturas.insertar(tx, a, {
        id,
        organizacion_id: org,
        cliente_id: null,
        tipo: 'egreso',
        documento: documento({ total: '2.00' }),
        timbrado_estado: 'no_solicitado',
      }),
    );
    expect(await refusal(otra)).toBe('ER_DUP_ENTRY');
    expect(await impl().repos.facturas.obtener(a, id)).toMatchObject({ tipo: 'ingreso', total: '1.000000' });
  });

  it('a read document is a copy: changing it changes nothing stored', async () => {
    const { a } = await escenario(impl());
    const id = await nuevaFactura(impl(), a, await nuevaOrganizacion(impl(), a));
    const f = await impl().repos.facturas.obtener(a, id);
    f!.documento.cliente.rfc = 'CAMBIADO';
    expect((await impl().repos.facturas.obtener(a, id))!.documento.cliente.rfc).toBe('MASO451221PM4');
  });

  it('another account or mode never sees the invoice nor writes it', async () => {
    const { a, live, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const { id, uuid } = await facturaTimbrada(impl(), a, org);
    const antes = await impl().repos.facturas.obtener(a, id);
    const r = impl().repos.facturas;
    for (const fuera of [live, otra]) {
      expect(await r.obtener(fuera, id)).toBeUndefined();
      expect(await r.obtenerConSellado(fuera, id)).toBeUndefined();
      expect(await r.xml(fuera, id)).toBeUndefined();
      expect(await r.pdf(fuera, id)).toBeUndefined();
      expect(await r.datosPdf(fuera, id)).toBeUndefined();
      expect(await r.timbradaPorUuid(fuera, org, uuid)).toBeUndefined();
      expect((await r.listar(fuera, {}, { limite: 10 })).datos).toEqual([]);
      await r.guardarPdf(fuera, id, Buffer.from('%PDF ajeno'));
      await r.guardarSello(fuera, id, sello('<ajeno/>'));
      await r.contarIntento(fuera, id);
      await r.pedirTimbrado(fuera, id, documento({ total: '1.00' }));
      await r.guardarCancelacion(fuera, id, cancelacion('aceptada'), { cancelada: true });
      await impl().transacciones.ejecutar(async (tx) => {
        expect(await r.bloquear(tx, fuera, id)).toBeUndefined();
        expect(await r.bloquearVarias(tx, fuera, [id])).toEqual([]);
        await r.guardarRechazo(tx, fuera, id, { codigo: 'X', mensaje: 'ajeno' });
        await r.guardarTimbre(tx, fuera, id, {
          uuid: randomUUID(),
          xml: '<ajeno/>',
          fechaTimbrado: '2024-05-01T10:00:09',
          noCertificadoSat: '0',
        });
      });
    }
    expect(await r.obtener(a, id)).toEqual(antes);
    expect(await r.pdf(a, id)).toMatchObject({ pdf: null });
  });

  it('lists newest first, page by page, and by each filter', async () => {
    const { a } = await escenario(impl());
    const org1 = await nuevaOrganizacion(impl(), a);
    const org2 = await nuevaOrganizacion(impl(), a);
    const antes = new Date(Date.now() - 1000);
    const borradores = [];
    for (let i = 0; i < 3; i++) borradores.push(await nuevaFactura(impl(), a, org1));
    const deCliente = await nuevaFactura(impl(), a, org1, { cliente_id: 'cli_filtro', rfc: 'GOMA800101AB1' });
    const pendiente = await nuevaFactura(impl(), a, org2, { timbrado_estado: 'pendiente' });
    const timbrada = (await facturaTimbrada(impl(), a, org2)).id;
    const egreso = await nuevaFactura(impl(), a, org2, { tipo: 'egreso' });
    const todas = [...borradores, deCliente, pendiente, timbrada, egreso];
    const listar =
      (f: FiltrosFacturas = {}) =>
      (p: Pagina) =>
        impl().repos.facturas.listar(a, f, p);
    expect(await recorrer(listar(), 3)).toEqual(paginasEsperadas(todas, 3));
    expect(await recorrer(listar({ organizacionId: org1 }), 2)).toEqual(
      paginasEsperadas([...borradores, deCliente], 2),
    );
    expect(await recorrer(listar({ clienteId: 'cli_filtro' }), 10)).toEqual([[deCliente]]);
    expect(await recorrer(listar({ clienteRfc: 'GOMA800101AB1' }), 10)).toEqual([[deCliente]]);
    expect(await recorrer(listar({ estado: 'timbrada' }), 10)).toEqual([[timbrada]]);
    expect(await recorrer(listar({ tipo: 'egreso' }), 10)).toEqual([[egreso]]);
    expect(await recorrer(listar({ timbradoEstado: 'pendiente' }), 10)).toEqual([[pendiente]]);
    expect(await recorrer(listar({ creadaAntes: antes }), 10)).toEqual([[]]);
    expect(await recorrer(listar({ creadaDesde: antes }), 10)).toEqual(paginasEsperadas(todas, 10));
    expect(await recorrer(listar({ organizacionId: org2, tipo: 'ingreso', estado: 'borrador' }), 10)).toEqual(
      [[pendiente]],
    );
  });

  it("filters by the client RFC the document keeps (its indexed column, in the tables' collation)", async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevaFactura(impl(), a, org, { rfc: 'GOMA800101AB1' });
    await nuevaFactura(impl(), a, org);
    const porRfc = async (clienteRfc: string) =>
      (await impl().repos.facturas.listar(a, { clienteRfc }, { limite: 10 })).datos.map((f) => f.id);
    expect(await porRfc('GOMA800101AB1')).toEqual([id]);
    expect(await porRfc('goma800101ab1')).toEqual([id]);
    expect(await porRfc('GOMA800101AB2')).toEqual([]);
  });

  it('finds by UUID, and by the serie and folio the document keeps, ignoring case; never in another scope', async () => {
    const { a, live } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const conFolio = async (serie: string | undefined, folio: string) => {
      const doc = documento();
      Object.assign(doc.entrada, { serie, folio });
      return nuevaFactura(impl(), a, org, { documento: doc });
    };
    const a123 = await conFolio('A', '123');
    const b123 = await conFolio('Fac-B', '123');
    const sin = await conFolio(undefined, '123');
    await conFolio('A', '1234');
    const timbrada = await facturaTimbrada(impl(), a, org);
    const buscar = async (f: FiltrosFacturas) =>
      (await impl().repos.facturas.listar(a, f, { limite: 20 })).datos.map((x) => x.id).sort();

    expect(await buscar({ uuid: timbrada.uuid })).toEqual([timbrada.id]);
    expect(await buscar({ uuid: randomUUID().toUpperCase() })).toEqual([]);
    expect(await buscar({ serieFolio: [{ serie: null, folio: '123' }] })).toEqual([a123, b123, sin].sort());
    expect(await buscar({ serieFolio: [{ serie: 'a', folio: '123' }] })).toEqual([a123]);
    expect(
      await buscar({
        serieFolio: [
          { serie: null, folio: 'Fac-B-123' },
          { serie: 'Fac', folio: 'B-123' },
          { serie: 'FAC-B', folio: '123' },
        ],
      }),
    ).toEqual([b123]);
    expect(await buscar({ serieFolio: [{ serie: 'A', folio: '123' }], uuid: timbrada.uuid })).toEqual([]);
    const otra = await impl().repos.facturas.listar(
      live,
      { serieFolio: [{ serie: null, folio: '123' }] },
      { limite: 20 },
    );
    expect(otra.datos).toEqual([]);
  });

  it('the first sealing is kept: a second one changes nothing', async () => {
    const { a } = await escenario(impl());
    const id = await nuevaFactura(impl(), a, await nuevaOrganizacion(impl(), a), {
      timbrado_estado: 'pendiente',
    });
    expect(
      await impl().repos.facturas.guardarSello(a, id, sello('<primero/>'), { contarIntento: true }),
    ).toBe(true);
    expect(
      await impl().repos.facturas.guardarSello(
        a,
        id,
        { ...sello('<segundo/>'), noCertificado: '0' },
        {
          contarIntento: true,
        },
      ),
    ).toBe(false);
    // The winner's attempt is counted with its seal; the loser counts nothing.
    expect(await impl().repos.facturas.obtenerConSellado(a, id)).toMatchObject({
      xmlSellado: '<primero/>',
      no_certificado: '30001000000500003416',
      documento: documento({ total: '58.00' }),
      timbrado_intentos: 1,
    });
  });

  it('counts attempts and notes a transient error only while the stamping is pending', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const id = await nuevaFactura(impl(), a, org, { timbrado_estado: 'pendiente' });
    await impl().repos.facturas.contarIntento(a, id);
    await impl().repos.facturas.contarIntento(a, id);
    const error = { codigo: 'pac_no_disponible', mensaje: 'El PAC no responde', paso: 'pac' as const };
    await impl().repos.facturas.anotarErrorTransitorio(a, id, error);
    expect(await impl().repos.facturas.obtener(a, id)).toMatchObject({
      timbrado_intentos: 2,
      timbrado_error: error,
    });

    const borrador = await nuevaFactura(impl(), a, org);
    await impl().repos.facturas.anotarErrorTransitorio(a, borrador, error);
    expect(await impl().repos.facturas.obtener(a, borrador)).toMatchObject({ timbrado_error: null });
  });

  it('a stamp makes it timbrada under its upper-case UUID, found by it; a UUID of another invoice is RegistroDuplicado', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const uuid = randomUUID();
    const { id } = await facturaTimbrada(impl(), a, org, { uuid });
    expect(await impl().repos.facturas.obtener(a, id)).toMatchObject({
      estado: 'timbrada',
      timbrado_estado: 'timbrada',
      uuid: uuid.toUpperCase(),
      fecha_timbrado: '2024-05-01T10:00:05',
      no_certificado_sat: '30001000000500003456',
      timbrado_error: null,
    });
    expect(await impl().repos.facturas.xml(a, id)).toEqual({
      sellado: null,
      timbrado: `<cfdi:Comprobante Folio="${id}"/>`,
    });
    expect((await impl().repos.facturas.timbradaPorUuid(a, org, uuid.toLowerCase()))?.id).toBe(id);
    expect(
      await impl().repos.facturas.timbradaPorUuid(a, await nuevaOrganizacion(impl(), a), uuid),
    ).toBeUndefined();

    const otra = await nuevaFactura(impl(), a, org, { timbrado_estado: 'pendiente' });
    expect(
      await refusal(
        impl().transacciones.ejecutar((tx) =>
          impl().repos.facturas.guardarTimbre(tx, a, otra, {
            uuid,
            xml: '<otro/>',
            fechaTimbrado: '2024-05-01T10:00:06',
            noCertificadoSat: '30001000000500003456',
          }),
        ),
      ),
    ).toBe('RegistroDuplicado');
    expect(await impl().repos.facturas.obtener(a, otra)).toMatchObject({ estado: 'borrador', uuid: null });
  });

  it('a rejection drops the sealed XML and keeps the error; asking again clears it', async () => {
    const { a } = await escenario(impl());
    const id = await nuevaFactura(impl(), a, await nuevaOrganizacion(impl(), a), {
      timbrado_estado: 'pendiente',
    });
    await impl().repos.facturas.guardarSello(a, id, sello('<sellado/>'));
    const error = { codigo: 'CFDI40147', mensaje: 'RFC del receptor', paso: 'pac' as const };
    await impl().transacciones.ejecutar((tx) => impl().repos.facturas.guardarRechazo(tx, a, id, error));
    expect(await impl().repos.facturas.obtenerConSellado(a, id)).toMatchObject({
      estado: 'borrador',
      timbrado_estado: 'fallido',
      timbrado_error: error,
      xmlSellado: null,
    });
    await impl().repos.facturas.pedirTimbrado(a, id, documento({ total: '200.00' }));
    expect(await impl().repos.facturas.obtener(a, id)).toMatchObject({
      timbrado_estado: 'pendiente',
      timbrado_error: null,
      documento: documento({ total: '200.00' }),
    });
  });

  it('a cancellation is kept as an object; cancelada also moves the invoice', async () => {
    const { a } = await escenario(impl());
    const { id } = await facturaTimbrada(impl(), a, await nuevaOrganizacion(impl(), a));
    await impl().repos.facturas.guardarCancelacion(a, id, cancelacion('en_proceso'));
    expect(await impl().repos.facturas.obtener(a, id)).toMatchObject({
      estado: 'timbrada',
      cancelacion: cancelacion('en_proceso'),
    });
    await impl().transacciones.ejecutar((tx) =>
      impl().repos.facturas.guardarCancelacion(a, id, cancelacion('aceptada'), { cancelada: true, tx }),
    );
    expect(await impl().repos.facturas.obtener(a, id)).toMatchObject({
      estado: 'cancelada',
      cancelacion: cancelacion('aceptada'),
    });
  });

  it('the acuse goes with the cancellation: the first one stays unless replaced, byte for byte, in its scope', async () => {
    const { a, live, otra } = await escenario(impl());
    const { id } = await facturaTimbrada(impl(), a, await nuevaOrganizacion(impl(), a));
    const r = impl().repos.facturas;
    expect(await r.acuseCancelacion(a, id)).toEqual({ estado: 'timbrada', cancelacion: null, acuse: null });
    expect(await r.acuseCancelacion(a, 'fac_inexistente')).toBeUndefined();
    // Large, multi-byte and with a trailing newline: a LONGTEXT keeps it as it came.
    const primero = `<Acuse Fecha="2025-06-01T06:10:00">${'ñ'.repeat(70_000)}<EstatusUUID>201</EstatusUUID></Acuse>\n`;
    await impl().transacciones.ejecutar((tx) =>
      r.guardarCancelacion(a, id, cancelacion('en_proceso'), {
        tx,
        acuse: { xml: primero, fecha: '2025-06-01T06:10:00', reemplazar: false },
      }),
    );
    expect(await r.acuseCancelacion(a, id)).toEqual({
      estado: 'timbrada',
      cancelacion: cancelacion('en_proceso'),
      acuse: { xml: primero, fecha: '2025-06-01T06:10:00' },
    });
    // A repeat (202) keeps the first acuse and its date; the state still moves in the same write.
    await r.guardarCancelacion(a, id, cancelacion('aceptada'), {
      cancelada: true,
      acuse: { xml: '<Acuse EstatusUUID="202"/>', fecha: '2025-06-04T09:00:00', reemplazar: false },
    });
    expect(await r.acuseCancelacion(a, id)).toEqual({
      estado: 'cancelada',
      cancelacion: cancelacion('aceptada'),
      acuse: { xml: primero, fecha: '2025-06-01T06:10:00' },
    });
    // Without an acuse the write leaves the stored one alone.
    await r.guardarCancelacion(a, id, cancelacion('aceptada'), { cancelada: true });
    expect((await r.acuseCancelacion(a, id))?.acuse?.xml).toBe(primero);
    // Another scope neither reads nor writes it.
    for (const fuera of [live, otra]) {
      expect(await r.acuseCancelacion(fuera, id)).toBeUndefined();
      await r.guardarCancelacion(fuera, id, cancelacion('aceptada'), {
        acuse: { xml: '<ajeno/>', fecha: '2025-06-09T00:00:00', reemplazar: true },
      });
    }
    expect((await r.acuseCancelacion(a, id))?.acuse?.xml).toBe(primero);
    // A request the SAT took as new (201) replaces it, date included.
    await r.guardarCancelacion(a, id, cancelacion('aceptada'), {
      acuse: { xml: '<Acuse EstatusUUID="201"/>', fecha: '2025-06-05T10:00:00', reemplazar: true },
    });
    expect((await r.acuseCancelacion(a, id))?.acuse).toEqual({
      xml: '<Acuse EstatusUUID="201"/>',
      fecha: '2025-06-05T10:00:00',
    });
    // Never part of the invoice's own reads.
    expect(Object.keys((await r.obtener(a, id))!).some((k) => k.startsWith('acuse'))).toBe(false);
  });

  it('the first stored PDF wins; the PDF data carry the accent color', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a, { color_acento: '#ABCDEF' });
    const { id } = await facturaTimbrada(impl(), a, org);
    expect(await impl().repos.facturas.datosPdf(a, id)).toEqual({
      xmlTimbrado: `<cfdi:Comprobante Folio="${id}"/>`,
      tienePdf: false,
      colorAcento: '#ABCDEF',
    });
    await impl().repos.facturas.guardarPdf(a, id, Buffer.from('%PDF primero'));
    await impl().repos.facturas.guardarPdf(a, id, Buffer.from('%PDF segundo'));
    const pdf = await impl().repos.facturas.pdf(a, id);
    expect(pdf).toEqual({ pdf: Buffer.from('%PDF primero'), estado: 'timbrada', timbrada: true });
    expect(await impl().repos.facturas.datosPdf(a, id)).toMatchObject({ tienePdf: true });
  });

  it('folios count per organization and series, from 1', async () => {
    const { a } = await escenario(impl());
    const org1 = await nuevaOrganizacion(impl(), a);
    const org2 = await nuevaOrganizacion(impl(), a);
    const folio = (org: string, serie: string) =>
      impl().transacciones.ejecutar((tx) => impl().repos.facturas.siguienteFolio(tx, org, serie));
    expect([await folio(org1, 'A'), await folio(org1, 'A'), await folio(org1, 'A')]).toEqual(['1', '2', '3']);
    expect([await folio(org1, 'P'), await folio(org2, 'A'), await folio(org1, 'A')]).toEqual(['1', '1', '4']);
    // A folio taken in a transaction that rolled back is given again.
    await expect(
      impl().transacciones.ejecutar(async (tx) => {
        await impl().repos.facturas.siguienteFolio(tx, org2, 'A');
        throw new Error('deshecha');
      }),
    ).rejects.toThrow('deshecha');
    expect(await folio(org2, 'A')).toBe('2');
  });

  it('a lock returns the row alone; several are locked and read in id order with their ledger', async () => {
    const { a } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const ids = [
      await nuevaFactura(impl(), a, org),
      await nuevaFactura(impl(), a, org),
      await nuevaFactura(impl(), a, org),
    ];
    const desordenados = [ids[2]!, ids[0]!, nuevoId('fac'), ids[1]!];
    const [una, varias] = await impl().transacciones.ejecutar(
      async (tx) =>
        [
          await impl().repos.facturas.bloquear(tx, a, ids[0]!),
          await impl().repos.facturas.bloquearVarias(tx, a, desordenados),
        ] as const,
    );
    expect(una).toMatchObject({ id: ids[0], estado: 'borrador', total: '116.000000' });
    expect(una).not.toHaveProperty('parcialidades');
    expect(una).not.toHaveProperty('pago_id');
    expect(varias.map((f) => f.id)).toEqual([...ids].sort());
    expect(varias[0]).toMatchObject({ parcialidades: [], pago_id: null });
  });

  it('a second locker waits for the first transaction and reads what it committed', async () => {
    const { a } = await escenario(impl());
    const id = await nuevaFactura(impl(), a, await nuevaOrganizacion(impl(), a));
    const orden: string[] = [];
    let avisar!: () => void;
    const bloqueada = new Promise<void>((r) => (avisar = r));
    const primera = impl().transacciones.ejecutar(async (tx) => {
      await impl().repos.facturas.bloquear(tx, a, id);
      avisar();
      await dormir(150);
      await impl().repos.facturas.guardarCancelacion(a, id, cancelacion('solicitada'), { tx });
      orden.push('primera');
    });
    await bloqueada;
    const segunda = impl().transacciones.ejecutar(async (tx) => {
      const f = await impl().repos.facturas.bloquear(tx, a, id);
      orden.push('segunda');
      return f?.cancelacion;
    });
    await primera;
    expect(await segunda).toEqual(cancelacion('solicitada'));
    expect(orden).toEqual(['primera', 'segunda']);
  });

  it('pending work across accounts: stampings (not payment CFDIs) and cancellations in progress, oldest first', async () => {
    const { a, otra } = await escenario(impl());
    const org = await nuevaOrganizacion(impl(), a);
    const orgOtra = await nuevaOrganizacion(impl(), otra);
    const pend1 = await nuevaFactura(impl(), a, org, { timbrado_estado: 'pendiente' });
    await dormir(5);
    const pend2 = await nuevaFactura(impl(), otra, orgOtra, { timbrado_estado: 'pendiente' });
    const deUnPago = await nuevaFactura(impl(), a, org, { tipo: 'pago', timbrado_estado: 'pendiente' });
    const borrador = await nuevaFactura(impl(), a, org);
    const solicitada = (await facturaTimbrada(impl(), a, org)).id;
    await impl().repos.facturas.guardarCancelacion(a, solicitada, cancelacion('solicitada'));
    await dormir(5);
    const enProceso = (await facturaTimbrada(impl(), otra, orgOtra)).id;
    await impl().repos.facturas.guardarCancelacion(otra, enProceso, cancelacion('en_proceso'));
    const aceptada = (await facturaTimbrada(impl(), a, org)).id;
    await impl().repos.facturas.guardarCancelacion(a, aceptada, cancelacion('aceptada'), { cancelada: true });
    await dormir(5);
    const mias = [pend1, pend2, deUnPago, borrador, solicitada, enProceso, aceptada];

    const r = await impl().repos.facturas.procesosPendientes(new Date(Date.now() + 1000), 10_000);
    const propias = (l: { id: string }[]) => l.filter((p) => mias.includes(p.id));
    expect(propias(r.timbrados)).toEqual([
      { id: pend1, cuenta_id: a.cuentaId, modo: 'test', organizacion_id: org },
      { id: pend2, cuenta_id: otra.cuentaId, modo: 'test', organizacion_id: orgOtra },
    ]);
    expect(propias(r.cancelaciones).map((p) => p.id)).toEqual([solicitada, enProceso]);
    // Touched after `antesDe`: not yet due.
    const temprano = await impl().repos.facturas.procesosPendientes(new Date(Date.now() - 60_000), 10_000);
    expect(propias([...temprano.timbrados, ...temprano.cancelaciones])).toEqual([]);
  });

  it('counts the pending stampings of the whole service', async () => {
    const { a } = await escenario(impl());
    const antes = await impl().repos.facturas.pendientesDeTimbrar();
    await nuevaFactura(impl(), a, await nuevaOrganizacion(impl(), a), { timbrado_estado: 'pendiente' });
    const despues = await impl().repos.facturas.pendientesDeTimbrar();
    expect(despues.pendientes).toBe(antes.pendientes + 1);
    expect(despues.masAntiguoSegundos).toBeGreaterThanOrEqual(0);
  });
});
