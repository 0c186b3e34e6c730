export { sondaSalud } from './sonda-salud';
export { timbrarFactura } from './timbrado';
