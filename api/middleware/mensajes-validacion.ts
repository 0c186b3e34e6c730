/**
 * The OpenAPI validator speaks English (ajv's messages). The API speaks Spanish: this turns each
 * validation error into a Spanish sentence, reading the figures out of the original message.
 */
const TIPOS: Record<string, string> = {
  string: 'texto',
  number: 'número',
  integer: 'entero',
  boolean: 'booleano (true o false)',
  object: 'objeto',
  array: 'arreglo',
  null: 'null',
};

const numero = (m: string) => /(\d+)/.exec(m)?.[1] ?? '?';

export function mensajeValidacion(errorCode: string | undefined, mensaje: string, parametro: string): string {
  const p = parametro || 'La solicitud';
  const clave = errorCode?.replace(/\.openapi\.validation$/, '');
  switch (clave) {
    case 'required':
      return `Falta el campo obligatorio ${p}.`;
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return `El campo ${p} no está permitido aquí.`;
    case 'pattern':
      return `${p} no tiene un formato válido (patrón ${/pattern "(.*)"/.exec(mensaje)?.[1] ?? ''}).`;
    case 'type': {
      const tipos = /must be (.+)$/.exec(mensaje)?.[1]?.split(',') ?? [];
      return `${p} debe ser de tipo ${tipos.map((t) => TIPOS[t.trim()] ?? t.trim()).join(' o ')}.`;
    }
    case 'enum':
      return `${p} debe ser uno de: ${/allowed values: (.*)$/.exec(mensaje)?.[1] ?? ''}.`;
    case 'minLength':
      return `${p} debe tener al menos ${numero(mensaje)} caracteres.`;
    case 'maxLength':
      return `${p} debe tener a lo más ${numero(mensaje)} caracteres.`;
    case 'minimum':
      return `${p} debe ser mayor o igual que ${/>= ?(-?[\d.]+)/.exec(mensaje)?.[1] ?? '?'}.`;
    case 'maximum':
      return `${p} debe ser menor o igual que ${/<= ?(-?[\d.]+)/.exec(mensaje)?.[1] ?? '?'}.`;
    case 'minItems':
      return `${p} debe tener al menos ${numero(mensaje)} elementos.`;
    case 'maxItems':
      return `${p} debe tener a lo más ${numero(mensaje)} elementos.`;
    case 'format': {
      const formato = /format "(.*)"/.exec(mensaje)?.[1];
      if (formato === 'byte') return `${p} debe estar codificado en base64.`;
      return `${p} no tiene el formato ${formato ?? 'esperado'}.`;
    }
    case 'oneOf':
    case 'anyOf':
      return `${p} no coincide con ninguna de las formas permitidas.`;
  }
  const desconocido = /Unknown query parameter '(.*)'/.exec(mensaje);
  if (desconocido) return `El parámetro de consulta ${desconocido[1]} no existe en esta ruta.`;
  if (/request\.body/.test(mensaje) || /body/i.test(p)) return 'Falta el cuerpo JSON de la solicitud.';
  return `${p} no es válido.`;
}
