import { nuevoId } from '../db/ids';
import type { FilaCliente, RepositorioClientes } from '../db/repositorios/clientes';
import type { Alcance } from '../dominio/alcance';
import { RegistroDuplicado } from '../dominio/errores';

/** The receiver of a sale nobody asked to invoice: the general public (Anexo 20, factura global). */
export const PUBLICO_EN_GENERAL = {
  rfc: 'XAXX010101000',
  nombre: 'PUBLICO EN GENERAL',
  regimen_fiscal: '616',
  uso_cfdi: 'S01',
};

export type DatosClienteVenta = Omit<
  FilaCliente,
  'id' | 'modo' | 'organizacion_id' | 'creado_en' | 'actualizado_en'
>;

/**
 * The organization's active client with the buyer's RFC (unique, except the generic RFCs: any of those), else a
 * new one with the buyer's data. Two first requests may race to create it: the RFC's unique key lets one win
 * and the other reads it. Receipts' buyers and global invoices both invoice a sale to such a client.
 */
export async function clienteDeVenta(
  deps: { clientes: Pick<RepositorioClientes, 'porRfc' | 'insertar'> },
  a: Alcance,
  organizacionId: string,
  datos: DatosClienteVenta,
  ahora: () => Date,
): Promise<FilaCliente> {
  const existente = async () => (await deps.clientes.porRfc(a, organizacionId, datos.rfc))[0];
  const hallado = await existente();
  if (hallado) return hallado;
  try {
    await deps.clientes.insertar(a, nuevoId('cli'), { ...datos, organizacion_id: organizacionId }, ahora());
  } catch (e) {
    if (!(e instanceof RegistroDuplicado)) throw e;
  }
  return (await existente())!;
}
