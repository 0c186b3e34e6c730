import { nuevoId } from '../../db/ids';
import type { Alcance } from '../../dominio/alcance';
import type { Cancelacion } from '../../dominio/factura';
import {
  contrato,
  documento,
  dormir,
  escenario,
  facturaTimbrada,
  nuevaOrganizacion,
  nuevoEvento,
  nuevoPago,
  parcialidad,
  rfcAleatorio,
  type Implementacion,
} from './soporte';

contrato('correos', (impl) => {
  /** An organization, a client with `correo` and a stamped invoice of it with these additional addresses. */
  async function facturaConCliente(
    i: Implementacion,
    a: Alcance,
    o: { correo?: string | null; adicionales?: string[]; enviar?: boolean } = {},
  ) {
    const org = await nuevaOrganizacion(i, a);
    const cli = nuevoId('cli');
    await i.repos.clientes.insertar(
      a,
      cli,
      {
        organizacion_id: org,
        rfc: rfcAleatorio(),
        nombre: 'CLIENTE DE PRUEBA',
        regimen_fiscal: '601',
        domicilio_fiscal: '42501',
        uso_cfdi: 'G03',
        correo: o.correo === undefined ? 'cliente@ejemplo.mx' : o.correo,
      },
      new Date(),
    );
    const doc = {
      ...documento(),
      correo: { enviar: o.enviar ?? true, adicionales: o.adicionales ?? [] },
    };
    const f = await facturaTimbrada(i, a, org, { cliente_id: cli, documento: doc });
    return { org, cli, factura: f.id };
  }
  const paraDespacho = async (i: Implementacion, evento: string) =>
    (await i.repos.eventos.paraDespacho(evento))!;

  it('an invoice event gets one email to its client and additional addresses; repeated, the same one', async () => {
    const { a } = await escenario(impl());
    const { org, factura } = await facturaConCliente(impl(), a, {
      adicionales: ['b@ejemplo.mx', 'CLIENTE@ejemplo.mx'],
    });
    const evento = await nuevoEvento(impl(), a, 'factura.timbrada', { id: factura });
    const creados = await impl().repos.correos.crearParaEvento(await paraDespacho(impl(), evento));
    expect(creados).toEqual([
      {
        id: expect.stringMatching(/^cor_/),
        cuenta_id: a.cuentaId,
        modo: 'test',
        factura_id: factura,
        organizacion_id: org,
      },
    ]);
    expect(await impl().repos.correos.crearParaEvento(await paraDespacho(impl(), evento))).toEqual(creados);
    expect(await impl().repos.correos.obtener(a, creados[0]!.id)).toMatchObject({
      factura_id: factura,
      evento_id: evento,
      motivo: 'timbrado',
      destinatarios: ['cliente@ejemplo.mx', 'b@ejemplo.mx'],
      estado: 'pendiente',
      intentos: 0,
      respuesta_smtp: null,
      error: null,
      enviado_en: null,
    });
    const cancelada = await nuevoEvento(impl(), a, 'factura.cancelada', { id: factura });
    const [otro] = await impl().repos.correos.crearParaEvento(await paraDespacho(impl(), cancelada));
    expect((await impl().repos.correos.obtener(a, otro!.id))!.motivo).toBe('cancelacion');
  });

  it("a payment CFDI's email goes to its client and to the additional addresses of the invoices it paid", async () => {
    const { a } = await escenario(impl());
    const pagada = await facturaConCliente(impl(), a, { adicionales: ['cxp@ejemplo.mx'] });
    const otra = await facturaConCliente(impl(), a, { adicionales: ['nadie@ejemplo.mx'], enviar: false });
    const pagoId = await nuevoPago(impl(), a, pagada.org, [
      { factura: pagada.factura, imp_pagado: '10.00' },
      { factura: otra.factura, imp_pagado: '10.00' },
    ]);
    // The payment CFDI: its document names its payment; its own client has an address.
    const cfdi = await facturaConCliente(impl(), a);
    await impl().transacciones.ejecutar(async (tx) => {
      const doc = (await impl().repos.facturas.obtener(a, cfdi.factura, tx))!.documento;
      await impl().repos.facturas.insertar(tx, a, {
        id: `${cfdi.factura}p`,
        organizacion_id: cfdi.org,
        cliente_id: (await impl().repos.facturas.obtener(a, cfdi.factura, tx))!.cliente_id,
        tipo: 'pago',
        documento: { ...doc, correo: undefined, pago: { id: pagoId, complemento: {} as never } },
        timbrado_estado: 'no_solicitado',
      });
      const montos = { anterior: '116.00', pagado: '10.00', insoluto: '106.00' };
      await impl().repos.pagos.registrar(tx, a, pagoId, `${cfdi.factura}p`, [
        parcialidad(pagada.factura, 1, montos),
        parcialidad(otra.factura, 1, montos),
      ]);
    });
    expect(await impl().repos.correos.destinatarios(a, `${cfdi.factura}p`)).toEqual({
      correoAutomatico: true,
      preferencias: { enviar: true, adicionales: ['cxp@ejemplo.mx'] },
      correoCliente: 'cliente@ejemplo.mx',
    });
    expect(
      await impl().repos.correos.destinatarios({ ...a, modo: 'live' }, `${cfdi.factura}p`),
    ).toBeUndefined();
  });

  it('no email: other event types, an invoice that opted out, automatic email off, nobody to send to, another scope', async () => {
    const { a, otra } = await escenario(impl());
    const crear = async (alcance: Alcance, tipo: 'factura.timbrada' | 'factura.creada', factura: string) =>
      impl().repos.correos.crearParaEvento(
        await paraDespacho(impl(), await nuevoEvento(impl(), alcance, tipo, { id: factura })),
      );
    const base = await facturaConCliente(impl(), a);
    expect(await crear(a, 'factura.creada', base.factura)).toEqual([]);
    expect(await crear(otra, 'factura.timbrada', base.factura)).toEqual([]);
    expect(
      await crear(a, 'factura.timbrada', (await facturaConCliente(impl(), a, { enviar: false })).factura),
    ).toEqual([]);
    expect(
      await crear(a, 'factura.timbrada', (await facturaConCliente(impl(), a, { correo: null })).factura),
    ).toEqual([]);
    await impl().repos.organizaciones.actualizar(a, base.org, { correo_automatico: false }, new Date());
    expect(await crear(a, 'factura.timbrada', base.factura)).toEqual([]);
    expect((await impl().repos.correos.listar(a, {}, { limite: 10 })).datos).toEqual([]);
  });

  it('a resend, its sweep when its workflow never started, scoped reads and lists by invoice and state', async () => {
    const { a, live, otra } = await escenario(impl());
    const { org, factura } = await facturaConCliente(impl(), a);
    const uno = await impl().transacciones.ejecutar((tx) =>
      impl().repos.correos.crearReenvio(tx, a, { id: factura, organizacion_id: org }, ['x@ejemplo.mx']),
    );
    const dos = await impl().transacciones.ejecutar((tx) =>
      impl().repos.correos.crearReenvio(tx, a, { id: factura, organizacion_id: org }, ['y@ejemplo.mx']),
    );
    expect(uno).toEqual({
      id: uno.id,
      cuenta_id: a.cuentaId,
      modo: 'test',
      factura_id: factura,
      organizacion_id: org,
    });
    expect(await impl().repos.correos.obtener(live, uno.id)).toBeUndefined();
    expect(await impl().repos.correos.obtener(otra, uno.id)).toBeUndefined();
    await dormir(3);
    const barrido = (await impl().repos.correos.sinIniciar(new Date(), 1000)).filter((c) =>
      [uno.id, dos.id].includes(c.id),
    );
    expect(barrido).toEqual([uno, dos]);
    await impl().repos.correos.anotarIntento(a, uno.id, {
      numero: 1,
      respuesta: 'ECONNREFUSED',
      en: new Date(),
    });
    expect((await impl().repos.correos.sinIniciar(new Date(), 1000)).map((c) => c.id)).not.toContain(uno.id);

    const fin = {
      estado: 'enviado' as const,
      numero: 1,
      respuesta: '250 ok',
      error: null,
      en: new Date('2025-06-01T12:00:00.000Z'),
    };
    await impl().transacciones.ejecutar((tx) => impl().repos.correos.terminar(tx, a, dos.id, fin));
    const porFactura = await impl().repos.correos.listar(a, { facturaId: factura }, { limite: 1 });
    expect(porFactura).toEqual({ datos: [expect.objectContaining({ id: dos.id })], hayMas: true });
    const pendientes = await impl().repos.correos.listar(a, { estado: 'pendiente' }, { limite: 10 });
    expect(pendientes.datos.map((c) => c.id)).toEqual([uno.id]);
    expect((await impl().repos.correos.listar(otra, {}, { limite: 10 })).datos).toEqual([]);
  });

  it('an attempt is noted while pending; the end is written once (a retried activity writes no second event)', async () => {
    const { a } = await escenario(impl());
    const { org, factura } = await facturaConCliente(impl(), a);
    const c = await impl().transacciones.ejecutar((tx) =>
      impl().repos.correos.crearReenvio(tx, a, { id: factura, organizacion_id: org }, ['x@ejemplo.mx']),
    );
    const en = new Date('2025-06-01T12:00:00.000Z');
    await impl().repos.correos.anotarIntento(a, c.id, { numero: 1, respuesta: '451 busy', en });
    expect(await impl().repos.correos.obtener(a, c.id)).toMatchObject({
      intentos: 1,
      respuesta_smtp: '451 busy',
      ultimo_intento_en: en,
      estado: 'pendiente',
    });
    const fin = {
      estado: 'fallido' as const,
      numero: 2,
      respuesta: '550 no',
      error: { codigo: 'destinatario_rechazado', mensaje: 'no' },
      en,
    };
    expect(await impl().transacciones.ejecutar((tx) => impl().repos.correos.terminar(tx, a, c.id, fin))).toBe(
      true,
    );
    expect(
      await impl().transacciones.ejecutar((tx) =>
        impl().repos.correos.terminar(tx, a, c.id, { ...fin, estado: 'enviado' }),
      ),
    ).toBe(false);
    await impl().repos.correos.anotarIntento(a, c.id, { numero: 3, respuesta: 'tarde', en });
    expect(await impl().repos.correos.obtener(a, c.id)).toMatchObject({
      estado: 'fallido',
      intentos: 2,
      respuesta_smtp: '550 no',
      error: { codigo: 'destinatario_rechazado', mensaje: 'no' },
      enviado_en: null,
    });
  });

  it('what a message is made of: the stamped XML, the PDF once stored, and the acuse only once cancelled', async () => {
    const { a } = await escenario(impl());
    const { org, factura } = await facturaConCliente(impl(), a);
    await impl().repos.organizaciones.actualizar(a, org, { correo: 'org@ejemplo.mx' }, new Date());
    const c = await impl().transacciones.ejecutar((tx) =>
      impl().repos.correos.crearReenvio(tx, a, { id: factura, organizacion_id: org }, ['x@ejemplo.mx']),
    );
    expect(await impl().repos.correos.estadoParaEnvio(a, c.id)).toEqual({
      estado: 'pendiente',
      motivo: 'reenvio',
      tienePdf: false,
    });
    await impl().repos.facturas.guardarPdf(a, factura, Buffer.from('%PDF'));
    expect((await impl().repos.correos.estadoParaEnvio(a, c.id))!.tienePdf).toBe(true);
    const cancelacion: Cancelacion = {
      estado: 'aceptada',
      motivo: '02',
      uuid_sustitucion: null,
      solicitada_en: '2025-06-01T12:00:00.000Z',
      actualizada_en: '2025-06-01T12:00:00.000Z',
    };
    const acuse = { xml: '<Acuse/>', fecha: '2025-06-01T12:00:01', reemplazar: true };
    await impl().repos.facturas.guardarCancelacion(
      a,
      factura,
      { ...cancelacion, estado: 'en_proceso' },
      { acuse },
    );
    let m = (await impl().repos.correos.materiales(a, c.id))!;
    expect(m.factura).toMatchObject({
      id: factura,
      estado: 'timbrada',
      xml_timbrado: `<cfdi:Comprobante Folio="${factura}"/>`,
      acuse: null,
    });
    expect(m.factura.pdf!.toString()).toBe('%PDF');
    expect(m.organizacion).toEqual({
      nombre: 'ORGANIZACION DE PRUEBA',
      rfc: expect.any(String),
      correo: 'org@ejemplo.mx',
    });
    await impl().repos.facturas.guardarCancelacion(a, factura, cancelacion, { cancelada: true });
    m = (await impl().repos.correos.materiales(a, c.id))!;
    expect(m.factura).toMatchObject({
      estado: 'cancelada',
      acuse: '<Acuse/>',
      cancelacion: { motivo: '02' },
    });
    expect(
      await impl().repos.correos.materiales({ cuentaId: a.cuentaId, modo: 'live' }, c.id),
    ).toBeUndefined();
  });
});
