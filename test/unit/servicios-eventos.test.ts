import type { TipoEvento } from '../../db/repositorios/eventos';
import { alcanceSistema, type Alcance } from '../../dominio/alcance';
import { alcance, crearContextoActividad } from '../support/memoria';
import {
  crearEntornoActividades,
  crearServiciosEnMemoria,
  errorNegocio,
  sembrar,
  solicitudFactura,
  type ServiciosEnMemoria,
} from '../support/memoria/servicios';

const a = alcance();
let s: ServiciosEnMemoria;

beforeEach(() => {
  s = crearServiciosEnMemoria();
});

const registrar = (alc: Alcance, tipo: TipoEvento, datos: object) =>
  s.m.transacciones.ejecutar((tx) => s.m.eventos.registrar(tx, alc, tipo, datos));

describe('eventos', () => {
  it('se obtiene con sus datos; de otra cuenta o modo, o inexistente → evento_no_encontrado', async () => {
    const id = await registrar(a, 'factura.creada', { id: 'fac_1', total: '10.00' });
    expect(await s.eventos.obtener(a, id)).toMatchObject({
      id,
      objeto: 'evento',
      modo: 'test',
      tipo: 'factura.creada',
      datos: { id: 'fac_1', total: '10.00' },
    });
    for (const [alc, buscado] of [
      [alcance('cta_b'), id],
      [alcance('cta_a', 'live'), id],
      [a, 'evt_inexistente'],
    ] as const) {
      const e = await errorNegocio(s.eventos.obtener(alc, buscado));
      expect([e.tipo, e.codigo, e.parametro]).toEqual(['no_encontrado', 'evento_no_encontrado', 'id']);
    }
  });

  it('lista por tipo, de la más nueva a la más vieja, por páginas', async () => {
    const ids = [];
    for (const tipo of ['factura.creada', 'factura.timbrada', 'factura.creada', 'factura.cancelada'] as const)
      ids.push(await registrar(a, tipo, { tipo }));
    await registrar(alcance('cta_b'), 'factura.creada', {});
    const creadas = [ids[0], ids[2]].sort().reverse();
    const p1 = await s.eventos.listar(a, { tipo: 'factura.creada' }, { limite: 1 });
    const p2 = await s.eventos.listar(
      a,
      { tipo: 'factura.creada' },
      { limite: 1, despuesDe: p1.datos[0]!.id },
    );
    expect([p1.hayMas, p2.hayMas]).toEqual([true, false]);
    expect([...p1.datos, ...p2.datos].map((e) => e.id)).toEqual(creadas);
    expect((await s.eventos.listar(a, {}, { limite: 10 })).datos).toHaveLength(4);
  });

  it('un evento escrito en una transacción que falla no queda', async () => {
    await expect(
      s.m.transacciones.ejecutar(async (tx) => {
        await s.m.eventos.registrar(tx, a, 'factura.creada', {});
        throw new Error('la transición falló');
      }),
    ).rejects.toThrow('la transición falló');
    expect((await s.eventos.listar(a, {}, { limite: 10 })).datos).toEqual([]);
  });
});

describe('quién actuó y en qué solicitud', () => {
  const origen = { solicitudId: 'req_prueba_0001', llaveId: a.llaveId };

  it('el actor es la llave de la solicitud detrás del evento, la escribiera ella o la operación que inició; si no, sistema', async () => {
    const porLlave = await registrar({ ...a, origen }, 'factura.creada', { id: 'fac_1' });
    const porSistema = await registrar(alcanceSistema({ ...a, origen }), 'factura.timbrada', { id: 'fac_1' });
    const sinSolicitud = await registrar(alcanceSistema(a), 'certificado.vencido', { id: 'cert_1' });
    expect(await s.eventos.obtener(a, porLlave)).toMatchObject({
      actor: { tipo: 'llave', id: a.llaveId },
      solicitud: { id: 'req_prueba_0001', llave: a.llaveId },
    });
    expect(await s.eventos.obtener(a, porSistema)).toMatchObject({
      actor: { tipo: 'llave', id: a.llaveId },
      solicitud: { id: 'req_prueba_0001', llave: a.llaveId },
    });
    expect(await s.eventos.obtener(a, sinSolicitud)).toMatchObject({
      actor: { tipo: 'sistema', id: null },
      solicitud: null,
    });
  });

  it('el servicio de facturas pasa el alcance de la solicitud: factura.creada lleva la llave y la solicitud', async () => {
    const ids = await sembrar(s, a);
    const { factura } = await s.facturas.crear(
      { ...a, origen },
      solicitudFactura(ids, { auto_timbrar: false }),
    );
    const [e] = (await s.eventos.listar(a, { factura: factura.id }, { limite: 10 })).datos;
    expect(e).toMatchObject({
      tipo: 'factura.creada',
      actor: { tipo: 'llave', id: a.llaveId },
      solicitud: { id: origen.solicitudId, llave: a.llaveId },
    });
  });
});

describe('eventos de una factura y de un pago (GET /v1/eventos?factura=…&pago=…)', () => {
  let x: Awaited<ReturnType<typeof crearEntornoActividades>>;
  const origen = (n: number) => ({ solicitudId: `req_prueba_${n}`, llaveId: 'llave_prueba' });

  /** A PPD invoice stamped by the activities (its `factura.timbrada` written as the worker writes it). */
  async function ppdTimbrada(n: number) {
    x.s.timbrador.desenlace('pendiente');
    const f = await x.facturar({ metodo_pago: 'PPD', forma_pago: undefined });
    const e = { ...x.entrada(f.id), origen: origen(n) };
    expect(await x.act.prepararTimbrado(e)).toMatchObject({ estado: 'listo' });
    expect(await crearContextoActividad().ejecutar(() => x.act.enviarAlPac(e))).toMatchObject({
      estado: 'timbrada',
    });
    return f;
  }

  /** A payment of `factura` through the ledger step, and its CFDI stamped (no request behind that stamping). */
  async function pagar(factura: { id: string }, n: number) {
    const entrada = await x.pedirPago([{ factura: factura.id, imp_pagado: '100.00' }]);
    const paso = await x.act.registrarPagoEnLibro({ ...entrada, origen: origen(n) });
    if (paso.estado !== 'registrado') throw new Error(JSON.stringify(paso));
    const e = x.entrada(paso.facturaPagoId);
    expect(await x.act.prepararTimbrado(e)).toMatchObject({ estado: 'listo' });
    await crearContextoActividad().ejecutar(() => x.act.enviarAlPac(e));
    return { pagoId: entrada.pagoId, cfdi: paso.facturaPagoId };
  }

  const ids = async (filtros: Parameters<ServiciosEnMemoria['eventos']['listar']>[1]) =>
    (await x.s.eventos.listar(x.a, filtros, { limite: 100 })).datos.map((e) => `${e.tipo} ${e.datos.id}`);

  beforeEach(async () => {
    x = await crearEntornoActividades();
  });

  it('una factura: los suyos, el pago.creado de sus pagos y los de sus CFDI de pago; nada de otras facturas', async () => {
    const f = await ppdTimbrada(1);
    const otra = await ppdTimbrada(2);
    const { pagoId, cfdi } = await pagar(f, 3);
    await pagar(otra, 4);
    expect(await ids({ factura: f.id })).toEqual([
      `factura.timbrada ${cfdi}`,
      `pago.creado ${pagoId}`,
      `factura.timbrada ${f.id}`,
    ]);
    expect(await ids({ pago: pagoId })).toEqual([`factura.timbrada ${cfdi}`, `pago.creado ${pagoId}`]);
    // The payment CFDI's own list: its events and its payment's.
    expect(await ids({ factura: cfdi })).toEqual([`factura.timbrada ${cfdi}`, `pago.creado ${pagoId}`]);
    expect(await ids({ factura: f.id, tipo: 'pago.creado' })).toEqual([`pago.creado ${pagoId}`]);
    expect(await ids({ factura: f.id, pago: pagoId, tipo: 'factura.timbrada' })).toEqual([
      `factura.timbrada ${cfdi}`,
    ]);

    // Written by the worker; the actor is the key of the request that started each operation (the CFDI's stamping
    // here was run without one: sistema).
    const eventos = (await x.s.eventos.listar(x.a, { factura: f.id }, { limite: 100 })).datos;
    expect(eventos.map((e) => [e.actor, e.solicitud])).toEqual([
      [{ tipo: 'sistema', id: null }, null],
      [
        { tipo: 'llave', id: 'llave_prueba' },
        { id: 'req_prueba_3', llave: 'llave_prueba' },
      ],
      [
        { tipo: 'llave', id: 'llave_prueba' },
        { id: 'req_prueba_1', llave: 'llave_prueba' },
      ],
    ]);
  });

  it('por páginas, de la más nueva a la más vieja', async () => {
    const f = await ppdTimbrada(1);
    await pagar(f, 2);
    const todos = (await x.s.eventos.listar(x.a, { factura: f.id }, { limite: 100 })).datos.map((e) => e.id);
    const vistos: string[] = [];
    let despuesDe: string | undefined;
    for (;;) {
      const p = await x.s.eventos.listar(x.a, { factura: f.id }, { limite: 1, despuesDe });
      vistos.push(...p.datos.map((e) => e.id));
      if (!p.hayMas) break;
      despuesDe = p.datos[0]!.id;
    }
    expect(vistos).toEqual(todos);
    expect(todos).toHaveLength(3);
  });

  it('una factura o un pago de otra cuenta, de otro modo o inexistentes → 404 con su parámetro', async () => {
    const f = await ppdTimbrada(1);
    const { pagoId } = await pagar(f, 2);
    for (const alc of [alcance('cta_b'), alcance(x.a.cuentaId, 'live')]) {
      const ef = await errorNegocio(x.s.eventos.listar(alc, { factura: f.id }, { limite: 10 }));
      expect([ef.tipo, ef.codigo, ef.parametro]).toEqual([
        'no_encontrado',
        'factura_no_encontrada',
        'factura',
      ]);
      const ep = await errorNegocio(x.s.eventos.listar(alc, { pago: pagoId }, { limite: 10 }));
      expect([ep.tipo, ep.codigo, ep.parametro]).toEqual(['no_encontrado', 'pago_no_encontrado', 'pago']);
    }
    const e = await errorNegocio(x.s.eventos.listar(x.a, { factura: 'fac_inexistente' }, { limite: 10 }));
    expect(e.codigo).toBe('factura_no_encontrada');
  });
});
