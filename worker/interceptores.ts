import { ApplicationFailure, type Next } from '@temporalio/common';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  ActivityInterceptorsFactory,
} from '@temporalio/worker';
import { serializarError } from '../log/logger';

/** Whether an error chain comes from the database driver: knex and mysql2 put the statement in it. */
const deBaseDeDatos = (err: unknown): err is Error =>
  err instanceof Error && ('sql' in err || 'sqlMessage' in err || 'sqlState' in err);

/**
 * A failed activity's message and stack are stored in the workflow history (and shown in the Temporal UI):
 * a database error would put the whole statement there, an invoice's document included. It is thrown again
 * without the statement (the logger's own redaction), still retryable, with the driver's code as its type.
 */
class SinSqlEnFallas implements ActivityInboundCallsInterceptor {
  async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    try {
      return await next(input);
    } catch (err) {
      if (!deBaseDeDatos(err)) throw err;
      const limpio = serializarError(err) as { message?: string };
      const codigo = (err as { code?: unknown }).code;
      throw ApplicationFailure.retryable(
        limpio.message ?? 'error de la base de datos',
        typeof codigo === 'string' ? codigo : 'ErrorBaseDeDatos',
      );
    }
  }
}

export const interceptoresActividad: ActivityInterceptorsFactory[] = [
  () => ({ inbound: new SinSqlEnFallas() }),
];
