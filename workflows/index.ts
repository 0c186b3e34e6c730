export { cancelarFactura } from './cancelacion';
export { sondaSalud } from './sonda-salud';
export { timbrarFactura } from './timbrado';
