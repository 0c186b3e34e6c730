import { randomBytes } from 'node:crypto';
import { nuevoId } from '../../db/ids';
import type { FilaPendiente } from '../../db/repositorios/pendientes';
import type { Alcance } from '../../dominio/alcance';
import type { Cancelacion } from '../../dominio/factura';
import {
  contrato,
  dormir,
  escenario,
  facturaTimbrada,
  nuevaFactura,
  nuevaOrganizacion,
  nuevoEvento,
  nuevoPago,
  nuevoWebhook,
  recorrer,
  type Implementacion,
} from './soporte';

contrato('pendientes', (impl) => {
  const cancelacion = (estado: Cancelacion['estado'], solicitada_en: string): Cancelacion => ({
    estado,
    motivo: '02',
    uuid_sustitucion: null,
    solicitada_en,
    actualizada_en: solicitada_en,
  });

  /** One pending operation of every kind in `a` (the first organization's but for the payment), and finals. */
  async function todas(i: Implementacion, a: Alcance) {
    const org = await nuevaOrganizacion(i, a);
    const otraOrg = await nuevaOrganizacion(i, a);
    const ids: Record<string, string> = {};

    ids.timbrado = await nuevaFactura(i, a, org, { timbrado_estado: 'pendiente' });
    await i.repos.facturas.contarIntento(a, ids.timbrado);
    await i.repos.facturas.contarIntento(a, ids.timbrado);
    await i.repos.facturas.anotarErrorTransitorio(a, ids.timbrado, {
      codigo: 'pac_no_disponible',
      mensaje: 'El PAC no respondió (stamp: el PAC no respondió en 20000 ms).',
      paso: 'pac',
    });

    const cancelada = await facturaTimbrada(i, a, org);
    ids.cancelacion = cancelada.id;
    await i.repos.facturas.guardarCancelacion(
      a,
      cancelada.id,
      cancelacion('en_proceso', '2025-06-01T10:42:00.000Z'),
    );
    // Final ones are not pending: a stamped invoice, an accepted cancellation, a refused stamping.
    const aceptada = await facturaTimbrada(i, a, org);
    await i.repos.facturas.guardarCancelacion(
      a,
      aceptada.id,
      cancelacion('aceptada', '2025-06-01T10:40:00.000Z'),
    );
    const rechazada = await nuevaFactura(i, a, org, { timbrado_estado: 'pendiente' });
    await i.transacciones.ejecutar((tx) =>
      i.repos.facturas.guardarRechazo(tx, a, rechazada, { codigo: 'CFDI40145', mensaje: 'no', paso: 'pac' }),
    );

    ids.pago = await nuevoPago(i, a, otraOrg, [{ factura: cancelada.id, imp_pagado: '10.00' }]);

    const correo = await i.transacciones.ejecutar((tx) =>
      i.repos.correos.crearReenvio(tx, a, { id: cancelada.id, organizacion_id: org }, ['a@ejemplo.mx']),
    );
    ids.correo = correo.id;
    await i.repos.correos.anotarIntento(a, correo.id, {
      numero: 2,
      respuesta: '421 4.7.0 Servicio no disponible',
      en: new Date('2025-06-01T10:43:00.000Z'),
    });

    const wh = await nuevoWebhook(i, a, ['factura.timbrada']);
    await dormir(3);
    const evento = await nuevoEvento(i, a, 'factura.timbrada', { id: cancelada.id, organizacion: org });
    const [entrega] = await i.repos.entregas.crearParaEvento((await i.repos.eventos.paraDespacho(evento))!);
    ids.entrega = entrega!.id;
    await i.repos.entregas.registrarIntento(
      a,
      entrega!.id,
      {
        numero: 1,
        iniciado_en: new Date('2025-06-01T10:44:00.000Z'),
        status_http: 500,
        latencia_ms: 30,
        error: { codigo: 'status_http', mensaje: 'El receptor respondió con HTTP 500.' },
        respuesta: 'no',
      },
      { estado: 'pendiente', proximo_intento_en: new Date('2025-06-01T10:49:00.000Z') },
    );

    // A receipt in a global invoice claimed by its buyer, the global not replaced yet.
    const global = await facturaTimbrada(i, a, org);
    const compradora = await nuevaFactura(i, a, org, { timbrado_estado: 'pendiente' });
    ids.reexpedicion = nuevoId('rec');
    await i.transacciones.ejecutar(async (tx) => {
      await i.repos.recibos.insertar(tx, a, {
        id: ids.reexpedicion!,
        organizacion_id: org,
        fecha: '2025-05-31T13:00:00',
        folio: null,
        sucursal: null,
        documento: { conceptos: [], productos: [], importes: {} } as never,
        clave_hash: randomBytes(32).toString('hex'),
        clave_cifrada: randomBytes(40),
        dek_cifrada: randomBytes(60),
        version_clave: 1,
        vence_en: new Date('2025-07-01T00:00:00.000Z'),
      });
      await i.repos.recibos.aGlobal(tx, a, [ids.reexpedicion!], global.id, new Date());
      await i.repos.recibos.reclamar(tx, a, ids.reexpedicion!, compradora, new Date());
    });
    // The buyer's invoice is itself a pending stamping.
    ids.compradora = compradora;
    return { org, otraOrg, ids, wh, evento, global: global.id };
  }

  const resumen = (t: { datos: FilaPendiente[] }) => t.datos.map((f) => `${f.tipo} ${f.id}`);

  it('every kind of pending operation of the scope, newest first, with what MySQL records of it', async () => {
    const { a, live, otra } = await escenario(impl());
    const { org, otraOrg, ids, wh, evento, global } = await todas(impl(), a);
    await todas(impl(), live);
    await todas(impl(), otra);

    const t = await impl().repos.pendientes.listar(a, {}, { limite: 100 });
    expect(t.hayMas).toBe(false);
    // Creation order: timbrado, cancelacion (its invoice), pago, correo, entrega, the buyer's invoice, recibo.
    expect(resumen(t)).toEqual([
      `reexpedicion ${ids.reexpedicion}`,
      `timbrado ${ids.compradora}`,
      `entrega ${ids.entrega}`,
      `correo ${ids.correo}`,
      `pago ${ids.pago}`,
      `cancelacion ${ids.cancelacion}`,
      `timbrado ${ids.timbrado}`,
    ]);
    const de = (tipo: string) => t.datos.find((f) => f.tipo === tipo && f.id === ids[tipo])!;
    expect(de('timbrado')).toMatchObject({
      organizacion_id: org,
      intentos: 2,
      error: { codigo: 'pac_no_disponible', paso: 'pac' },
      factura_id: ids.timbrado,
      pago_id: null,
      desde: expect.any(Date),
    });
    expect(de('cancelacion')).toMatchObject({
      organizacion_id: org,
      desde: new Date('2025-06-01T10:42:00.000Z'),
      cancelacion: { estado: 'en_proceso', motivo: '02' },
      factura_id: ids.cancelacion,
    });
    expect(de('pago')).toMatchObject({ organizacion_id: otraOrg, pago_id: ids.pago, intentos: null });
    expect(de('correo')).toMatchObject({
      organizacion_id: org,
      factura_id: ids.cancelacion,
      intentos: 2,
      error: { codigo: 'smtp_no_disponible', mensaje: '421 4.7.0 Servicio no disponible' },
      ultimo_intento_en: new Date('2025-06-01T10:43:00.000Z'),
    });
    expect(de('entrega')).toMatchObject({
      organizacion_id: org,
      evento_id: evento,
      tipo_evento: 'factura.timbrada',
      webhook_id: wh,
      numero: 0,
      intentos: 1,
      status_http: 500,
      error: { codigo: 'status_http' },
      proximo_intento_en: new Date('2025-06-01T10:49:00.000Z'),
      ultimo_intento_en: new Date('2025-06-01T10:44:00.000Z'),
    });
    expect(de('reexpedicion')).toMatchObject({
      organizacion_id: org,
      factura_id: ids.compradora,
      factura_global_id: global,
      estado_factura: 'pendiente',
    });
  });

  it('filters by kind, organization and age; a cursor walks every kind once, in the same order', async () => {
    const { a } = await escenario(impl());
    const { otraOrg, ids } = await todas(impl(), a);

    const soloEntregas = await impl().repos.pendientes.listar(a, { tipo: 'entrega' }, { limite: 10 });
    expect(resumen(soloEntregas)).toEqual([`entrega ${ids.entrega}`]);
    const deOtraOrg = await impl().repos.pendientes.listar(a, { organizacionId: otraOrg }, { limite: 10 });
    expect(resumen(deOtraOrg)).toEqual([`pago ${ids.pago}`]);
    // The cancellation was asked at 10:42 of 2025: the only one waiting since an hour ago.
    const viejas = await impl().repos.pendientes.listar(
      a,
      { antesDe: new Date(Date.now() - 3_600_000) },
      { limite: 10 },
    );
    expect(resumen(viejas)).toEqual([`cancelacion ${ids.cancelacion}`]);

    const completa = resumen(await impl().repos.pendientes.listar(a, {}, { limite: 100 }));
    const paginas = await recorrer((p) => impl().repos.pendientes.listar(a, {}, p), 2);
    expect(paginas.map((p) => p.length)).toEqual([2, 2, 2, 1]);
    expect(paginas.flat()).toEqual(completa.map((x) => x.split(' ')[1]));
  });

  it('the backlog of every kind across accounts counts these ones, with the age of the oldest', async () => {
    const { a } = await escenario(impl());
    await todas(impl(), a);
    const atrasos = await impl().repos.pendientes.atrasos();
    expect(atrasos.map((x) => x.tipo)).toEqual([
      'timbrado',
      'cancelacion',
      'pago',
      'correo',
      'entrega',
      'reexpedicion',
    ]);
    const de = (tipo: string) => atrasos.find((x) => x.tipo === tipo)!;
    expect(de('timbrado').pendientes).toBeGreaterThanOrEqual(2);
    for (const x of atrasos) expect(x.pendientes).toBeGreaterThanOrEqual(1);
    // The cancellation was asked in 2025.
    expect(de('cancelacion').masAntiguoSegundos).toBeGreaterThan(86_400);
    for (const x of atrasos) expect(x.masAntiguoSegundos).toBeGreaterThanOrEqual(0);
  });
});
