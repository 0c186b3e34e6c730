import type { Knex } from 'knex';
import type { DepsActividades } from '../activities';
import type { PacTimbrado } from '../activities/timbrado';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import { crearRepositorioCertificados } from '../db/repositorios/certificados';
import { crearRepositorioEventos } from '../db/repositorios/eventos';
import { crearRepositorioFacturas } from '../db/repositorios/facturas';
import type { Navegador } from '../pdf/navegador';
import { RenderizadorPdf } from '../pdf/renderizador';
import { htmlRepresentacion } from '../pdf/representacion';
import type { Boveda } from '../seguridad/boveda';

/** The worker's composition root: the same wiring for the worker process and the integration tests. */
export function crearDepsActividades(o: {
  db: Knex;
  navegador: Navegador;
  catalogos: ConsultaCatalogos;
  boveda: Boveda;
  pacPara: (modo: 'test' | 'live') => PacTimbrado;
  identidadWorker: string;
}): DepsActividades {
  const renderizador = new RenderizadorPdf(o.navegador);
  return {
    ...o,
    facturas: crearRepositorioFacturas(o.db),
    eventos: crearRepositorioEventos(o.db),
    certificados: crearRepositorioCertificados(o.db),
    pdf: { generar: (xml, colorAcento) => renderizador.renderizar(htmlRepresentacion(xml, { colorAcento })) },
  };
}
