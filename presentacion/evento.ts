import type { FilaEvento } from '../db/repositorios/eventos';
import { iso } from './fechas';

export function dtoEvento(f: FilaEvento) {
  return {
    id: f.id,
    objeto: 'evento' as const,
    modo: f.modo,
    tipo: f.tipo,
    creado_en: iso(f.creado_en),
    datos: f.datos,
  };
}

export type Evento = ReturnType<typeof dtoEvento>;
