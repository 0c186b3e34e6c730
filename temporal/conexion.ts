import { InterceptingCall, Metadata, status, type Interceptor, type StatusObject } from '@grpc/grpc-js';
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  type ConnectionOptions,
  makeGrpcRetryInterceptor,
} from '@temporalio/client';

export interface OpcionesTemporal {
  address: string;
  namespace: string;
}

const CANAL_CERRADO = 'Channel has been shut down';

/**
 * The SDK's retry interceptor schedules each retry with a timer that `Connection.close()` does not clear. A retry
 * firing after the close makes grpc-js throw inside that timer, an uncaught exception that kills the process (a
 * stopping API, or the test run that closed a stack). Placed below the retry interceptor, this turns that throw
 * into a CANCELLED status for the call, which is not retried and rejects its promise like any other failure.
 */
export const toleraCanalCerrado: Interceptor = (options, siguiente) => {
  try {
    return new InterceptingCall(siguiente(options));
  } catch (e) {
    if (!(e instanceof Error) || e.message !== CANAL_CERRADO) throw e;
    return new InterceptingCall(llamadaCancelada());
  }
};

/** A call that never reaches the network: it ends CANCELLED as soon as it starts. */
function llamadaCancelada(): ConstructorParameters<typeof InterceptingCall>[0] {
  const nada = () => undefined;
  return {
    start(_metadata, listener) {
      const fin: StatusObject = {
        code: status.CANCELLED,
        details: 'la conexión con Temporal se cerró',
        metadata: new Metadata(),
      };
      // No message, then the status: the retry interceptor above relays a message before any final status.
      setImmediate(() => {
        listener?.onReceiveMessage?.(undefined);
        listener?.onReceiveStatus?.(fin);
      });
    },
    cancelWithStatus: nada,
    getPeer: () => '',
    sendMessageWithContext: nada,
    sendMessage: nada,
    startRead: nada,
    halfClose: nada,
    getAuthContext: () => null,
  };
}

/** The SDK's retries, and safe to close while some call is still waiting for its next retry. */
export const opcionesConexion = (address: string): ConnectionOptions => ({
  address,
  interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), toleraCanalCerrado],
});

export const conectarTemporal = (address: string): Promise<Connection> =>
  Connection.connect(opcionesConexion(address));

export async function conectarCliente(op: OpcionesTemporal): Promise<Client> {
  return new Client({ connection: await conectarTemporal(op.address), namespace: op.namespace });
}
