import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import type { PasoPago } from '../../activities/pagos';
import type { Paso } from '../../activities/timbrado';
import { ErrorPacTransitorio } from '../../pac/puerto';
import { inicioPago } from '../../temporal/registrador-pagos';
import { ATRIBUTOS } from '../../workflows/atributos';
import { esperarPago } from '../../workflows/pago';
import { reintentarAhora } from '../../workflows/pasos';
import {
  contar,
  grabarSiSePide,
  leerHistoria,
  parches,
  programadas,
  repetirHistoria,
} from '../support/historias';
import { hasta, iniciarConEspera, prepararFlujos } from './soporte';

// Payments live for as long as their stamping takes: every released version of the payment workflow must
// replay with the current code. pago-v1.json was recorded by the first version (before the `timbrando` patch),
// pago-v2.json by the second (before the bounded ledger step), pago-v3.json by the third (before the PDF
// workflow), all through the whole stack; pago-v4*.json by the last registrarPago (every patch), with faked
// activities as here: at once, and waiting on the PAC until an operator's reintentarAhora.

const { EventType } = temporal.api.enums.v1;
const flujos = prepararFlujos();

const REFERENCIAS = ['AAA010101AAA', 'XAXX010101000', 'P-7'];
const registrado: PasoPago = { estado: 'registrado', facturaPagoId: 'fac_pago_1' };
const listo: Paso = { estado: 'listo', referencias: REFERENCIAS };
const timbrada: Paso = { estado: 'timbrada', referencias: [...REFERENCIAS, 'UUID-PAGO'] };
const inicio = (cola: string) =>
  inicioPago(
    cola,
    { cuentaId: 'cta_1', modo: 'test' },
    { id: `pag_${randomUUID()}`, organizacionId: 'org_1', facturas: ['fac_a'] },
  );

describe('historias de registrarPago (nada lo inicia ya; sus ejecuciones en curso terminan)', () => {
  it.each([
    ['pago-v1.json', ['generarPdf'], ['pasos-locales']],
    ['pago-v2.json', ['generarPdf'], ['pago-estado-timbrando', 'pasos-locales']],
    [
      'pago-v3.json',
      ['generarPdf'],
      ['libro-acotado', 'pago-estado-timbrando', 'pasos-locales', 'pasos-acotados'],
    ],
    [
      'pago-v4.json',
      [],
      ['libro-acotado', 'pago-estado-timbrando', 'pasos-locales', 'pasos-acotados', 'pdf-aparte'],
    ],
    [
      'pago-v4-espera.json',
      ['enviarAlPac', 'enviarAlPac'],
      ['libro-acotado', 'pago-estado-timbrando', 'pasos-locales', 'pasos-acotados', 'pdf-aparte'],
    ],
  ])('replays %s', async (archivo, actividades, ids) => {
    const v = leerHistoria(archivo);
    expect(v.tipo).toBe('registrarPago');
    expect(v.programadas).toEqual(actividades);
    expect(v.parches.map((p) => p.id).sort()).toEqual([...ids].sort());
    await expect(repetirHistoria(v.historia, `pago:historia-${archivo}`)).resolves.toBeUndefined();
  });
});

describe('historias de registrarPagoV2', () => {
  it('a payment of the current code: three local steps, no patch, one search-attribute write, one task; replays', async () => {
    const actividades = {
      registrarPagoEnLibro: async () => registrado,
      prepararTimbrado: async () => listo,
      enviarAlPac: async () => timbrada,
    };
    await flujos.conWorker(actividades, async (cola) => {
      const i = inicio(cola);
      expect(i.tipo).toBe('registrarPagoV2');
      const { espera, handle } = await iniciarConEspera(flujos.client, i, esperarPago);
      expect(await espera.result()).toBe('timbrada');
      await handle.result();
      const historia = await handle.fetchHistory();
      // The ledger, sealing and the PAC as markers; registrarPago wrote five patch markers, each with its
      // TemporalChangeVersion upsert, and three writes of its own.
      expect(parches(historia)).toEqual([]);
      expect(contar(historia, EventType.EVENT_TYPE_MARKER_RECORDED)).toBe(3);
      expect(contar(historia, EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)).toBe(1);
      expect(programadas(historia)).toEqual([]);
      expect(contar(historia, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)).toBe(1);
      const d = await handle.describe();
      expect(
        d.raw.workflowExecutionInfo?.searchAttributes?.indexedFields?.TemporalChangeVersion,
      ).toBeUndefined();
      expect(d.typedSearchAttributes.get(ATRIBUTOS.FacturaId)).toBe('fac_pago_1');
      await expect(repetirHistoria(historia, handle.workflowId)).resolves.toBeUndefined();
      grabarSiSePide(historia, 'pago-v5.json');
    });
  });

  it('a payment of the current code waiting on the PAC: found by the ops filters, cut short, replays', async () => {
    let pacArriba = false;
    const actividades = {
      registrarPagoEnLibro: async () => registrado,
      prepararTimbrado: async () => listo,
      async enviarAlPac() {
        if (!pacArriba) throw new ErrorPacTransitorio('el PAC no responde');
        return timbrada;
      },
    };
    await flujos.conWorker(actividades, async (cola) => {
      const i = inicio(cola);
      const { espera, handle } = await iniciarConEspera(flujos.client, i, esperarPago);
      await hasta(async () => ((await handle.describe()).raw.pendingActivities?.[0]?.attempt ?? 0) >= 2);
      // The README's filters (Ops: finding stuck stamping) find it, as they find an invoice's stamping.
      const filtros = [
        `ExecutionStatus="Running" AND ErrorTimbrado IS NOT NULL AND PagoId="${i.entrada.pagoId}"`,
        `EstadoFactura="timbrando" AND FacturaId="fac_pago_1" AND PagoId="${i.entrada.pagoId}"`,
      ];
      for (const query of filtros) {
        await hasta(async () => {
          for await (const w of flujos.client.workflow.list({ query })) return w.type === 'registrarPagoV2';
          return false;
        });
      }
      pacArriba = true;
      expect(await handle.executeUpdate(reintentarAhora)).toBe(true);
      expect(await espera.result()).toBe('timbrada');
      await handle.result();
      const historia = await handle.fetchHistory();
      expect(programadas(historia)).toEqual(['enviarAlPac', 'enviarAlPac']);
      // The error (with FacturaId and `timbrando`), then the outcome.
      expect(contar(historia, EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)).toBe(2);
      await expect(repetirHistoria(historia, handle.workflowId)).resolves.toBeUndefined();
      grabarSiSePide(historia, 'pago-v5-espera.json');
    });
  });
});
