import { Client } from '@temporalio/client';
import { cargarConfigSinSecretos } from '../config/config';
import { conectarTemporal } from '../temporal/conexion';
import { describirFlujo } from '../temporal/describir';

/** Operator command: `npm run -s flujo:describir -- timbrado:fac_…` prints the workflow as JSON, readable. */
async function main() {
  const [workflowId] = process.argv.slice(2);
  if (!workflowId) {
    console.error('uso: npm run -s flujo:describir -- <workflow id, p. ej. timbrado:fac_…>');
    process.exit(2);
  }
  const { temporal } = cargarConfigSinSecretos();
  const connection = await conectarTemporal(temporal.address);
  try {
    const cliente = new Client({ connection, namespace: temporal.namespace });
    const d = await cliente.workflow.getHandle(workflowId).describe();
    console.log(JSON.stringify(await describirFlujo(d), null, 2));
  } finally {
    await connection.close();
  }
}

main().catch((e) => {
  console.error((e as Error).message);
  process.exit(1);
});
