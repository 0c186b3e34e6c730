import { millonesimas } from './millonesimas';
import type { Contexto } from './contexto';

/**
 * The fixed shape of a payment CFDI (type P) that the Pagos 2.0 standard sets and the CFDI 4.0 matrix
 * does not list: no SAT code of this matrix, so `sat` stays empty (the PAC answers with a CRP20xxx code).
 */
const CONCEPTO_PAGO: readonly [atributo: string, valor: string, numerico: boolean][] = [
  ['ClaveProdServ', '84111506', false],
  ['Cantidad', '1', true],
  ['ClaveUnidad', 'ACT', false],
  ['Descripcion', 'Pago', false],
  ['ValorUnitario', '0', true],
  ['Importe', '0', true],
  ['ObjetoImp', '01', false],
];
const SIN_ATRIBUTOS_PAGO = ['NoIdentificacion', 'Unidad'];

const igual = (valor: string, esperado: string, numerico: boolean) =>
  numerico ? millonesimas(valor) === millonesimas(esperado) : valor === esperado;

export function reglasPago(ctx: Contexto): void {
  if (ctx.tipo !== 'P') return;
  const R = 'Comprobante';
  const fijos: [ruta: string, valor: string | undefined, esperado: string][] = [
    [`${R}.Moneda`, ctx.a.Moneda, 'XXX'],
    [`${R}.Exportacion`, ctx.a.Exportacion, '01'],
    [`${R}.Receptor.UsoCFDI`, ctx.receptor?.atributos.UsoCFDI, 'CP01'],
  ];
  for (const [ruta, valor, esperado] of fijos) {
    if (valor === undefined || valor === esperado) continue;
    const campo = ruta.slice(ruta.lastIndexOf('.') + 1);
    ctx.error('pago_valor_fijo', `En un CFDI de pago ${campo} es "${esperado}" (tiene "${valor}").`, ruta);
  }

  if (ctx.conceptos.length !== 1) {
    ctx.error(
      'pago_concepto',
      `Un CFDI de pago lleva exactamente un concepto (tiene ${ctx.conceptos.length}).`,
      `${R}.Conceptos`,
    );
  }
  const c = ctx.conceptos[0];
  if (c) {
    const ruta = `${R}.Conceptos.Concepto[0]`;
    for (const [atributo, esperado, numerico] of CONCEPTO_PAGO) {
      const valor = c.atributos[atributo];
      if (valor !== undefined && igual(valor, esperado, numerico)) continue;
      ctx.error(
        'pago_concepto',
        `El concepto de un CFDI de pago lleva ${atributo}="${esperado}"` +
          (valor === undefined ? '.' : ` (tiene "${valor}").`),
        `${ruta}.${atributo}`,
      );
    }
    for (const atributo of SIN_ATRIBUTOS_PAGO) {
      if (c.atributos[atributo] === undefined) continue;
      ctx.error(
        'pago_concepto',
        `El concepto de un CFDI de pago no lleva ${atributo} (tiene "${c.atributos[atributo]}").`,
        `${ruta}.${atributo}`,
      );
    }
  }
  if (!ctx.complemento('Pagos')) {
    ctx.error(
      'complemento_pagos_requerido',
      'Un CFDI de pago requiere el complemento Pagos 2.0 (pago20:Pagos).',
      `${R}.Complemento`,
    );
  }
}
