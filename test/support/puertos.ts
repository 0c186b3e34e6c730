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

const libre = (puerto: number) =>
  new Promise<boolean>((r) => {
    const s = createServer();
    s.once('error', () => r(false));
    s.listen(puerto, '127.0.0.1', () => s.close(() => r(true)));
  });

/**
 * The first of `n` consecutive ports free right now, all below `bajoDe` (and so below the ephemeral ports the OS
 * hands out, which start at 32768): for a server whose services take a port each after the first.
 */
export async function puertosConsecutivos(n: number, bajoDe: number): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const base = 20_000 + Math.floor(Math.random() * (bajoDe - 20_000 - n));
    const todos = await Promise.all(Array.from({ length: n }, (_, k) => libre(base + k)));
    if (todos.every(Boolean)) return base;
  }
  throw new Error(`no hay ${n} puertos consecutivos libres bajo ${bajoDe}`);
}
