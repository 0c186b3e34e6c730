/**
 * CFDI dates are the local time of the place of issue, without zone (CFDI40101). The postal-code
 * catalog names the zone in words; this maps each to the IANA zone with the same rules.
 */
const ZONAS: Record<string, string> = {
  'Tiempo del Centro': 'America/Mexico_City',
  'Tiempo del Centro en Frontera': 'America/Matamoros',
  'Tiempo del Noroeste en Frontera': 'America/Tijuana',
  'Tiempo del Pacífico': 'America/Mazatlan',
  'Tiempo del Pacífico Sonora': 'America/Hermosillo',
  'Tiempo del Pacífico en Frontera': 'America/Ciudad_Juarez',
  'Tiempo del Sureste': 'America/Cancun',
};

const formatos = new Map<string, Intl.DateTimeFormat>();

function formato(zona: string): Intl.DateTimeFormat {
  let f = formatos.get(zona);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: zona,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatos.set(zona, f);
  }
  return f;
}

export function zonaIana(husoHorario: string): string {
  const z = ZONAS[husoHorario];
  if (!z) throw new Error(`Huso horario desconocido del catálogo de códigos postales: ${husoHorario}`);
  return z;
}

/** `YYYY-MM-DDThh:mm:ss` in an IANA zone's local time. */
export function fechaEnZona(instante: Date, zona: string): string {
  const p = Object.fromEntries(
    formato(zona)
      .formatToParts(instante)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`;
}

/** `YYYY-MM-DDThh:mm:ss` in the place's local time. */
export const fechaCfdi = (instante: Date, husoHorario: string): string =>
  fechaEnZona(instante, zonaIana(husoHorario));
