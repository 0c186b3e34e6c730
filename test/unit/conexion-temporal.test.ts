import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { status } from '@grpc/grpc-js';
import { opcionesConexion, toleraCanalCerrado } from '../../temporal/conexion';

/** A port nothing listens on: every call fails UNAVAILABLE, which the SDK retries after a timer. */
async function puertoCerrado(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('conexión con Temporal', () => {
  it('cerrarla con un reintento pendiente rechaza esa llamada (CANCELLED) en vez de tirar el proceso', async () => {
    const conexion = Connection.lazy(opcionesConexion(`127.0.0.1:${await puertoCerrado()}`));
    const llamada = conexion.workflowService.getSystemInfo({});
    const resultado = llamada.then(
      () => 'respondió',
      (e: { code?: number }) => e.code,
    );
    // The first attempt fails at once; its retry waits on a timer when the connection closes.
    await new Promise((r) => setTimeout(r, 50));
    await conexion.close();
    expect(await resultado).toBe(status.CANCELLED);
  }, 10_000);

  it('una llamada que empieza con la conexión ya cerrada se rechaza, sin excepción fuera de la llamada', async () => {
    const conexion = Connection.lazy(opcionesConexion(`127.0.0.1:${await puertoCerrado()}`));
    await conexion.close();
    const codigo = await conexion.workflowService.getSystemInfo({}).then(
      () => 'respondió',
      (e: { code?: number }) => e.code,
    );
    expect(codigo).toBe(status.CANCELLED);
  }, 10_000);

  it('solo traduce el cierre del canal: cualquier otro error sigue siendo un error', () => {
    const otro = new Error('otra cosa');
    expect(() =>
      toleraCanalCerrado({} as never, () => {
        throw otro;
      }),
    ).toThrow(otro);
  });
});
