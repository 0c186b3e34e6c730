import { crearContextoActividad, tablaFacturas } from '../support/memoria';
import { tablaLibro, tablaPagos } from '../support/memoria/pagos';
import { crearEntornoActividades } from '../support/memoria/servicios';

let x: Awaited<ReturnType<typeof crearEntornoActividades>>;
beforeEach(async () => {
  x = await crearEntornoActividades();
});

/** A stamped PPD invoice of the seeded client. */
const ppd = () => x.facturar({ metodo_pago: 'PPD', forma_pago: undefined });

const eventos = async () => (await x.s.eventos.listar(x.a, {}, { limite: 100 })).datos;

describe('registrarPagoEnLibro', () => {
  it('registra el libro, el CFDI de pago en borrador y pago.creado juntos; repetirlo no cambia nada', async () => {
    const f = await ppd();
    const e = await x.pedirPago([{ factura: f.id, imp_pagado: '100.00' }]);
    const paso = await x.act.registrarPagoEnLibro(e);
    if (paso.estado !== 'registrado') throw new Error(JSON.stringify(paso));
    const cfdi = tablaFacturas(x.m.almacen).buscar(paso.facturaPagoId)!;
    expect(cfdi).toMatchObject({
      tipo: 'pago',
      estado: 'borrador',
      timbrado_estado: 'pendiente',
      total: '0.000000',
    });
    expect(cfdi.documento.pago?.id).toBe(e.pagoId);
    expect(tablaLibro(x.m.almacen).todas()).toEqual([
      expect.objectContaining({
        factura: f.id,
        num_parcialidad: 1,
        // The ledger's DECIMAL(24,6) column.
        imp_saldo_anterior: Number(f.total).toFixed(6),
        vigente: true,
      }),
    ]);
    const creados = (await eventos()).filter((ev) => ev.tipo === 'pago.creado');
    expect(creados.map((ev) => ev.datos.id)).toEqual([e.pagoId]);

    const antes = x.m.almacen.volcado();
    expect(await x.act.registrarPagoEnLibro(e)).toEqual(paso);
    expect(x.m.almacen.volcado()).toBe(antes);
  });

  it('una regla rota solo escribe el rechazo: sin libro, sin CFDI, sin evento; repetirlo da el mismo rechazo', async () => {
    const f = await ppd();
    const e = await x.pedirPago([{ factura: f.id, imp_pagado: '999999.00' }]);
    const facturasAntes = tablaFacturas(x.m.almacen).todas().length;
    const paso = await x.act.registrarPagoEnLibro(e);
    expect(paso).toMatchObject({ estado: 'rechazado', error: { codigo: 'importe_excede_saldo' } });
    expect(tablaLibro(x.m.almacen).todas()).toEqual([]);
    expect(tablaFacturas(x.m.almacen).todas()).toHaveLength(facturasAntes);
    expect((await eventos()).some((ev) => ev.tipo === 'pago.creado')).toBe(false);
    expect(tablaPagos(x.m.almacen).buscar(e.pagoId)).toMatchObject({ estado: 'rechazado' });
    expect(await x.act.registrarPagoEnLibro(e)).toEqual(paso);
  });

  it('sin CSD activo rechaza con sin_certificado_activo', async () => {
    const f = await ppd();
    await x.s.certificados.cambiarActivo(x.a, x.ids.cert!, false);
    const paso = await x.act.registrarPagoEnLibro(await x.pedirPago([{ factura: f.id, imp_pagado: '1.00' }]));
    expect(paso).toMatchObject({ estado: 'rechazado', error: { codigo: 'sin_certificado_activo' } });
  });

  it('las parcialidades siguen: la segunda parte del saldo que dejó la primera', async () => {
    const f = await ppd();
    await x.act.registrarPagoEnLibro(await x.pedirPago([{ factura: f.id, imp_pagado: '10.00' }]));
    await x.act.registrarPagoEnLibro(await x.pedirPago([{ factura: f.id, imp_pagado: '5.50' }]));
    const leida = await x.s.facturas.obtener(x.a, f.id);
    expect(leida.parcialidades.map((p) => [p.num_parcialidad, p.imp_pagado])).toEqual([
      [1, '10.00'],
      [2, '5.50'],
    ]);
    expect(leida.saldo_insoluto).toBe((Number(f.total) - 15.5).toFixed(2));
    expect(leida.num_parcialidades).toBe(2);
  });

  it('cancelar el CFDI de pago devuelve el saldo y la factura pagada ya puede cancelarse', async () => {
    const f = await ppd();
    const paso = await x.act.registrarPagoEnLibro(
      await x.pedirPago([{ factura: f.id, imp_pagado: '10.00' }]),
    );
    if (paso.estado !== 'registrado') throw new Error('no registrado');
    await x.act.prepararTimbrado(x.entrada(paso.facturaPagoId));
    const enviar = () => x.act.enviarAlPac(x.entrada(paso.facturaPagoId));
    expect(await crearContextoActividad({ local: true }).ejecutar(enviar)).toMatchObject({
      estado: 'timbrada',
    });

    const conPago = await x.s.facturas.obtener(x.a, f.id);
    expect(conPago.saldo_insoluto).toBe((Number(f.total) - 10).toFixed(2));
    await expect(x.s.facturas.cancelar(x.a, f.id, { motivo: '02' })).rejects.toMatchObject({
      codigo: 'factura_con_pagos_vigentes',
    });

    x.s.cancelador.desenlace('sin_respuesta');
    await x.s.facturas.cancelar(x.a, paso.facturaPagoId, { motivo: '02' });
    expect(await x.act.solicitarCancelacion(x.entrada(paso.facturaPagoId))).toBe('cancelada');
    const devuelta = await x.s.facturas.obtener(x.a, f.id);
    expect(devuelta).toMatchObject({ saldo_insoluto: f.total, num_parcialidades: 0, parcialidades: [] });
    expect(tablaLibro(x.m.almacen).todas()).toEqual([expect.objectContaining({ vigente: false })]);
    x.s.cancelador.desenlace('aceptada');
    expect((await x.s.facturas.cancelar(x.a, f.id, { motivo: '02' })).pendiente).toBe(false);
  });
});
