import { readFileSync } from 'node:fs';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { ErrorNegocio } from '../../dominio/errores';
import { crearServicioHistoria, type ResumenFlujo, type SerieIntentos } from '../../servicios/historia';
import { resumirHistoria, temporalNoDisponible } from '../../temporal/historias';
import { hora } from '../../presentacion/textos';
import { rutaHistoria } from '../support/historias';
import { crearContextoActividad, tablaFacturas } from '../support/memoria';
import { crearEntornoActividades, errorNegocio } from '../support/memoria/servicios';

let x: Awaited<ReturnType<typeof crearEntornoActividades>>;
/** What the fake Temporal answers for the invoice's workflows; an ErrorNegocio rejects like Temporal down. */
let resumenes: ResumenFlujo[] | ErrorNegocio;
let pedidos: string[][];
const LLAVE = 'llave_01kbq2a9c1e3g5j7m9p1r3t5v7';

beforeEach(async () => {
  x = await crearEntornoActividades();
  resumenes = [];
  pedidos = [];
  await x.m.llaves.insertar({
    id: LLAVE,
    cuenta_id: x.a.cuentaId,
    modo: 'test',
    nombre: 'Producción',
    prefijo: 'sk_test_abcd',
    creado_en: new Date(),
    hash: Buffer.from('hash-de-prueba'),
  });
});

const servicio = () =>
  crearServicioHistoria({
    facturas: x.m.facturas,
    pagos: x.m.pagos,
    eventos: x.m.eventos,
    entregas: x.m.entregas,
    correos: x.m.correos,
    llaves: x.m.llaves,
    usuarios: x.m.usuarios,
    flujos: {
      async resumenes(_a, ids) {
        pedidos.push(ids);
        if (resumenes instanceof ErrorNegocio) throw resumenes;
        return resumenes;
      },
    },
    ahora: () => x.reloj.ahora,
  });

const origen = { solicitudId: 'req_1', llaveId: LLAVE };

/**
 * An invoice created a minute before the activities' clock (the fakes' rows take the real one), its stamping
 * started by the request of LLAVE.
 */
async function creada(extra: Parameters<typeof x.facturar>[0] = {}) {
  x.s.timbrador.desenlace('pendiente');
  const f = await x.facturar(extra);
  tablaFacturas(x.m.almacen).cambiar(f.id, { creado_en: new Date(x.reloj.ahora.getTime() - 60_000) });
  return f;
}

/** An invoice stamped through the activities. */
async function timbrada(extra: Parameters<typeof x.facturar>[0] = {}) {
  const f = await creada(extra);
  const e = { ...x.entrada(f.id), origen };
  await x.act.prepararTimbrado(e);
  await crearContextoActividad().ejecutar(() => x.act.enviarAlPac(e));
  return f.id;
}

const serie = (s: Partial<SerieIntentos>): SerieIntentos => ({
  actividad: 'enviarAlPac',
  local: false,
  desde: new Date(),
  hasta: new Date(),
  intentos: 1,
  fallidos: 0,
  ultimaFalla: null,
  resultado: 'completada',
  ...s,
});

describe('historia de una factura', () => {
  it('una caída del PAC: creada por quién, sellada, los intentos fallidos en un paso con su causa, timbrada con su UUID', async () => {
    const id = await timbrada();
    const t0 = new Date(x.reloj.ahora.getTime() + 1000);
    const t1 = new Date(x.reloj.ahora.getTime() + 120_000);
    resumenes = [
      {
        workflowId: `timbrado:${id}`,
        runId: 'run-1',
        tipo: 'timbrarFacturaV3',
        estado: 'COMPLETED',
        inicio: t0,
        origen,
        soloAbandono: false,
        series: [
          serie({
            actividad: 'timbrarDeUnaVez',
            local: true,
            desde: t0,
            hasta: t0,
            fallidos: 1,
            resultado: 'fallida',
            ultimaFalla: 'stamp: el PAC no respondió en 20000 ms',
          }),
          serie({ actividad: 'prepararTimbrado', local: true, desde: t0, hasta: t0 }),
          serie({
            actividad: 'enviarAlPac',
            local: true,
            desde: t0,
            hasta: t0,
            fallidos: 1,
            resultado: 'fallida',
            ultimaFalla: 'stamp: el PAC no respondió en 20000 ms',
          }),
          serie({
            desde: t0,
            hasta: t1,
            intentos: 11,
            fallidos: 10,
            ultimaFalla: 'stamp: falla de transporte (ECONNREFUSED)',
          }),
        ],
        actualizaciones: [{ nombre: 'esperarTimbrado', en: t0 }],
      },
    ];
    const h = await servicio().historia(x.a, id);
    expect(pedidos).toEqual([[`timbrado:${id}`, `cancelacion:${id}`]]);
    expect(h).toMatchObject({
      objeto: 'historia',
      factura: id,
      modo: 'test',
      temporal: { leido: true, error: null },
    });
    const tipos = h.pasos.map((p) => p.tipo);
    expect(tipos).toEqual(['creada', 'sellada', 'intentos_pac', 'timbrada']);
    const [creada, , intentos, timbrado] = h.pasos;
    expect(creada).toMatchObject({
      actor: { tipo: 'llave', id: LLAVE, nombre: 'Producción' },
      texto: expect.stringMatching(
        / creada por la llave «Producción» \(llave_01kbq2a9c1e3g5j7m9p1r3t5v7\): .+ MXN a /,
      ),
    });
    const huso = 'Tiempo del Centro';
    expect(intentos).toMatchObject({
      actor: null,
      texto: `12 intentos fallidos entre las ${hora(t0, huso, x.reloj.ahora)} y las ${hora(t1, huso, x.reloj.ahora)}: el PAC no respondió (falla de conexión).`,
      detalle: { intentos: 12, ultima_falla: 'stamp: falla de transporte (ECONNREFUSED)' },
    });
    const uuid = (await x.s.facturas.obtener(x.a, id)).uuid;
    expect(timbrado).toMatchObject({
      actor: { id: LLAVE, nombre: 'Producción' },
      texto: expect.stringContaining(`Timbrada por el PAC con UUID ${uuid}`),
      detalle: { uuid },
    });
  });

  it('cada pago con el saldo que dejó; un webhook que falla con su status HTTP; un correo enviado', async () => {
    const id = await timbrada({ metodo_pago: 'PPD', forma_pago: undefined });
    const w = await x.s.webhooks.crear(x.a, {
      url: 'https://hooks.ejemplo.mx/cfdi',
      eventos_suscritos: ['pago.creado'],
    });
    const entrada = await x.pedirPago([{ factura: id, imp_pagado: '50.00' }]);
    await x.act.registrarPagoEnLibro({ ...entrada, origen });
    await x.m.despachador.despacharPendientes();
    const [entrega] = x.m.despachador.iniciadas;
    await x.m.entregas.registrarIntento(
      x.a,
      entrega!.id,
      {
        numero: 1,
        iniciado_en: new Date(),
        status_http: 503,
        latencia_ms: 10,
        error: { codigo: 'status_http', mensaje: 'El receptor respondió con HTTP 503.' },
        respuesta: 'no',
      },
      { estado: 'pendiente', proximo_intento_en: new Date(Date.now() + 300_000) },
    );
    const h = await servicio().historia(x.a, id);
    const pago = h.pasos.find((p) => p.tipo === 'pago')!;
    const total = (await x.s.facturas.obtener(x.a, id)).total;
    expect(pago).toMatchObject({
      actor: { id: LLAVE },
      detalle: { pago: entrada.pagoId, parcialidad: 1, imp_pagado: '50.00', vigente: true },
    });
    expect(pago.texto).toContain(`de 50.00 MXN (parcialidad 1)`);
    expect(pago.detalle.imp_saldo_insoluto).toBe((Number(total) - 50).toFixed(2));
    const webhook = h.pasos.find((p) => p.tipo === 'webhook_fallando')!;
    expect(webhook.texto).toMatch(
      new RegExp(
        `^El webhook de pago.creado a https://hooks.ejemplo.mx/cfdi está fallando: HTTP 503 en 1 intento; el siguiente a las `,
      ),
    );
    expect(webhook.detalle).toMatchObject({ entrega: entrega!.id, webhook: w.id, status_http: 503 });
    // Steps in time order.
    expect([...h.pasos].map((p) => p.en)).toEqual(h.pasos.map((p) => p.en).sort());
  });

  it('un abandono: el paso dice quién lo abandonó; sin Temporal, la historia responde y lo dice', async () => {
    const f = await creada();
    const e = { ...x.entrada(f.id), origen };
    await x.act.prepararTimbrado(e);
    await x.act.registrarAbandono(e, { origen }, 0);
    resumenes = temporalNoDisponible();
    const h = await servicio().historia(x.a, f.id);
    expect(h.temporal).toEqual({
      leido: false,
      error: 'Temporal no respondió: intente de nuevo en unos segundos.',
    });
    expect(h.pasos.map((p) => p.tipo)).toEqual(['creada', 'sellada', 'timbrado_abandonado']);
    expect(h.pasos[2]).toMatchObject({
      actor: { tipo: 'llave', id: LLAVE, nombre: 'Producción' },
      texto:
        'Timbrado abandonado por la llave «Producción» (llave_01kbq2a9c1e3g5j7m9p1r3t5v7): el PAC no lo había timbrado; queda en borrador.',
    });
  });

  it('la de otra cuenta o modo no existe', async () => {
    const id = await timbrada();
    const e = await errorNegocio(servicio().historia({ ...x.a, cuentaId: 'cta_otra' }, id));
    expect([e.codigo, e.tipo]).toEqual(['factura_no_encontrada', 'no_encontrado']);
  });
});

describe('resumirHistoria: una historia de Temporal como series de intentos', () => {
  it('la grabada de timbrarFacturaV3 que esperó al PAC: intentos locales fallidos, la actividad cortada y la que timbró', () => {
    const h = historyFromJSON(JSON.parse(readFileSync(rutaHistoria('timbrado-v3-espera.json'), 'utf8')));
    const r = resumirHistoria(h, {
      workflowId: 'timbrado:fac_1',
      runId: 'r',
      tipo: 'timbrarFacturaV3',
      estado: 'COMPLETED',
    });
    expect(r.series.map((s) => [s.actividad, s.local, s.resultado, s.fallidos])).toEqual([
      ['timbrarDeUnaVez', true, 'fallida', 1],
      ['prepararTimbrado', true, 'completada', 0],
      ['enviarAlPac', true, 'fallida', 1],
      // Cancelled in its backoff by reintentarAhora: the history does not say how many tries it made.
      ['enviarAlPac', false, 'cancelada', null],
      ['enviarAlPac', false, 'completada', 0],
      ['generarPdf', false, 'completada', 0],
    ]);
    expect(r.series[0]!.ultimaFalla).toBe('el PAC no responde');
    expect(r.actualizaciones.map((u) => u.nombre)).toEqual(['esperarTimbrado', 'reintentarAhora']);
    expect(r.origen).toBeNull();
  });

  it('la grabada de un abandono: la actividad del PAC cortada y el registro del abandono', () => {
    const h = historyFromJSON(JSON.parse(readFileSync(rutaHistoria('timbrado-v3-abandono.json'), 'utf8')));
    const r = resumirHistoria(h, {
      workflowId: 'timbrado:fac_1',
      runId: 'r',
      tipo: 'timbrarFacturaV3',
      estado: 'COMPLETED',
    });
    expect(r.series.map((s) => [s.actividad, s.resultado])).toEqual([
      ['timbrarDeUnaVez', 'fallida'],
      ['prepararTimbrado', 'completada'],
      ['enviarAlPac', 'fallida'],
      ['enviarAlPac', 'cancelada'],
      ['registrarAbandono', 'completada'],
    ]);
    expect(r.actualizaciones.map((u) => u.nombre)).toEqual(['esperarTimbrado', 'abandonarTimbrado']);
  });
});
