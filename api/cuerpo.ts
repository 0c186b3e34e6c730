import type { Request } from 'express';
import type { Cuerpo, operations } from '../contrato';

/**
 * The body of an operation, as its schema in openapi.yaml types it: express-openapi-validator has checked it by
 * then. Passing it to a service checks the service's parameter against the contract at compile time.
 */
export const cuerpo = <Op extends keyof operations>(req: Request, _operacion: Op) => req.body as Cuerpo<Op>;
