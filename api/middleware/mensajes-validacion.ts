/**
 * The OpenAPI validator speaks English (ajv's messages plus a few of its own and multer's). The API
 * speaks Spanish: this turns a validator 400 into one Spanish sentence and the `parametro` at fault,
 * reading the figures (limits, patterns, allowed values) out of the original message.
 *
 * `parametro` convention: a body field is its path (`conceptos[0].cantidad`), a query or path parameter
 * its name (`paginacion.limite`, `id`), a header its documented name (`Clave-Idempotencia`), and the body
 * as a whole (empty PATCH, not an object, unreadable multipart) is `cuerpo`. A broken URL names none.
 */
import { PATRON_TEXTO_SAT } from '../../cfdi/reglas/textos';

/** One entry of the validator's `errors` array. */
export interface ErrorDeValidacion {
  path?: string;
  message?: string;
  errorCode?: string;
}

export interface MensajeValidacion {
  mensaje: string;
  parametro?: string;
}

/** The contract's `Rfc` and `CodigoPostal` patterns (openapi.yaml; a unit test keeps them equal). */
export const PATRON_RFC = '^[A-ZÑ&]{3,4}[0-9]{6}[A-Z0-9]{2}[0-9A]$';
export const PATRON_CODIGO_POSTAL = '^[0-9]{5}$';

/** What a pattern refuses, said for people: the self-invoicing portal shows these to buyers as they type. */
const PATRONES_EN_PALABRAS: Record<string, string> = {
  // The SAT's free-text type: the two things it refuses.
  [PATRON_TEXTO_SAT]:
    'no puede contener | (separador de la cadena original del SAT) ni quedar vacío o solo con espacios',
  [PATRON_RFC]:
    'no tiene el formato de un RFC: 3 letras (persona moral) o 4 (persona física), la fecha AAMMDD y 3 caracteres de homoclave, en mayúsculas',
  [PATRON_CODIGO_POSTAL]: 'debe tener 5 dígitos',
};

/** What `parametro` says when the body as a whole is at fault. */
export const PARAMETRO_CUERPO = 'cuerpo';

type Lugar = 'cuerpo' | 'consulta' | 'ruta' | 'encabezado' | 'cookie';

interface Ubicacion {
  lugar?: Lugar;
  /** Segments below the location (empty for the body itself). */
  segmentos: string[];
}

const LUGARES: Record<string, Lugar> = {
  body: 'cuerpo',
  query: 'consulta',
  params: 'ruta',
  path: 'ruta',
  headers: 'encabezado',
  cookies: 'cookie',
};

/** `/body/conceptos/0/cantidad` → body, [conceptos, 0, cantidad]; a URL (404/multer errors) has no location. */
function ubicar(ruta?: string): Ubicacion {
  const partes = (ruta ?? '').replace(/^\//, '').split('/');
  const lugar = LUGARES[partes[0] ?? ''];
  if (!lugar) return { segmentos: [] };
  // ajv paths are JSON pointers: ~1 is "/", ~0 is "~".
  const segmentos = partes
    .slice(1)
    .filter((s) => s !== '')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  return { lugar, segmentos };
}

/** Headers arrive lower-cased; the contract writes them Like-This. */
const nombreEncabezado = (h: string) =>
  h.replace(/(^|-)([a-z])/g, (_m, g: string, c: string) => g + c.toUpperCase());

function nombrar(u: Ubicacion): string | undefined {
  if (!u.lugar) return undefined;
  if (u.segmentos.length === 0) return u.lugar === 'cuerpo' ? PARAMETRO_CUERPO : undefined;
  if (u.lugar === 'encabezado') return nombreEncabezado(u.segmentos.join('/'));
  if (u.lugar !== 'cuerpo') return u.segmentos.join('/');
  return u.segmentos.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
}

/** The `parametro` of a validator path (see the convention above). */
export function parametroValidacion(ruta?: string): string | undefined {
  return nombrar(ubicar(ruta));
}

/** Grammatical subject: every one is masculine singular, so the predicates below agree with all. */
function sujeto(u: Ubicacion, parametro: string): string {
  switch (u.lugar) {
    case 'cuerpo':
      return u.segmentos.length === 0 ? 'El cuerpo de la solicitud' : `El campo ${parametro}`;
    case 'consulta':
      return `El parámetro ${parametro}`;
    case 'ruta':
      return `El parámetro de ruta ${parametro}`;
    case 'encabezado':
      return `El encabezado ${parametro}`;
    case 'cookie':
      return `El parámetro de cookie ${parametro}`;
    default:
      return 'El valor';
  }
}

const TIPOS: Record<string, string> = {
  string: 'texto',
  number: 'un número',
  integer: 'un número entero',
  boolean: 'un booleano (true o false)',
  object: 'un objeto',
  array: 'un arreglo',
  null: 'null',
};

const FORMATOS: Record<string, string> = {
  email: 'debe ser una dirección de correo electrónico válida',
  'idn-email': 'debe ser una dirección de correo electrónico válida',
  uri: 'debe ser una URL absoluta válida (p. ej. https://ejemplo.mx)',
  url: 'debe ser una URL absoluta válida (p. ej. https://ejemplo.mx)',
  'uri-reference': 'debe ser una URL válida',
  byte: 'debe ir en base64 estándar (con relleno =)',
  binary: 'debe ser un archivo',
  'date-time': 'debe ser una fecha y hora ISO 8601 con zona (p. ej. 2026-11-23T02:53:10Z)',
  date: 'debe ser una fecha AAAA-MM-DD (p. ej. 2026-11-23)',
  time: 'debe ser una hora ISO 8601 con zona (p. ej. 02:53:10Z)',
  uuid: 'debe ser un UUID',
  int32: 'debe ser un entero de 32 bits',
  int64: 'debe ser un entero de 64 bits',
  float: 'debe ser un número',
  double: 'debe ser un número',
  hostname: 'debe ser un nombre de dominio válido',
  ipv4: 'debe ser una dirección IPv4',
  ipv6: 'debe ser una dirección IPv6',
};

const COMPARACIONES: Record<string, string> = {
  '>=': 'mayor o igual que',
  '<=': 'menor o igual que',
  '>': 'mayor que',
  '<': 'menor que',
};

const numero = (m: string) => Number(/(\d+)/.exec(m)?.[1] ?? NaN);
const unidades = (n: number, singular: string, plural: string) =>
  n === 1 ? `un ${singular}` : `${Number.isNaN(n) ? 'varios' : n} ${plural}`;

const clave = (e: ErrorDeValidacion) => e.errorCode?.replace(/\.openapi\.validation$/, '');

/** What is wrong, without the subject ("debe ser texto"); undefined when the keyword is not known. */
function predicado(e: ErrorDeValidacion, u: Ubicacion, parametro: string): string | undefined {
  const m = e.message ?? '';
  const raiz = u.lugar === 'cuerpo' && u.segmentos.length === 0;
  switch (clave(e)) {
    case 'type': {
      const tipos = (/must be (.+)$/.exec(m)?.[1] ?? '').split(',').map((t) => t.trim());
      const nombres = tipos.map((t) => (raiz && t === 'object' ? 'un objeto JSON' : (TIPOS[t] ?? t)));
      // A query value is always text: failing "string" means it was sent twice (or as q[a]=…).
      const repetido =
        u.lugar === 'consulta' && tipos.includes('string') ? ' (un solo valor, sin repetirlo)' : '';
      return `debe ser ${nombres.join(' o ')}${repetido}`;
    }
    case 'enum': {
      const valores = /allowed values: (.*?)\.?$/.exec(m)?.[1] ?? '';
      return valores.includes(',') ? `debe ser uno de estos valores: ${valores}` : `debe valer ${valores}`;
    }
    case 'const':
      return 'no tiene el único valor permitido';
    case 'pattern': {
      const patron = /pattern "(.*)"$/.exec(m)?.[1];
      // A pattern people meet often is said in words instead of showing the expression.
      const enPalabras = patron === undefined ? undefined : PATRONES_EN_PALABRAS[patron];
      if (enPalabras) return enPalabras;
      return `no tiene el formato esperado (patrón ${patron ?? '?'})`;
    }
    case 'format': {
      const formato = /format "(.*)"/.exec(m)?.[1];
      if (formato && FORMATOS[formato]) return FORMATOS[formato];
      return formato ? `no tiene el formato ${formato}` : 'no tiene un formato válido';
    }
    case 'minLength': {
      const n = numero(m);
      return n === 1
        ? 'no puede estar vacío'
        : `debe tener al menos ${unidades(n, 'carácter', 'caracteres')}`;
    }
    case 'maxLength':
      return `debe tener como máximo ${unidades(numero(m), 'carácter', 'caracteres')}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const [, op, limite] = /must be (>=|<=|>|<) ?(\S+)$/.exec(m) ?? [];
      return op && limite ? `debe ser ${COMPARACIONES[op]} ${limite}` : undefined;
    }
    case 'multipleOf':
      return `debe ser múltiplo de ${/multiple of (\S+)$/.exec(m)?.[1] ?? '?'}`;
    case 'minItems': {
      const n = numero(m);
      return `debe tener al menos ${unidades(n, 'elemento', 'elementos')}`;
    }
    case 'maxItems':
      return `debe tener como máximo ${unidades(numero(m), 'elemento', 'elementos')}`;
    case 'uniqueItems': {
      const [, a, b] = /items ## (\d+) and (\d+)/.exec(m) ?? [];
      const detalle = a && b ? `: ${parametro}[${a}] y ${parametro}[${b}] son iguales` : '';
      return `no puede tener elementos repetidos${detalle}`;
    }
    case 'minProperties': {
      const n = numero(m);
      return n === 1
        ? 'no puede estar vacío: debe incluir al menos un campo'
        : `debe incluir al menos ${unidades(n, 'campo', 'campos')}`;
    }
    case 'maxProperties':
      return `debe incluir como máximo ${unidades(numero(m), 'campo', 'campos')}`;
    case 'not':
      return 'tiene un valor no permitido';
    case 'anyOf':
      return 'no coincide con ninguna de las formas permitidas';
    case 'oneOf':
      return 'debe coincidir con una sola de las formas permitidas';
    case 'readOnly':
      return 'es de solo lectura: no se envía';
    case 'writeOnly':
      return 'no se envía en esta dirección';
  }
  if (m === 'is read-only') return 'es de solo lectura: no se envía';
  if (m === 'format is invalid') return 'no tiene un formato válido';
  return undefined;
}

const frase = (u: Ubicacion, parametro: string, predicadoTexto: string) =>
  `${sujeto(u, parametro)} ${predicadoTexto}.`;

const MULTIPART = 'El cuerpo multipart/form-data';

/** Errors the validator (or multer, through it) raises without an ajv keyword: matched by their text. */
function sinPalabraClave(e: ErrorDeValidacion): MensajeValidacion | undefined {
  const m = e.message ?? '';
  let r: RegExpExecArray | null;
  if ((r = /^Unknown query parameter '(.*)'$/.exec(m))) {
    // Same sentence as the catalog fast path (api/rutas/catalogos.ts).
    return { mensaje: `El parámetro de consulta ${r[1]} no existe en esta ruta.`, parametro: r[1] };
  }
  if ((r = /^Empty value found for query parameter '(.*)'$/.exec(m))) {
    return { mensaje: `El parámetro ${r[1]} no puede estar vacío.`, parametro: r[1] };
  }
  if ((r = /^Parameter '(.*)' must be url encoded/.exec(m))) {
    return {
      mensaje: `El parámetro ${r[1]} debe ir codificado en la URL: su valor no puede llevar caracteres reservados (: / ? # [ ] @ ! $ & ' ( ) * + , ; =) sin codificar.`,
      parametro: r[1],
    };
  }
  if ((r = /^'(.*)' must be equal to one of the allowed values: (.*?)\.?$/.exec(m))) {
    // The discriminator's own check: the property is in the body.
    return { mensaje: `El campo ${r[1]} debe ser uno de estos valores: ${r[2]}.`, parametro: r[1] };
  }
  if (/^malformed uri/.test(m)) {
    return { mensaje: 'La URL tiene una secuencia de escape (%) no válida.' };
  }
  const multipart: Record<string, string> = {
    'multipart file(s) required': `${MULTIPART} no se puede leer: falta el boundary en Content-Type.`,
    'Too many fields': `${MULTIPART} tiene demasiados campos.`,
    'Too many parts': `${MULTIPART} tiene demasiadas partes.`,
    'Field name too long': `${MULTIPART} tiene un nombre de campo demasiado largo.`,
    'Field value too long': `${MULTIPART} tiene un campo con un valor demasiado largo.`,
    'Field name missing': `${MULTIPART} tiene una parte sin nombre de campo.`,
  };
  if (multipart[m]) return { mensaje: multipart[m], parametro: PARAMETRO_CUERPO };
  return undefined;
}

/** One validator error as a sentence and its `parametro`. */
function explicar(e: ErrorDeValidacion): MensajeValidacion {
  if (!e.errorCode) {
    const conocido = sinPalabraClave(e);
    if (conocido) return conocido;
  }
  let u = ubicar(e.path);
  const m = e.message ?? '';
  const k = clave(e);

  if (k === 'required' || k === 'dependentRequired' || k === 'dependencies') {
    // The validator appends the missing property to the path; if a path lacks it, the message has it.
    const falta = /required property '(.*)'/.exec(m)?.[1] ?? /must have propert(?:y|ies) (\S+)/.exec(m)?.[1];
    if (u.lugar && falta && u.segmentos[u.segmentos.length - 1] !== falta) {
      u = { ...u, segmentos: [...u.segmentos, falta] };
    }
    const parametro = nombrar(u);
    if (parametro && u.segmentos.length > 0) {
      const que = {
        cuerpo: 'campo',
        consulta: 'parámetro',
        ruta: 'parámetro de ruta',
        encabezado: 'encabezado',
        cookie: 'parámetro de cookie',
      }[u.lugar!];
      const cuando = /when property (\S+) is present/.exec(m)?.[1];
      return {
        mensaje: cuando
          ? `Falta el ${que} ${parametro}: es obligatorio cuando se envía ${cuando}.`
          : `Falta el ${que} obligatorio ${parametro}.`,
        parametro,
      };
    }
  }

  if ((k === 'additionalProperties' || k === 'unevaluatedProperties') && u.lugar) {
    const parametro = nombrar(u);
    if (u.segmentos.length === 0)
      return { mensaje: 'El cuerpo de la solicitud tiene campos no permitidos.', parametro };
    return { mensaje: `El campo ${parametro} no está permitido en esta solicitud.`, parametro };
  }

  const parametro = nombrar(u);
  if (!u.lugar || !parametro) return { mensaje: 'La solicitud no es válida.' };
  const p = predicado(e, u, parametro);
  return { mensaje: frase(u, parametro, p ?? 'no es válido'), parametro };
}

const esCombinador = (e: ErrorDeValidacion) => clave(e) === 'anyOf' || clave(e) === 'oneOf';

/**
 * anyOf/oneOf come after the errors of each branch. A branch whose type matched failed on something
 * concrete (a minimum, a pattern): that is what to tell. If no branch's type matched, the types are the
 * news ("debe ser texto o un número").
 */
function explicarCombinador(combinador: ErrorDeValidacion, errores: ErrorDeValidacion[]): MensajeValidacion {
  const ruta = combinador.path ?? '';
  const ramas = errores.filter(
    (e) => !esCombinador(e) && (e.path === ruta || (e.path ?? '').startsWith(`${ruta}/`)),
  );
  const concretos = ramas.filter((e) => clave(e) !== 'type');
  if (concretos.length === 1) return explicar(concretos[0]!);
  if (concretos.length === 0 && ramas.length > 0 && ramas.every((e) => e.path === ruta)) {
    const tipos = ramas.map((e) => /must be (.+)$/.exec(e.message ?? '')?.[1] ?? '').join(',');
    return explicar({ path: ruta, errorCode: 'type.openapi.validation', message: `must be ${tipos}` });
  }
  if (ramas.length === 0 && clave(combinador) === 'oneOf') {
    // No branch failed: the value matched more than one.
    return explicar(combinador);
  }
  return explicar({ ...combinador, errorCode: 'anyOf.openapi.validation' });
}

/**
 * The Spanish sentence and `parametro` for a validator 400. The validator stops at the first failing
 * keyword, so the first error is the one to tell, except for anyOf/oneOf (see explicarCombinador).
 */
export function mensajeValidacion(errores: readonly ErrorDeValidacion[]): MensajeValidacion {
  const combinador = errores.find(esCombinador);
  if (combinador) return explicarCombinador(combinador, [...errores]);
  const primero = errores[0];
  return primero ? explicar(primero) : { mensaje: 'La solicitud no es válida.' };
}
