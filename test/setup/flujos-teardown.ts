import { rmSync } from 'node:fs';
import { detenerServidor } from '../support/servidor-temporal';
import type { RecursosFlujos } from './flujos-setup';

export default async function flujosTeardown() {
  const recursos = (globalThis as { __flujos?: RecursosFlujos }).__flujos;
  if (!recursos) return;
  const { servidor, archivos } = recursos;
  await detenerServidor(servidor);
  for (const f of archivos) rmSync(f, { force: true });
}
