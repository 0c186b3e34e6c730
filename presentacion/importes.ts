import { d, fijo } from '../cfdi/decimal';

/** The ledger keeps 6 decimals; an instalment shows its balances with the currency's decimals. */
export const saldosParcialidad = (
  p: { imp_saldo_anterior: string; imp_pagado: string; imp_saldo_insoluto: string },
  decimales: number,
) => ({
  imp_saldo_anterior: fijo(d(p.imp_saldo_anterior), decimales),
  imp_pagado: fijo(d(p.imp_pagado), decimales),
  imp_saldo_insoluto: fijo(d(p.imp_saldo_insoluto), decimales),
});
