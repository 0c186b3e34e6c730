import type { Request, Response } from 'express';

/**
 * Requests the sandbox never answers (SANDBOX:TIMEOUT). Each is closed after the maximum wait, and all
 * are closed when the server stops, so server.close() does not wait minutes for them.
 */
export class Retenidas {
  private readonly abiertas = new Map<Response, NodeJS.Timeout>();

  constructor(private readonly esperaMaximaMs: number) {}

  retener(req: Request, res: Response): void {
    this.abiertas.set(
      res,
      setTimeout(() => req.socket.destroy(), this.esperaMaximaMs),
    );
    res.on('close', () => {
      clearTimeout(this.abiertas.get(res));
      this.abiertas.delete(res);
    });
  }

  soltar(): void {
    for (const [res, t] of this.abiertas) {
      clearTimeout(t);
      res.socket?.destroy();
    }
    this.abiertas.clear();
  }
}
