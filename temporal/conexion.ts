import { Client, Connection } from '@temporalio/client';

export interface OpcionesTemporal {
  address: string;
  namespace: string;
}

export async function conectarCliente(op: OpcionesTemporal): Promise<Client> {
  const connection = await Connection.connect({ address: op.address });
  return new Client({ connection, namespace: op.namespace });
}
