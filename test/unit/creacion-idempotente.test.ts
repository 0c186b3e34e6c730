import type { Transaccion } from '../../db/transacciones';
import { alcance, tablaFacturas } from '../support/memoria';
import { crearServiciosEnMemoria, sembrar, solicitudFactura } from '../support/memoria/servicios';

const a = alcance();

describe('creación con Clave-Idempotencia (servicio de facturas)', () => {
  it('anota la factura nueva dentro de la transacción que la crea', async () => {
    const s = crearServiciosEnMemoria();
    const ids = await sembrar(s, a);
    const anotadas: { tx: Transaccion; id: string; filas: number }[] = [];
    const r = await s.facturas.crear(a, solicitudFactura(ids), {
      // What the row count is at that moment tells whether the invoice is in the same unit of work.
      anotar: async (tx, id) =>
        void anotadas.push({ tx, id, filas: tablaFacturas(s.m.almacen).todas().length }),
    });
    expect(anotadas).toHaveLength(1);
    expect(anotadas[0]!.id).toBe(r.factura.id);
    expect(anotadas[0]!.filas).toBe(1);
  });

  it('una factura anotada se reanuda: no se crea otra, y se responde como la primera vez', async () => {
    const s = crearServiciosEnMemoria();
    const ids = await sembrar(s, a);
    s.timbrador.desenlace('pendiente');
    const primera = await s.facturas.crear(a, solicitudFactura(ids));
    expect(primera.pendiente).toBe(true);
    const llamadas = s.timbrador.llamadas.length;
    // The retry: its stamping is started or joined again, and it reports the stamp the workflow wrote since.
    const reanudada = await s.facturas.crear(a, solicitudFactura(ids), { recurso: primera.factura.id });
    expect(reanudada).toMatchObject({
      factura: { id: primera.factura.id, estado: 'timbrada' },
      pendiente: false,
    });
    expect(s.timbrador.llamadas.length).toBe(llamadas + 1);
    expect(tablaFacturas(s.m.almacen).todas()).toHaveLength(1);
  });

  it('un borrador anotado se reanuda sin pedir timbrado', async () => {
    const s = crearServiciosEnMemoria();
    const ids = await sembrar(s, a);
    const primera = await s.facturas.crear(a, solicitudFactura(ids, { auto_timbrar: false }));
    const llamadas = s.timbrador.llamadas.length;
    const reanudada = await s.facturas.crear(a, solicitudFactura(ids, { auto_timbrar: false }), {
      recurso: primera.factura.id,
    });
    expect(reanudada).toEqual(primera);
    expect(s.timbrador.llamadas.length).toBe(llamadas);
  });
});
