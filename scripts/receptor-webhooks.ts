/**
 * A webhook receiver for trying the service by hand (README, «Inicio rápido»): it verifies each delivery's
 * signature with the SDK and prints the event. WEBHOOK_SECRETO holds the `secreto_firma` (comma-separated during
 * a rotation); PUERTO the port on 127.0.0.1 (4000).
 *
 *   WEBHOOK_SECRETO=whsec_… npm run webhooks:receptor
 */
import { createServer } from 'node:http';
import { ErrorFirmaWebhook, verificarWebhook } from '../sdk/src';

const secretos = (process.env.WEBHOOK_SECRETO ?? '').split(',').filter(Boolean);
if (!secretos.length) {
  process.stderr.write('Falta WEBHOOK_SECRETO: el secreto_firma que devolvió POST /v1/webhooks.\n');
  process.exit(2);
}
const puerto = Number(process.env.PUERTO ?? 4000);

createServer((req, res) => {
  const partes: Buffer[] = [];
  req.on('data', (p: Buffer) => partes.push(p));
  req.on('end', () => {
    try {
      // The raw bytes: re-serialized JSON would not match the signature.
      const evento = verificarWebhook({ cuerpo: Buffer.concat(partes), encabezados: req.headers, secretos });
      const datos = evento.datos as { id?: string; uuid?: string | null };
      process.stdout.write(
        `firma verificada: ${evento.tipo} ${evento.id} (${datos.id ?? ''}${datos.uuid ? `, UUID ${datos.uuid}` : ''})\n`,
      );
      res.writeHead(200).end();
    } catch (e) {
      const motivo = e instanceof ErrorFirmaWebhook ? e.message : String(e);
      process.stdout.write(`entrega rechazada: ${motivo}\n`);
      res.writeHead(400).end();
    }
  });
}).listen(puerto, '127.0.0.1', () => {
  process.stdout.write(`Recibiendo webhooks en http://127.0.0.1:${puerto}/ (Ctrl-C para terminar)\n`);
});
