import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ATRIBUTOS } from '../../workflows/atributos';
import { reintentarAhora } from '../../workflows/pasos';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';

const dormir = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('una falla al sellar se ve en la factura y en Temporal', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila({ timbradoEsperaMs: 10_000 });
  });
  afterAll(() => pila.detener());

  it('un CSD guardado que ya no abre: fallido con paso sellado, visible en Temporal, la historia cerrada', async () => {
    const c = await cuentaLista(pila);
    // The stored key no longer decrypts (a damaged row): every retry would fail the same way.
    await pila
      .db('certificados')
      .where({ organizacion_id: c.org })
      .update({ llave_cifrada: Buffer.alloc(64, 7) });
    const r = await c.http.post('/v1/facturas', facturaNueva(c));
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ codigo: 'timbrado_rechazado' });
    const id = r.body.error.factura as string;
    const f = (await c.http.get(`/v1/facturas/${id}`)).body;
    expect(f).toMatchObject({ estado: 'borrador', timbrado: { estado: 'fallido', intentos: 0 } });
    expect(f.timbrado.ultimo_error).toMatchObject({ codigo: 'comprobante_invalido', paso: 'sellado' });
    expect(f.timbrado.ultimo_error.mensaje).toMatch(/No se pudo construir o sellar el CFDI: .+/);

    const h = pila.cliente.workflow.getHandle(`timbrado:${id}`);
    expect(await h.result()).toBe('fallido');
    const d = await h.describe();
    expect(d.typedSearchAttributes.get(ATRIBUTOS.EstadoFactura)).toBe('fallido');
    expect(d.typedSearchAttributes.get(ATRIBUTOS.ErrorTimbrado)).toEqual(['sellado', 'comprobante_invalido']);
    const eventos = (await h.fetchHistory()).events!.length;
    await dormir(3000);
    expect((await h.fetchHistory()).events!.length).toBe(eventos);
  });
});

/**
 * The workflow's own behaviour while a step keeps failing, with activities that fail on command: a step that
 * cannot reach the database is shown on the workflow and retried by a regular activity, whose retries add
 * nothing to the history; the operator's retry-now starts a new attempt at once.
 */
describe('un paso que sigue fallando no hace crecer la historia y se reintenta a pedido', () => {
  let pila: Pila;
  let worker: Worker;
  let corriendo: Promise<void>;
  let conexion: NativeConnection;
  const taskQueue = `visibilidad-${randomUUID()}`;
  const estado = { caida: true, intentos: [] as number[] };

  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, pac: false });
    conexion = await NativeConnection.connect({ address: pila.config.temporal.address });
    worker = await Worker.create({
      connection: conexion,
      namespace: pila.config.temporal.namespace,
      taskQueue,
      workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
      activities: {
        async prepararTimbrado() {
          estado.intentos.push(Context.current().info.attempt);
          // As the worker's interceptor throws a database error: the driver's code as its type.
          if (estado.caida)
            throw ApplicationFailure.retryable('connect ECONNREFUSED 127.0.0.1:3306', 'ECONNREFUSED');
          return { estado: 'listo', referencias: ['EKU9003173C9', 'A-1'] };
        },
        async enviarAlPac() {
          return { estado: 'timbrada', referencias: ['EKU9003173C9', 'A-1', 'UUID-DE-PRUEBA'] };
        },
        async registrarRechazo() {},
        async generarPdf() {},
      },
    });
    corriendo = worker.run();
  });
  afterAll(async () => {
    worker.shutdown();
    await corriendo;
    await conexion.close();
    await pila.detener();
  });

  it('la base de datos caída al preparar: ErrorTimbrado y la falla en la actividad pendiente; reintentar ahora', async () => {
    const facturaId = `fac_${randomUUID().replace(/-/g, '').slice(0, 26)}`;
    const h = await pila.cliente.workflow.start('timbrarFacturaV2', {
      taskQueue,
      workflowId: `timbrado:${facturaId}`,
      args: [{ facturaId, cuentaId: 'cta_prueba', modo: 'test' }],
    });
    // Past the local tries, the regular activity has failed twice more: it waits in its backoff.
    const d = await esperar(async () => {
      const x = await h.describe();
      const p = x.raw.pendingActivities?.[0];
      return p && (p.attempt ?? 0) >= 3 ? x : undefined;
    }, 60_000);
    expect(d.typedSearchAttributes.get(ATRIBUTOS.ErrorTimbrado)).toEqual([
      'preparacion',
      'base_de_datos_no_disponible',
    ]);
    const pendiente = d.raw.pendingActivities![0]!;
    expect(pendiente.activityType?.name).toBe('prepararTimbrado');
    expect(pendiente.lastFailure?.message).toContain('ECONNREFUSED');

    const antes = (await h.fetchHistory()).events!.length;
    await dormir(8000);
    expect((await h.fetchHistory()).events!.length).toBe(antes);
    expect(estado.intentos.length).toBeGreaterThanOrEqual(6);

    estado.caida = false;
    expect(await h.executeUpdate(reintentarAhora)).toBe(true);
    expect(await h.result()).toBe('timbrada');
    // A new activity (attempt 1), not the old one's next backoff attempt.
    expect(estado.intentos[estado.intentos.length - 1]).toBe(1);
    const fin = await h.describe();
    expect(fin.typedSearchAttributes.get(ATRIBUTOS.ErrorTimbrado)).toBeUndefined();
    expect(fin.typedSearchAttributes.get(ATRIBUTOS.Referencias)).toContain('UUID-DE-PRUEBA');
    // Nothing to cut short once it has ended.
    await expect(h.executeUpdate(reintentarAhora)).rejects.toThrow();
  });
});
