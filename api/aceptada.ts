import type { Response } from 'express';

/** Seconds a client should wait before looking again at a process still going on. */
export const SEGUNDOS_ANTES_DE_CONSULTAR = 2;

const COLECCION = { factura: 'facturas', pago: 'pagos', entrega: 'entregas', correo: 'correos' } as const;

/** Where a resource that answers 202 is polled. */
export const rutaDelRecurso = (r: { objeto: keyof typeof COLECCION; id: string }) =>
  `/v1/${COLECCION[r.objeto]}/${r.id}`;

/**
 * 202: the operation goes on in the background. `Location` names the resource to poll and `Retry-After` when
 * (RFC 9110 §10.2.2, §10.2.3), so clients need not know each resource's path. The caller sends the body.
 */
export const aceptada = (res: Response, recurso: Parameters<typeof rutaDelRecurso>[0]) =>
  res
    .status(202)
    .set('Location', rutaDelRecurso(recurso))
    .set('Retry-After', String(SEGUNDOS_ANTES_DE_CONSULTAR));
