import { createPrivateKey, randomUUID } from 'node:crypto';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { construirComprobante } from '../cfdi/comprobante/construir';
import { sellarComprobante } from '../cfdi/comprobante/sellar';
import { leerCertificado } from '../cfdi/csd';
import { fechaCfdi } from '../cfdi/fecha';
import { crearKnex } from '../db/conexion';
import { crearPacFinkok } from '../pac/finkok/cliente';
import { cpuEntre, instantaneaCpu } from './cpu-procesos';
import { listo, type flujoVacio } from './flujo-vacio';
import {
  CLIENTES,
  carga,
  cer,
  concepto,
  config,
  cpuPorOperacion,
  cuentaLista,
  exigirPilaSana,
  facturaNueva,
  key,
  pedir,
  receptor,
} from './pila-http';

/**
 * `npm run bench:timbrado`, with `make up` running: POST /v1/facturas with auto-stamping through the whole
 * local stack (API → Temporal → worker → sandbox PAC → MySQL) from 16 concurrent clients; then the same work
 * without Temporal in this one process (build, seal, PAC call, MySQL write) for the ratio.
 * Last line: timbrado_por_segundo=<n>.
 */
const N = Number(process.env.BENCH_N ?? 400);

/**
 * What the Temporal server alone allows: the same concurrency of Update-With-Start against a workflow that
 * does nothing, with its worker in this process. No stamping through Temporal can be faster than this.
 */
async function pisoTemporal() {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const taskQueue = `bench-vacio-${randomUUID()}`;
  const conexion = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await Worker.create({
    connection: conexion,
    namespace: config.temporal.namespace,
    taskQueue,
    workflowsPath: require.resolve('./flujo-vacio'),
  });
  const corriendo = worker.run();
  const cliente = new Client({
    connection: await Connection.connect({ address: config.temporal.address }),
    namespace: config.temporal.namespace,
  });
  const paso = (i: number) =>
    cliente.workflow.executeUpdateWithStart(listo, {
      startWorkflowOperation: new WithStartWorkflowOperation<typeof flujoVacio>('flujoVacio', {
        workflowId: `${taskQueue}-${i}`,
        taskQueue,
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
  await carga(20, async (i) => void (await paso(N + i)));
  const r = await carga(N, async (i) => void (await paso(i)));
  worker.shutdown();
  await corriendo;
  await Promise.all([conexion.close(), cliente.connection.close()]);
  return r;
}

async function main() {
  const db = crearKnex(config.databaseUrl);
  await exigirPilaSana();
  const { llave: k, org } = await cuentaLista(db, 'Bench timbrado');
  const estados = new Map<number, number>();
  const factura = () => facturaNueva(org);
  await carga(20, async () => void (await pedir('POST', '/v1/facturas', k, factura())));
  const cpu0 = instantaneaCpu();
  const pila = await carga(N, async () => {
    const r = await pedir('POST', '/v1/facturas', k, factura());
    estados.set(r.status, (estados.get(r.status) ?? 0) + 1);
  });
  const cpuPila = cpuEntre(cpu0, instantaneaCpu());

  // The same work without Temporal: build, seal, the PAC call (same adapter, same sandbox), one MySQL write.
  const certificado = leerCertificado(cer);
  const privada = createPrivateKey({ key, format: 'der', type: 'pkcs8', passphrase: '12345678a' });
  const pac = crearPacFinkok({ url: config.pac.sandboxUrl, usuario: 'sandbox', contrasena: 'sandbox' });
  await db.raw(
    'CREATE TABLE IF NOT EXISTS bench_timbrado (uuid CHAR(36) PRIMARY KEY, xml LONGTEXT NOT NULL) CHARSET utf8mb4',
  );
  const cpu1 = instantaneaCpu();
  const directo = await carga(N, async (i) => {
    const { nodo } = construirComprobante({
      tipo: 'I',
      serie: 'BENCH',
      folio: `${Date.now()}${i}`,
      fecha: fechaCfdi(new Date(), 'Tiempo del Centro'),
      forma_pago: '03',
      metodo_pago: 'PUE',
      moneda: 'MXN',
      decimales_moneda: 2,
      exportacion: '01',
      lugar_expedicion: '42501',
      emisor: { rfc: 'EKU9003173C9', nombre: 'ESCUELA KEMPER URGATE', regimen_fiscal: '601' },
      receptor: { ...receptor },
      conceptos: [concepto],
      no_certificado: certificado.noCertificado,
      certificado: certificado.certificadoBase64,
    });
    const r = await pac.timbrar(sellarComprobante(nodo, privada).xml);
    if (r.tipo !== 'timbrado') throw new Error(`${r.codigo} ${r.mensaje}`);
    await db('bench_timbrado').insert({ uuid: r.uuid, xml: r.xml });
  });
  const cpuDirecto = cpuEntre(cpu1, instantaneaCpu());
  await db.raw('DROP TABLE bench_timbrado');
  await db.destroy();
  const piso = await pisoTemporal();

  const f = (x: number) => x.toFixed(1);
  console.log(`node ${process.version}, ${N} facturas, ${CLIENTES} clientes concurrentes`);
  console.log(
    `pila completa (API + Temporal + worker + PAC + MySQL): ${f(pila.porSegundo)}/s  p50 ${f(pila.p50)} ms  p99 ${f(pila.p99)} ms  estados ${JSON.stringify(Object.fromEntries(estados))}`,
  );
  console.log(
    `sin Temporal (un proceso: construir, sellar, PAC, MySQL): ${f(directo.porSegundo)}/s  p50 ${f(directo.p50)} ms  p99 ${f(directo.p99)} ms`,
  );
  console.log(
    `Temporal solo (flujo vacío con Update-With-Start, mismo servidor, worker en este proceso): ${f(piso.porSegundo)}/s  p50 ${f(piso.p50)} ms  p99 ${f(piso.p99)} ms`,
  );
  console.log(`CPU por factura, pila completa: ${cpuPorOperacion(cpuPila, N)}`);
  console.log(`CPU por factura, sin Temporal: ${cpuPorOperacion(cpuDirecto, N)}`);
  console.log(`razon=${(pila.porSegundo / directo.porSegundo).toFixed(2)}`);
  console.log(`timbrado_por_segundo=${f(pila.porSegundo)}`);
}

main().catch((e) => {
  console.error(`bench:timbrado: ${(e as Error).message}`);
  process.exit(1);
});
