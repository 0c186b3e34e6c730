export { sondaSalud } from './sonda-salud';
