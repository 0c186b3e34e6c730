import { createHash } from 'node:crypto';
import { strFromU8, unzipSync } from 'fflate';
import { crearServicioAuditoria, type EjecucionFlujo, type LectorHistorias } from '../../servicios/auditoria';
import { consultaDeFactura, historiaLegible } from '../../temporal/historias';
import { crearServicioHistoria } from '../../servicios/historia';
import { alcance, crearContextoActividad } from '../support/memoria';
import { crearEntornoActividades, errorNegocio } from '../support/memoria/servicios';

let x: Awaited<ReturnType<typeof crearEntornoActividades>>;

/** Temporal's side as a fake: the runs it lists and a history per run; it records what it was asked. */
function historiasFalsas(ejecuciones: EjecucionFlujo[]) {
  const consultas: { cuentaId: string; factura: string; cfdisDePago: string[] }[] = [];
  const lector: LectorHistorias = {
    async ejecucionesDeFactura(a, factura, cfdisDePago) {
      consultas.push({ cuentaId: a.cuentaId, factura, cfdisDePago });
      return ejecuciones;
    },
    async historia(workflowId, runId) {
      return {
        cruda: JSON.stringify({ events: [{ eventId: '1', workflowId, runId }] }),
        legible: JSON.stringify({ legible: true, runId }),
      };
    },
  };
  return { lector, consultas };
}

const ejecucion = (workflowId: string, runId: string, inicio: string): EjecucionFlujo => ({
  workflowId,
  runId,
  tipo: 'timbrarFactura',
  estado: 'COMPLETED',
  inicio,
  fin: inicio,
});

beforeEach(async () => {
  x = await crearEntornoActividades();
});

/** A stamped PPD invoice with one payment whose CFDI is stamped, through the activities. */
async function facturaConPago() {
  const f = await x.facturar({ metodo_pago: 'PPD', forma_pago: undefined });
  const entrada = await x.pedirPago([{ factura: f.id, imp_pagado: '50.00' }]);
  const paso = await x.act.registrarPagoEnLibro(entrada);
  if (paso.estado !== 'registrado') throw new Error(JSON.stringify(paso));
  const e = x.entrada(paso.facturaPagoId);
  await x.act.prepararTimbrado(e);
  await crearContextoActividad().ejecutar(() => x.act.enviarAlPac(e));
  return { f, pagoId: entrada.pagoId, cfdi: paso.facturaPagoId };
}

const servicio = (lector: LectorHistorias) =>
  crearServicioAuditoria({
    facturas: x.m.facturas,
    pagos: x.m.pagos,
    eventos: x.m.eventos,
    entregas: x.m.entregas,
    correos: x.m.correos,
    historias: lector,
    historia: crearServicioHistoria({
      facturas: x.m.facturas,
      pagos: x.m.pagos,
      eventos: x.m.eventos,
      entregas: x.m.entregas,
      correos: x.m.correos,
      llaves: x.m.llaves,
      usuarios: x.m.usuarios,
      flujos: { resumenes: async () => [] },
      ahora: () => x.reloj.ahora,
    }).historia,
    ahora: () => x.reloj.ahora,
  });

describe('paquete de auditoría', () => {
  it('reúne la factura, su XML, sus eventos, sus pagos y cada ejecución; el manifiesto firma cada archivo', async () => {
    const { f, pagoId, cfdi } = await facturaConPago();
    const runs = [
      ejecucion(`timbrado:${f.id}`, 'run-2', '2025-06-01T12:05:00.000Z'),
      ejecucion(`timbrado:${f.id}`, 'run-1', '2025-06-01T12:00:00.000Z'),
      ejecucion(`pago:${pagoId}`, 'run-3', '2025-06-01T12:10:00.000Z'),
    ];
    const { lector, consultas } = historiasFalsas(runs);
    const { zip, manifiesto } = await servicio(lector).paquete(x.a, f.id);
    const archivos = unzipSync(zip);

    expect(consultas).toEqual([{ cuentaId: x.a.cuentaId, factura: f.id, cfdisDePago: [cfdi] }]);
    const m = JSON.parse(strFromU8(archivos['manifiesto.json']!));
    expect(m).toEqual(JSON.parse(JSON.stringify(manifiesto)));
    expect(m).toMatchObject({
      objeto: 'auditoria',
      factura: f.id,
      modo: 'test',
      generado_en: x.reloj.ahora.toISOString(),
    });
    // Every file but the manifest is listed, with its digest and size, and nothing else is in the ZIP.
    expect(Object.keys(archivos).sort()).toEqual(
      ['manifiesto.json', ...m.archivos.map((a: { ruta: string }) => a.ruta)].sort(),
    );
    for (const a of m.archivos as { ruta: string; sha256: string; bytes: number }[]) {
      const b = archivos[a.ruta]!;
      expect([a.ruta, createHash('sha256').update(b).digest('hex'), b.byteLength]).toEqual([
        a.ruta,
        a.sha256,
        a.bytes,
      ]);
    }

    expect(JSON.parse(strFromU8(archivos['factura.json']!))).toEqual(
      JSON.parse(JSON.stringify(await x.s.facturas.obtener(x.a, f.id))),
    );
    expect(strFromU8(archivos['cfdi.xml']!)).toBe(await x.s.facturas.xml(x.a, f.id));
    expect(strFromU8(archivos[`pagos/${pagoId}/cfdi.xml`]!)).toBe(await x.s.facturas.xml(x.a, cfdi));
    expect(JSON.parse(strFromU8(archivos[`pagos/${pagoId}/pago.json`]!))).toMatchObject({ id: pagoId });
    const eventos = (await x.s.eventos.listar(x.a, { factura: f.id }, { limite: 100 })).datos;
    expect(eventos.map((e) => e.tipo)).toEqual(['factura.timbrada', 'pago.creado']);
    expect(JSON.parse(strFromU8(archivos['eventos.json']!))).toEqual(JSON.parse(JSON.stringify(eventos)));
    // The payment CFDI's record, as GET /v1/facturas/{id} shows it.
    expect(JSON.parse(strFromU8(archivos[`pagos/${pagoId}/cfdi.json`]!))).toEqual(
      JSON.parse(JSON.stringify(await x.s.facturas.obtener(x.a, cfdi))),
    );
    // The readable history, as GET …/historia answers it, and as text: one line per step, local time.
    const historia = JSON.parse(strFromU8(archivos['historia.json']!));
    expect(historia).toMatchObject({ objeto: 'historia', factura: f.id, temporal: { leido: true } });
    // (The fake stamping writes the stamp without its event: the payment is the story here.)
    expect(historia.pasos.map((p: { tipo: string }) => p.tipo)).toEqual(
      expect.arrayContaining(['creada', 'pago']),
    );
    const texto = strFromU8(archivos['historia.txt']!).split('\n');
    expect(texto[0]).toBe(`Historia de la factura ${f.id} (test), hora local del lugar de expedición.`);
    expect(texto.slice(2, -1)).toEqual(
      historia.pasos.map((p: { texto: string }) =>
        expect.stringMatching(
          new RegExp(
            `^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}  ${p.texto.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`,
          ),
        ),
      ),
    );
    // No cancellation, no acuse (and nothing said about it); no webhook, an empty delivery log.
    expect(archivos['acuse_cancelacion.xml']).toBeUndefined();
    expect(JSON.parse(strFromU8(archivos['entregas.json']!))).toEqual([]);
    // The fake renders no PDF: the manifest says it is missing and why.
    expect(archivos['factura.pdf']).toBeUndefined();
    expect(m.omitidos).toEqual([
      { ruta: 'factura.pdf', motivo: expect.stringContaining('PDF') },
      { ruta: `pagos/${pagoId}/cfdi.pdf`, motivo: expect.stringContaining('PDF') },
    ]);

    // Every run, in workflow id then start order, in a folder per workflow whose name has no colon.
    expect(
      m.flujos.map((w: EjecucionFlujo & { historia: string }) => [w.workflowId, w.runId, w.historia]),
    ).toEqual([
      [`pago:${pagoId}`, 'run-3', `historias/pago-${pagoId}/run-3.json`],
      [`timbrado:${f.id}`, 'run-1', `historias/timbrado-${f.id}/run-1.json`],
      [`timbrado:${f.id}`, 'run-2', `historias/timbrado-${f.id}/run-2.json`],
    ]);
    expect(JSON.parse(strFromU8(archivos[`historias/timbrado-${f.id}/run-1.json`]!))).toEqual({
      events: [{ eventId: '1', workflowId: `timbrado:${f.id}`, runId: 'run-1' }],
    });
    expect(JSON.parse(strFromU8(archivos[`historias/timbrado-${f.id}/run-1.legible.json`]!))).toEqual({
      legible: true,
      runId: 'run-1',
    });
  });

  it('correos.json: los correos de la factura y de sus CFDI de pago, con su estado y su respuesta', async () => {
    const { f, cfdi } = await facturaConPago();
    const uno = await x.s.correos.reenviar(x.a, f.id, { destinatarios: ['a@ejemplo.mx'] });
    const dos = await x.s.correos.reenviar(x.a, cfdi, { destinatarios: ['b@ejemplo.mx'] });
    const ajena = await x.facturar();
    await x.s.correos.reenviar(x.a, ajena.id, { destinatarios: ['c@ejemplo.mx'] });
    const { zip } = await servicio(historiasFalsas([]).lector).paquete(x.a, f.id);
    const log = JSON.parse(strFromU8(unzipSync(zip)['correos.json']!));
    expect(log).toEqual(JSON.parse(JSON.stringify([uno, dos])));
  });

  it('un borrador: sin XML ni PDF, y el manifiesto lo dice', async () => {
    const f = await x.facturar({ auto_timbrar: false });
    const { zip } = await servicio(historiasFalsas([]).lector).paquete(x.a, f.id);
    const archivos = unzipSync(zip);
    const m = JSON.parse(strFromU8(archivos['manifiesto.json']!));
    expect(Object.keys(archivos).sort()).toEqual([
      'correos.json',
      'entregas.json',
      'eventos.json',
      'factura.json',
      'historia.json',
      'historia.txt',
      'manifiesto.json',
    ]);
    expect(m.omitidos.map((o: { ruta: string }) => o.ruta)).toEqual(['cfdi.xml', 'factura.pdf']);
    expect(m.flujos).toEqual([]);
  });

  it('con ambos cancelados: sus acuses, los PDF, y el registro de entregas de cada evento con su URL', async () => {
    const w = await x.s.webhooks.crear(x.a, {
      url: 'https://hooks.ejemplo.mx/cfdi',
      eventos_suscritos: ['factura.timbrada', 'factura.cancelada', 'pago.creado'],
    });
    const { f, pagoId, cfdi } = await facturaConPago();
    // Cancelled through the activities, as the workflow does: the PAC's acuse is kept with the state.
    for (const id of [cfdi, f.id]) {
      x.s.cancelador.desenlace('sin_respuesta');
      await x.s.facturas.cancelar(x.a, id, { motivo: '02' });
      expect(await x.act.solicitarCancelacion(x.entrada(id))).toBe('cancelada');
    }
    for (const id of [f.id, cfdi]) await x.m.facturas.guardarPdf(x.a, id, Buffer.from(`%PDF-1.7 ${id}`));
    await x.m.despachador.despacharPendientes();
    const [primera] = (await x.m.entregas.listar(x.a, { webhookId: w.id }, { limite: 100 })).datos;
    await x.m.entregas.registrarIntento(
      x.a,
      primera!.id,
      {
        numero: 1,
        iniciado_en: x.reloj.ahora,
        status_http: 200,
        latencia_ms: 35,
        error: null,
        respuesta: 'ok',
      },
      { estado: 'entregada', proximo_intento_en: null },
    );

    const { zip } = await servicio(historiasFalsas([]).lector).paquete(x.a, f.id);
    const archivos = unzipSync(zip);
    const m = JSON.parse(strFromU8(archivos['manifiesto.json']!));
    expect(m.omitidos).toEqual([]);
    expect(strFromU8(archivos['acuse_cancelacion.xml']!)).toBe(await x.s.facturas.acuse(x.a, f.id));
    expect(strFromU8(archivos[`pagos/${pagoId}/acuse_cancelacion.xml`]!)).toBe(
      await x.s.facturas.acuse(x.a, cfdi),
    );
    expect(strFromU8(archivos['factura.pdf']!)).toBe(`%PDF-1.7 ${f.id}`);
    expect(strFromU8(archivos[`pagos/${pagoId}/cfdi.pdf`]!)).toBe(`%PDF-1.7 ${cfdi}`);
    // The ledger row stays in the payment, no longer counting once its CFDI was cancelled.
    expect(JSON.parse(strFromU8(archivos[`pagos/${pagoId}/pago.json`]!))).toMatchObject({
      estado: 'cancelada',
      facturas_pagadas: [{ factura: f.id, imp_pagado: '50.00', vigente: false }],
    });
    expect(JSON.parse(strFromU8(archivos[`pagos/${pagoId}/cfdi.json`]!))).toMatchObject({
      id: cfdi,
      tipo: 'pago',
      estado: 'cancelada',
    });

    // One delivery per event of the invoice, oldest first, as GET /v1/entregas/{id} shows it plus its URL.
    const eventos = JSON.parse(strFromU8(archivos['eventos.json']!)) as { id: string; tipo: string }[];
    const entregas = JSON.parse(strFromU8(archivos['entregas.json']!));
    expect(entregas.map((e: { evento: string }) => e.evento).sort()).toEqual(eventos.map((e) => e.id).sort());
    expect(entregas.map((e: { id: string }) => e.id)).toEqual(
      entregas.map((e: { id: string }) => e.id).sort(),
    );
    for (const e of entregas) expect(e).toMatchObject({ objeto: 'entrega', webhook: w.id, url: w.url });
    expect(entregas.find((e: { id: string }) => e.id === primera!.id)).toMatchObject({
      estado: 'entregada',
      intentos: [{ numero: 1, status_http: 200, latencia_ms: 35, iniciado_en: x.reloj.ahora.toISOString() }],
    });
    expect(entregas.filter((e: { estado: string }) => e.estado === 'pendiente')).toHaveLength(
      entregas.length - 1,
    );
  });

  it('una factura de otra cuenta, de otro modo o inexistente → 404 sin preguntar a Temporal', async () => {
    const f = await x.facturar();
    const { lector, consultas } = historiasFalsas([]);
    for (const [alc, id] of [
      [alcance('cta_b'), f.id],
      [alcance(x.a.cuentaId, 'live'), f.id],
      [x.a, 'fac_inexistente'],
    ] as const) {
      const e = await errorNegocio(servicio(lector).paquete(alc, id));
      expect([e.tipo, e.codigo, e.parametro]).toEqual(['no_encontrado', 'factura_no_encontrada', 'id']);
    }
    expect(consultas).toEqual([]);
  });
});

describe('historias de Temporal', () => {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

  it('la versión legible decodifica cada payload (json/plain a su valor) y deja lo demás igual', () => {
    const cruda = {
      events: [
        {
          eventId: '1',
          eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED',
          workflowExecutionStartedEventAttributes: {
            input: {
              payloads: [{ metadata: { encoding: b64('json/plain') }, data: b64('{"facturaId":"fac_1"}') }],
            },
            searchAttributes: {
              indexedFields: {
                FacturaId: {
                  metadata: { encoding: b64('json/plain'), type: b64('Keyword') },
                  data: b64('"fac_1"'),
                },
              },
            },
          },
        },
        {
          eventId: '2',
          activityTaskCompletedEventAttributes: {
            result: { payloads: [{ metadata: { encoding: b64('binary/null') } }] },
          },
        },
      ],
    };
    expect(historiaLegible(cruda)).toEqual({
      events: [
        {
          eventId: '1',
          eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED',
          workflowExecutionStartedEventAttributes: {
            input: { payloads: [{ metadata: { encoding: 'json/plain' }, data: { facturaId: 'fac_1' } }] },
            searchAttributes: {
              indexedFields: {
                FacturaId: { metadata: { encoding: 'json/plain', type: 'Keyword' }, data: 'fac_1' },
              },
            },
          },
        },
        {
          eventId: '2',
          activityTaskCompletedEventAttributes: {
            result: { payloads: [{ metadata: { encoding: 'binary/null' }, data: null }] },
          },
        },
      ],
    });
  });

  it('la consulta de visibilidad: la factura, los pagos que la nombran y sus CFDI de pago, en el alcance', () => {
    expect(consultaDeFactura({ cuentaId: 'cta_1', modo: 'test' }, 'fac_1', ['fac_2'])).toBe(
      '(FacturaId="fac_1" OR FacturasPagadas="fac_1" OR FacturaId="fac_2") AND CuentaId="cta_1" AND Modo="test"',
    );
    expect(() => consultaDeFactura({ cuentaId: 'cta_1', modo: 'test' }, 'fac_1" OR "1"="1', [])).toThrow();
  });
});
