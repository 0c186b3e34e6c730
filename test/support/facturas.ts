import { randomBytes } from 'node:crypto';
import { archivoSat, CONTRASENA_PRUEBA, CSD_VALIDO } from './certificados';
import { CLIENTE, nuevaCuenta, ORGANIZACION, PRODUCTO, type CuentaDePrueba } from './cuentas';
import type { Pila } from './pila';

/** An account with an organization, its valid test CSD, a client and a product: ready to invoice. */
export async function cuentaLista(
  pila: Pick<Pila, 'db' | 'url'>,
): Promise<CuentaDePrueba & { org: string; cli: string; prod: string; serie: string }> {
  const c = await nuevaCuenta(pila.db, pila.url);
  const org = (await c.http.post('/v1/organizaciones', ORGANIZACION)).body.id;
  const cert = await c.http.post('/v1/certificados', {
    organizacion: org,
    cer: archivoSat(CSD_VALIDO.cer).toString('base64'),
    llave: archivoSat(CSD_VALIDO.key).toString('base64'),
    contrasena: CONTRASENA_PRUEBA,
  });
  expect(cert.status).toBe(201);
  const cli = (await c.http.post('/v1/clientes', { ...CLIENTE, organizacion: org })).body.id;
  const prod = (await c.http.post('/v1/productos', { ...PRODUCTO, organizacion: org })).body.id;
  // Every file stamps with the same CSD and client, and each new organization's folios start at 1, through one
  // sandbox PAC: two files could seal byte-identical CFDIs in the same second and get each other's stamp. A series
  // of the account's own keeps them apart.
  const serie = `T${randomBytes(4).toString('hex').toUpperCase()}`;
  return { ...c, org, cli, prod, serie };
}

export const facturaNueva = (
  c: { org: string; prod: string; serie?: string },
  extra: Record<string, unknown> = {},
) => ({
  organizacion: c.org,
  ...(c.serie ? { serie: c.serie } : {}),
  tipo: 'ingreso',
  cliente: CLIENTE.rfc,
  forma_pago: '03',
  conceptos: [
    { producto: c.prod, cantidad: 2 },
    {
      cantidad: '1',
      clave_prod_serv: '43211914',
      clave_unidad: 'H87',
      unidad: 'Pieza',
      descripcion: 'Pantalla LED 24" & cable <HDMI>',
      valor_unitario: '3499.99',
      objeto_imp: '02',
      impuestos: { traslados: [{ impuesto: '002', tipo_factor: 'Tasa', tasa_o_cuota: '0.160000' }] },
    },
  ],
  ...extra,
});

export async function esperar<T>(fn: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const limite = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > limite) throw new Error('tiempo agotado esperando');
    await new Promise((r) => setTimeout(r, 200));
  }
}
