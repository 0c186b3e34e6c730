export { cancelarFactura } from './cancelacion';
export { enviarCorreo } from './correo';
export { entregarEvento } from './entrega';
export { registrarPago, registrarPagoV2 } from './pago';
export { facturaGlobalProgramada, reexpedirGlobal } from './globales';
export { generarPdfFactura } from './pdf';
export { reanudarProcesos, reconciliarEventos, revisarCertificados } from './programados';
export { sondaSalud } from './sonda-salud';
export { timbrarFactura, timbrarFacturaV2, timbrarFacturaV3 } from './timbrado';
