import type { Knex } from 'knex';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import { crearRepositorioCertificados } from '../db/repositorios/certificados';
import { crearRepositorioClientes } from '../db/repositorios/clientes';
import { crearRepositorioCuentas } from '../db/repositorios/cuentas';
import { crearRepositorioEventos } from '../db/repositorios/eventos';
import { crearRepositorioFacturas } from '../db/repositorios/facturas';
import { crearRepositorioIdempotencia } from '../db/repositorios/idempotencia';
import { crearRepositorioLlaves } from '../db/repositorios/llaves';
import { crearRepositorioOrganizaciones } from '../db/repositorios/organizaciones';
import { crearRepositorioPagos } from '../db/repositorios/pagos';
import { crearRepositorioProductos } from '../db/repositorios/productos';
import { crearTransacciones } from '../db/transacciones';
import type { Boveda } from '../seguridad/boveda';
import { crearServicioCertificados } from '../servicios/certificados';
import { crearServicioClientes } from '../servicios/clientes';
import { crearServicioCuenta } from '../servicios/cuenta';
import { crearServicioEventos } from '../servicios/eventos';
import { crearServicioFacturas, type Cancelador, type Timbrador } from '../servicios/facturas';
import { crearServicioLlaves } from '../servicios/llaves';
import { crearServicioOrganizaciones } from '../servicios/organizaciones';
import { crearServicioPagos, type RegistradorPagos } from '../servicios/pagos';
import { crearServicioProductos } from '../servicios/productos';

/** The composition root: repositories over the database, services over repositories. */
export function crearServicios(deps: {
  db: Knex;
  catalogos: ConsultaCatalogos;
  boveda: Boveda;
  timbrador: Timbrador;
  cancelador: Cancelador;
  registradorPagos: RegistradorPagos;
}) {
  const { db, catalogos, boveda, timbrador, cancelador } = deps;
  const facturasRepo = crearRepositorioFacturas(db);
  const pagosRepo = crearRepositorioPagos(db);
  const llavesRepo = crearRepositorioLlaves(db);
  const cuenta = crearServicioCuenta({ cuentas: crearRepositorioCuentas(db) });
  const organizaciones = crearServicioOrganizaciones({
    organizaciones: crearRepositorioOrganizaciones(db),
    catalogos,
  });
  const clientesRepo = crearRepositorioClientes(db);
  const productos = crearServicioProductos({
    productos: crearRepositorioProductos(db),
    organizaciones,
    catalogos,
  });
  const eventos = crearRepositorioEventos(db);
  return {
    llavesRepo,
    idempotencia: crearRepositorioIdempotencia(db, boveda),
    cuenta,
    llaves: crearServicioLlaves({ llaves: llavesRepo, cuenta }),
    organizaciones,
    clientes: crearServicioClientes({ clientes: clientesRepo, organizaciones, catalogos }),
    productos,
    eventos: crearServicioEventos({ eventos }),
    facturas: crearServicioFacturas({
      facturas: facturasRepo,
      pagos: pagosRepo,
      transacciones: crearTransacciones(db),
      eventos,
      clientes: clientesRepo,
      organizaciones,
      productos,
      catalogos,
      timbrador,
      cancelador,
    }),
    certificados: crearServicioCertificados({
      certificados: crearRepositorioCertificados(db),
      organizaciones,
      boveda,
    }),
    pagos: crearServicioPagos({
      pagos: pagosRepo,
      facturas: facturasRepo,
      organizaciones,
      catalogos,
      timbrador,
      registrador: deps.registradorPagos,
    }),
  };
}

export type Servicios = ReturnType<typeof crearServicios>;
