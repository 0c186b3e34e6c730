import { createServer, type Server } from 'node:net';

/**
 * `n` distinct ports the OS reports free right now. All are held open until every one is chosen:
 * closing one before asking for the next can hand out the same port twice.
 */
export async function puertosLibres(n: number): Promise<number[]> {
  const servidores: Server[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const s = createServer();
      servidores.push(s);
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return servidores.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servidores.map((s) => new Promise((r) => s.close(r))));
  }
}
