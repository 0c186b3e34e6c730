import { clienteHttp } from '../support/cliente-http';
import { CLIENTE, habilitarLive, llaveLiveDirecta, nuevaCuenta, ORGANIZACION } from '../support/cuentas';
import { iniciarPila, type Pila } from '../support/pila';

// The test configuration has no real PAC: live mode must refuse stamping and cancelling with a clear
// 503 before storing anything, never start a workflow that can only fail.
describe('modo live sin PAC configurado', () => {
  let pila: Pila;
  beforeAll(async () => {
    pila = await iniciarPila({ worker: false, pac: false });
  });
  afterAll(() => pila.detener());

  it('POST /v1/facturas y …/cancelar de una factura propia responden 503 pac_no_disponible y no crean nada', async () => {
    expect(pila.config.pac.live).toBeUndefined();
    const cuenta = await nuevaCuenta(pila.db, pila.url);
    await habilitarLive(pila.db, cuenta.cuentaId);
    const live = clienteHttp(pila.url, await llaveLiveDirecta(pila.db, cuenta.cuentaId));
    const org = await live.post('/v1/organizaciones', ORGANIZACION);
    expect(org.status).toBe(201);
    expect((await live.post('/v1/clientes', { ...CLIENTE, organizacion: org.body.id })).status).toBe(201);

    const solicitud = {
      organizacion: org.body.id,
      tipo: 'ingreso',
      cliente: CLIENTE.rfc,
      forma_pago: '03',
      conceptos: [
        {
          cantidad: '1',
          clave_prod_serv: '80111600',
          clave_unidad: 'E48',
          descripcion: 'Servicio',
          valor_unitario: '100',
          objeto_imp: '01',
        },
      ],
    };
    const r = await live.post('/v1/facturas', solicitud);
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ tipo: 'servicio_no_disponible', codigo: 'pac_no_disponible' });
    expect(await pila.db('facturas').where({ cuenta_id: cuenta.cuentaId })).toHaveLength(0);

    // An id outside the scope is a 404 before the PAC is considered (as for every operation with an id).
    const inexistente = await live.post('/v1/facturas/fac_01m86xxmmcr413memvshpb9c6a/cancelar', {
      motivo: '02',
    });
    expect(inexistente.status).toBe(404);

    // A live invoice stamped while a PAC was configured: cancelling it now is a 503, and nothing is requested.
    const borrador = await live.post('/v1/facturas', { ...solicitud, auto_timbrar: false });
    expect(borrador.status).toBe(201);
    await pila
      .db('facturas')
      .where({ id: borrador.body.id })
      .update({ estado: 'timbrada', timbrado_estado: 'timbrada' });
    const c = await live.post(`/v1/facturas/${borrador.body.id}/cancelar`, { motivo: '02' });
    expect(c.status).toBe(503);
    expect(c.body.error.codigo).toBe('pac_no_disponible');
    expect((await pila.db('facturas').where({ id: borrador.body.id }).first()).cancelacion).toBeNull();
  });
});
