export { cancelarFactura } from './cancelacion';
export { entregarEvento } from './entrega';
export { registrarPago } from './pago';
export { reanudarProcesos, reconciliarEventos, revisarCertificados } from './programados';
export { sondaSalud } from './sonda-salud';
export { timbrarFactura } from './timbrado';
