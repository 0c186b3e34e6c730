/**
 * Waits for a workflow update at most `ms`. Whatever wins, the workflow goes on; the caller reads the
 * outcome back from MySQL, the system of record.
 */
export async function esperarAcotado(actualizacion: Promise<unknown>, ms: number): Promise<void> {
  let reloj: NodeJS.Timeout | undefined;
  const limite = new Promise<void>((r) => {
    reloj = setTimeout(r, ms);
  });
  try {
    await Promise.race([actualizacion, limite]);
  } finally {
    clearTimeout(reloj);
    actualizacion.catch(() => undefined);
  }
}
