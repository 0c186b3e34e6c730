import { Catalogos } from './recursos/catalogos';
import { Correos } from './recursos/correos';
import { Cuenta, Llaves } from './recursos/cuenta';
import { Certificados, Clientes, Organizaciones, Productos } from './recursos/emisores';
import { Facturas } from './recursos/facturas';
import { Pagos } from './recursos/pagos';
import { Pendientes, Resumen } from './recursos/pendientes';
import { Recibos } from './recursos/recibos';
import { FacturasGlobales } from './recursos/facturas-globales';
import { Entregas, Eventos, Webhooks } from './recursos/webhooks';
import { Transporte, type OpcionesCliente } from './transporte';

/**
 * Client of the CFDI API. Every POST carries a `Clave-Idempotencia` (a random UUID unless given), reused by its
 * retries; 409 `solicitud_en_curso`, 429 and 503 are retried with backoff and `Retry-After`; error answers throw
 * `ErrorApi` subclasses.
 *
 * ```ts
 * const sdk = new ClienteCfdi({ llave: process.env.CFDI_LLAVE!, urlBase: 'https://api.example.mx' });
 * for await (const f of sdk.facturas.listar({ estado: 'timbrada' })) console.log(f.uuid);
 * ```
 */
export class ClienteCfdi {
  readonly facturas: Facturas;
  readonly clientes: Clientes;
  readonly productos: Productos;
  readonly organizaciones: Organizaciones;
  readonly certificados: Certificados;
  readonly pagos: Pagos;
  readonly recibos: Recibos;
  readonly facturasGlobales: FacturasGlobales;
  readonly webhooks: Webhooks;
  readonly eventos: Eventos;
  readonly entregas: Entregas;
  readonly correos: Correos;
  readonly pendientes: Pendientes;
  readonly resumen: Resumen;
  readonly cuenta: Cuenta;
  readonly llaves: Llaves;
  readonly catalogos: Catalogos;

  constructor(opciones: OpcionesCliente) {
    const t = new Transporte(opciones);
    this.facturas = new Facturas(t);
    this.clientes = new Clientes(t);
    this.productos = new Productos(t);
    this.organizaciones = new Organizaciones(t);
    this.certificados = new Certificados(t);
    this.pagos = new Pagos(t);
    this.recibos = new Recibos(t);
    this.facturasGlobales = new FacturasGlobales(t);
    this.webhooks = new Webhooks(t);
    this.eventos = new Eventos(t);
    this.entregas = new Entregas(t);
    this.correos = new Correos(t);
    this.pendientes = new Pendientes(t);
    this.resumen = new Resumen(t);
    this.cuenta = new Cuenta(t);
    this.llaves = new Llaves(t);
    this.catalogos = new Catalogos(t);
  }
}
