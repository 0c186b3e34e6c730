import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { EntradaPago, PasoPago } from '../../activities/pagos';
import type { EntradaTimbrado, Paso } from '../../activities/timbrado';
import type { ErrorTimbrado } from '../../dominio/factura';
import { ErrorPacTransitorio } from '../../pac/puerto';
import { inicioPago } from '../../temporal/registrador-pagos';
import { ATRIBUTOS } from '../../workflows/atributos';
import { esperarPago } from '../../workflows/pago';
import { atributo, eventos, iniciarConEspera, prepararFlujos } from './soporte';

const flujos = prepararFlujos();

const FACTURA_PAGO = 'fac_pago_1';
const REFERENCIAS = ['AAA010101AAA', 'XAXX010101000', 'P-7'];
const registrado: PasoPago = { estado: 'registrado', facturaPagoId: FACTURA_PAGO };
const listo: Paso = { estado: 'listo', referencias: REFERENCIAS };
const timbrada: Paso = { estado: 'timbrada', referencias: [...REFERENCIAS, 'UUID-PAGO'] };

/** As the API starts it (temporal/registrador-pagos.ts), waiting for esperarPago. */
const inicio = (cola: string, tipo?: 'registrarPago') => {
  const i = inicioPago(
    cola,
    { cuentaId: 'cta_1', modo: 'test', origen: { solicitudId: 'sol_1', llaveId: 'llv_1' } },
    { id: `pag_${randomUUID()}`, organizacionId: 'org_1', facturas: ['fac_a', 'fac_b'] },
  );
  return { ...i, tipo: tipo ?? i.tipo };
};

const caida = () =>
  ApplicationFailure.retryable('Deadlock found when trying to get lock', 'ER_LOCK_DEADLOCK');

describe('registrarPagoV2', () => {
  it.concurrent('ends rechazado when the ledger refuses the payment, and stamps nothing', async () => {
    const timbrados: unknown[] = [];
    const actividades = {
      registrarPagoEnLibro: async (): Promise<PasoPago> => ({
        estado: 'rechazado',
        error: { tipo: 'regla_de_negocio', codigo: 'saldo_excedido', mensaje: 'El pago excede el saldo' },
      }),
      prepararTimbrado: async (e: EntradaTimbrado) => (timbrados.push(e), listo),
    };
    await flujos.conWorker(actividades, async (cola) => {
      const { espera, handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarPago);
      expect(await espera.result()).toBe('rechazado');
      expect(await handle.result()).toBe('rechazado');
      expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('rechazado');
      expect(await atributo(handle, ATRIBUTOS.FacturaId)).toBeUndefined();
    });
    expect(timbrados).toEqual([]);
  });

  it.concurrent(
    "stamps the payment's CFDI through the invoices' path, in one workflow task, and answers esperarPago",
    async () => {
      const pasos: [string, EntradaTimbrado | EntradaPago][] = [];
      const actividades = {
        registrarPagoEnLibro: async (e: EntradaPago) => (pasos.push(['libro', e]), registrado),
        prepararTimbrado: async (e: EntradaTimbrado) => (pasos.push(['preparacion', e]), listo),
        enviarAlPac: async (e: EntradaTimbrado) => (pasos.push(['pac', e]), timbrada),
      };
      let entrada: EntradaPago | undefined;
      await flujos.conWorker(actividades, async (cola) => {
        const i = inicio(cola);
        entrada = i.entrada;
        const { espera, handle } = await iniciarConEspera(flujos.client, i, esperarPago);
        expect(await espera.result()).toBe('timbrada');
        expect(await handle.result()).toBe('timbrada');
        expect(await eventos(handle, 'workflowTaskCompletedEventAttributes')).toHaveLength(1);
        expect(await eventos(handle, 'activityTaskScheduledEventAttributes')).toHaveLength(0);
        expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('timbrada');
        expect(await atributo(handle, ATRIBUTOS.FacturaId)).toBe(FACTURA_PAGO);
        expect(await atributo(handle, ATRIBUTOS.PagoId)).toBe(entrada!.pagoId);
        expect(await atributo(handle, ATRIBUTOS.Referencias)).toEqual(timbrada.referencias);
      });
      // The CFDI's steps run for the payment's invoice, on behalf of the request that registered the payment.
      const cfdi = { facturaId: FACTURA_PAGO, cuentaId: 'cta_1', modo: 'test', origen: entrada!.origen };
      expect(pasos).toEqual([
        ['libro', entrada],
        ['preparacion', cfdi],
        ['pac', cfdi],
      ]);
    },
  );

  it.concurrent(
    'shows a failing ledger step in ErrorTimbrado while a regular activity retries it, cleared once stamped',
    async () => {
      const libro: { local: boolean; error?: string[] }[] = [];
      const actividades = {
        async registrarPagoEnLibro(): Promise<PasoPago> {
          const { local, atributos } = await flujos.enCurso();
          libro.push({ local, ...(local ? {} : { error: atributos.get(ATRIBUTOS.ErrorTimbrado) }) });
          if (local) throw caida();
          return registrado;
        },
        prepararTimbrado: async () => listo,
        enviarAlPac: async () => timbrada,
      };
      await flujos.conWorker(actividades, async (cola) => {
        const { espera, handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarPago);
        expect(await espera.result()).toBe('timbrada');
        expect(await atributo(handle, ATRIBUTOS.ErrorTimbrado)).toBeUndefined();
      });
      expect(libro).toEqual([
        { local: true },
        { local: true },
        { local: true },
        { local: false, error: ['libro', 'base_de_datos_no_disponible'] },
      ]);
    },
  );

  it.concurrent(
    "shows its CFDI's FacturaId and timbrando with a PAC error, as an invoice's stamping does",
    async () => {
      const mientras: Record<string, unknown>[] = [];
      const actividades = {
        registrarPagoEnLibro: async () => registrado,
        prepararTimbrado: async () => listo,
        async enviarAlPac(): Promise<Paso> {
          const { local, atributos } = await flujos.enCurso();
          if (local) throw new ErrorPacTransitorio('el PAC no responde');
          mientras.push({
            FacturaId: atributos.get(ATRIBUTOS.FacturaId),
            EstadoFactura: atributos.get(ATRIBUTOS.EstadoFactura),
            ErrorTimbrado: atributos.get(ATRIBUTOS.ErrorTimbrado),
            Referencias: atributos.get(ATRIBUTOS.Referencias),
          });
          return timbrada;
        },
      };
      await flujos.conWorker(actividades, async (cola) => {
        const { espera, handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarPago);
        expect(await espera.result()).toBe('timbrada');
        expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('timbrada');
        expect(await atributo(handle, ATRIBUTOS.ErrorTimbrado)).toBeUndefined();
      });
      expect(mientras).toEqual([
        {
          FacturaId: FACTURA_PAGO,
          EstadoFactura: 'timbrando',
          ErrorTimbrado: ['pac', 'pac_no_disponible'],
          Referencias: REFERENCIAS,
        },
      ]);
    },
  );

  it.concurrent('ends fallido when the PAC rejects its CFDI, recorded with registrarRechazo', async () => {
    const rechazo: ErrorTimbrado = { paso: 'pac', codigo: 'CRP20101', mensaje: 'Monto del pago inválido' };
    const rechazos: string[] = [];
    const actividades = {
      registrarPagoEnLibro: async () => registrado,
      prepararTimbrado: async () => listo,
      enviarAlPac: async (): Promise<Paso> => ({ estado: 'rechazado', error: rechazo }),
      registrarRechazo: async (e: EntradaTimbrado) => void rechazos.push(e.facturaId),
    };
    await flujos.conWorker(actividades, async (cola) => {
      const { espera, handle } = await iniciarConEspera(flujos.client, inicio(cola), esperarPago);
      expect(await espera.result()).toBe('fallido');
      expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('fallido');
      expect(await atributo(handle, ATRIBUTOS.ErrorTimbrado)).toEqual(['pac', 'CRP20101']);
      expect(await atributo(handle, ATRIBUTOS.FacturaId)).toBe(FACTURA_PAGO);
    });
    expect(rechazos).toEqual([FACTURA_PAGO]);
  });
});

describe('registrarPago (kept for the payments already running)', () => {
  it.concurrent(
    "stamps a new run's CFDI through its patched path and leaves the PDF to its own workflow",
    async () => {
      const pdfs: unknown[] = [];
      const actividades = {
        registrarPagoEnLibro: async () => registrado,
        prepararTimbrado: async () => listo,
        enviarAlPac: async () => timbrada,
        generarPdf: async (e: EntradaTimbrado) => void pdfs.push(e),
      };
      await flujos.conWorker(actividades, async (cola) => {
        const { espera, handle } = await iniciarConEspera(
          flujos.client,
          inicio(cola, 'registrarPago'),
          esperarPago,
        );
        expect(await espera.result()).toBe('timbrada');
        expect(await handle.result()).toBe('timbrada');
        expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('timbrada');
        expect(await atributo(handle, ATRIBUTOS.FacturaId)).toBe(FACTURA_PAGO);
        expect(await eventos(handle, 'activityTaskScheduledEventAttributes')).toHaveLength(0);
      });
      expect(pdfs).toEqual([]);
    },
  );

  it.concurrent('ends rechazado when the ledger refuses the payment', async () => {
    const actividades = {
      registrarPagoEnLibro: async (): Promise<PasoPago> => ({
        estado: 'rechazado',
        error: { tipo: 'regla_de_negocio', codigo: 'saldo_excedido', mensaje: 'El pago excede el saldo' },
      }),
    };
    await flujos.conWorker(actividades, async (cola) => {
      const { espera, handle } = await iniciarConEspera(
        flujos.client,
        inicio(cola, 'registrarPago'),
        esperarPago,
      );
      expect(await espera.result()).toBe('rechazado');
      expect(await atributo(handle, ATRIBUTOS.EstadoFactura)).toBe('rechazado');
    });
  });
});
