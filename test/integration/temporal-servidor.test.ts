import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';
import { iniciarTemporalProduccion, type TemporalProduccion } from '../support/temporal-produccion';

// `TEMPORAL=servidor make up` and the compose file run the production-grade Temporal (the server binary with
// PostgreSQL persistence and SQL visibility), not the dev server the rest of the suite uses: the stack must
// stamp, cancel and be searched by finance there too.

describe('Temporal server con PostgreSQL (modo servidor)', () => {
  let temporal: TemporalProduccion;
  let pila: Pila;
  beforeAll(async () => {
    temporal = await iniciarTemporalProduccion();
    pila = await iniciarPila({ temporalAddress: temporal.address });
  }, 180_000);
  afterAll(async () => {
    await pila?.detener();
    await temporal?.detener();
  });

  it('timbra, genera el PDF, cancela, y las consultas de finanzas encuentran cada workflow', async () => {
    expect((await pila.cliente.connection.workflowService.getSystemInfo({})).serverVersion).toBe('1.29.1');
    const c = await cuentaLista(pila);
    const r = await c.http.post('/v1/facturas', facturaNueva(c));
    expect([r.status, r.body.estado]).toEqual([201, 'timbrada']);
    const id = r.body.id as string;
    await pila.cliente.workflow.getHandle(`timbrado:${id}`).result();
    const pdf = await c.http.binario(`/v1/facturas/${id}/pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const x = await c.http.post(`/v1/facturas/${id}/cancelar`, { motivo: '02' });
    expect([x.status, x.body.estado]).toEqual([200, 'cancelada']);
    await pila.cliente.workflow.getHandle(`cancelacion:${id}`).result();

    // Finance's queries (README): every workflow of an invoice, and the account's cancelled ones.
    const lista = async (query: string) => {
      const ids: string[] = [];
      for await (const w of pila.cliente.workflow.list({ query })) ids.push(w.workflowId);
      return ids.sort();
    };
    await esperar(async () => ((await lista(`FacturaId="${id}"`)).length === 2 ? true : undefined));
    expect(await lista(`FacturaId="${id}"`)).toEqual([`cancelacion:${id}`, `timbrado:${id}`]);
    expect(await lista(`CuentaId="${c.cuentaId}" AND Modo="test" AND EstadoFactura="cancelada"`)).toEqual([
      `cancelacion:${id}`,
    ]);
    expect(await lista(`Referencias="${r.body.uuid}" AND ExecutionStatus="Completed"`)).toEqual([
      `timbrado:${id}`,
    ]);
  }, 180_000);
});
