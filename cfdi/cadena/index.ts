export { cadenaOriginal } from './cfdi40';
export { cadenaTfd } from './tfd11';
export { normalizarEspacios } from './campos';
