import { createPrivateKey, randomUUID } from 'node:crypto';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { construirComprobante } from '../cfdi/comprobante/construir';
import { sellarComprobante } from '../cfdi/comprobante/sellar';
import { leerCertificado } from '../cfdi/csd';
import { fechaCfdi } from '../cfdi/fecha';
import { crearKnex } from '../db/conexion';
import { crearPacFinkok } from '../pac/finkok/cliente';
import { cpuEntre, instantaneaCpu, servidorTemporal } from './cpu-procesos';
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
 * `npm run bench:timbrado`, with `make up` (or `TEMPORAL=servidor make up`) running: POST /v1/facturas with
 * auto-stamping through the whole local stack (API → Temporal → worker → sandbox PAC → MySQL) from 16 concurrent
 * clients, then the PDFs of those invoices rendered by the PDF worker; the same work without Temporal in this one
 * process (build, seal, PAC call, MySQL write); and the floor, an empty workflow on the same Temporal server.
 * Machine-readable lines: piso_por_segundo=, razon_piso= (stamped / floor), and last timbrado_por_segundo=.
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
  const servidor = servidorTemporal();
  const ids: string[] = [];
  const cpu0 = instantaneaCpu();
  const t0 = Date.now();
  const pila = await carga(N, async () => {
    const r = await pedir('POST', '/v1/facturas', k, factura());
    estados.set(r.status, (estados.get(r.status) ?? 0) + 1);
    if (typeof r.body.id === 'string') ids.push(r.body.id);
  });
  const tUltimoTimbre = Date.now();
  const cpuPila = cpuEntre(cpu0, instantaneaCpu());
  // The PDFs go on after the stamping: until the last of this run is stored.
  const pdfs = await esperarPdfs(db, ids);
  const cpuConPdf = cpuEntre(cpu0, instantaneaCpu());

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
  const cpu2 = instantaneaCpu();
  const piso = await pisoTemporal();
  const cpuPiso = cpuEntre(cpu2, instantaneaCpu());

  const f = (x: number) => x.toFixed(1);
  // Rendering is the PDF worker and its Chromium; everything else is the stamping path.
  const RENDER = new Set(['worker-pdf', 'chromium']);
  const sinPdf = Object.fromEntries(Object.entries(cpuPila).filter(([g]) => !RENDER.has(g)));
  const render = Object.fromEntries(Object.entries(cpuConPdf).filter(([g]) => RENDER.has(g)));
  const msSinPdf = Object.values(sinPdf).reduce((t, ms) => t + ms, 0) / N;
  console.log(
    `node ${process.version}, ${N} facturas, ${CLIENTES} clientes concurrentes, Temporal: ${servidor}`,
  );
  console.log(
    `pila completa (API + Temporal + worker + PAC + MySQL): ${f(pila.porSegundo)}/s  p50 ${f(pila.p50)} ms  p99 ${f(pila.p99)} ms  estados ${JSON.stringify(Object.fromEntries(estados))}`,
  );
  console.log(
    `sin Temporal (un proceso: construir, sellar, PAC, MySQL): ${f(directo.porSegundo)}/s  p50 ${f(directo.p50)} ms  p99 ${f(directo.p99)} ms`,
  );
  console.log(
    `Temporal solo (flujo vacío con Update-With-Start, mismo servidor, worker en este proceso): ${f(piso.porSegundo)}/s  p50 ${f(piso.p50)} ms  p99 ${f(piso.p99)} ms`,
  );
  console.log(
    `PDF aparte: ${ids.length} PDF guardados ${f(pdfs.msTrasUltimoTimbre / 1000)} s después del último timbre; ${f((ids.length * 1000) / (pdfs.tUltimo - t0))} PDF/s desde el inicio de la ráfaga; CPU por PDF: ${cpuPorOperacion(render, N)}`,
  );
  console.log(
    `CPU por flujo vacío (el piso; su worker es este proceso): ${cpuPorOperacion(cpuPiso, N + 20)}`,
  );
  console.log(`CPU por factura durante la ráfaga (todo): ${cpuPorOperacion(cpuPila, N)}`);
  console.log(`CPU por factura sin el render del PDF: ${cpuPorOperacion(sinPdf, N)}`);
  console.log(`CPU por factura, sin Temporal: ${cpuPorOperacion(cpuDirecto, N)}`);
  console.log(`servidor_temporal=${servidor}`);
  console.log(`cpu_ms_por_factura_sin_pdf=${msSinPdf.toFixed(1)}`);
  console.log(`cpu_ms_worker_por_factura=${((cpuPila.worker ?? 0) / N).toFixed(1)}`);
  console.log(`pdf_segundos_tras_ultimo_timbre=${(pdfs.msTrasUltimoTimbre / 1000).toFixed(1)}`);
  console.log(`razon=${(pila.porSegundo / directo.porSegundo).toFixed(2)}`);
  console.log(`piso_por_segundo=${f(piso.porSegundo)}`);
  console.log(`razon_piso=${(pila.porSegundo / piso.porSegundo).toFixed(2)}`);
  console.log(`timbrado_por_segundo=${f(pila.porSegundo)}`);

  async function esperarPdfs(bd: typeof db, facturas: string[]) {
    for (;;) {
      const fila = (await bd('facturas').whereIn('id', facturas).whereNotNull('pdf').count({ n: '*' }))[0] as
        | { n: number }
        | undefined;
      if (Number(fila?.n ?? 0) >= facturas.length) {
        const tUltimo = Date.now();
        return { tUltimo, msTrasUltimoTimbre: tUltimo - tUltimoTimbre };
      }
      if (Date.now() - tUltimoTimbre > 300_000) throw new Error('los PDF no se guardaron en 5 minutos');
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

main().catch((e) => {
  console.error(`bench:timbrado: ${(e as Error).message}`);
  process.exit(1);
});
