export { cancelarFactura } from './cancelacion';
export { registrarPago } from './pago';
export { sondaSalud } from './sonda-salud';
export { timbrarFactura } from './timbrado';
