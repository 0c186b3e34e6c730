import { construirComprobante } from '../../cfdi/comprobante/construir';
import { validarComprobante } from '../../cfdi/validacion';
import { catalogosCsv } from '../support/catalogos-csv';
import { comprobante, concepto } from '../support/comprobantes';

it('perf', () => {
  const cat = catalogosCsv('2026-06-01');
  const ISR10 = { impuesto: '001', tipo_factor: 'Tasa' as const, tasa_o_cuota: '0.100000' };
  const IVA16 = { impuesto: '002', tipo_factor: 'Tasa' as const, tasa_o_cuota: '0.160000' };
  const doc = construirComprobante(
    comprobante({
      fecha: '2026-06-01T10:00:00',
      conceptos: Array.from({ length: 10 }, (_, i) =>
        concepto({
          cantidad: String(i + 1),
          valor_unitario: '123.456789',
          impuestos: { traslados: [IVA16], retenciones: [ISR10] },
        }),
      ),
    }),
  ).nodo;
  const ahora = new Date('2026-06-01T18:00:00Z');
  expect(validarComprobante(doc, cat, { ahora })).toEqual([]);
  for (let k = 0; k < 3; k++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < 2000; i++) validarComprobante(doc, cat, { ahora });
    const ms = Number(process.hrtime.bigint() - t) / 1e6 / 2000;
    require('fs').writeFileSync('/tmp/perf.txt', String(ms) + '\n', { flag: 'a' });
  }
});
