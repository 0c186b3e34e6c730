import type { Esquema } from '../contrato';
import { clave } from '../presentacion/claves';
import type { Alcance } from '../dominio/alcance';
import { ErrorNegocio, RegistroDuplicado } from '../dominio/errores';
import { mapearTramo, type Pagina } from '../dominio/paginacion';
import { personaDeRfc, validarCliente } from '../cfdi/reglas';
import type { ConsultaCatalogos } from '../cfdi/reglas/catalogos';
import { nuevoId } from '../db/ids';
import type { DatosCliente, FilaCliente, RepositorioClientes } from '../db/repositorios/clientes';
import type { ServicioOrganizaciones } from './organizaciones';
import { exigirSinViolaciones } from './violaciones';
import { iso } from '../presentacion/fechas';
import type { RepositorioCobranza } from '../db/repositorios/cobranza';
import {
  archivoEstadoDeCuenta,
  armarEstadoDeCuenta,
  csvEstadoDeCuenta,
  type EstadoDeCuenta,
} from '../presentacion/estado-de-cuenta';
import { diaDeConsulta, hoyEnMexico } from './fechas';

type Entrada = Omit<DatosCliente, 'organizacion_id' | 'correo'> & {
  organizacion: string;
  correo?: string | null;
};

export function crearServicioClientes(deps: {
  clientes: RepositorioClientes;
  organizaciones: ServicioOrganizaciones;
  catalogos: ConsultaCatalogos;
  /** A client's invoices and payments, for its statement of account. */
  cobranza: Pick<RepositorioCobranza, 'facturasDeCliente' | 'pagosDeCliente'>;
  ahora?: () => Date;
}) {
  const ahora = deps.ahora ?? (() => new Date());
  const repo = deps.clientes;

  function dto(f: FilaCliente): Esquema<'Cliente'> {
    const { advertencias } = validarCliente(f, deps.catalogos);
    return {
      id: f.id,
      objeto: 'cliente' as const,
      modo: f.modo,
      organizacion: f.organizacion_id,
      rfc: f.rfc,
      nombre: f.nombre,
      regimen_fiscal: clave('RegimenFiscal', f.regimen_fiscal),
      domicilio_fiscal: f.domicilio_fiscal,
      uso_cfdi: clave('UsoCfdi', f.uso_cfdi),
      correo: f.correo,
      // Stored RFCs passed validarRfc, so they always name a persona type.
      persona: personaDeRfc(f.rfc)!,
      // Stored as the spec asks (the PAC rejects it when stamping), but flagged now.
      advertencias: advertencias.map(({ codigo, mensaje }) => ({ codigo, mensaje })),
      creado_en: iso(f.creado_en),
      actualizado_en: iso(f.actualizado_en),
    };
  }

  async function fila(a: Alcance, id: string): Promise<FilaCliente> {
    const f = await repo.obtener(a, id);
    if (!f)
      throw new ErrorNegocio('no_encontrado', 'cliente_no_encontrado', `El cliente ${id} no existe.`, 'id');
    return f;
  }

  const duplicado = (rfc: string) =>
    new ErrorNegocio(
      'conflicto',
      'cliente_duplicado',
      `La organización ya tiene un cliente con el RFC ${rfc}: actualícelo o elimínelo primero.`,
      'rfc',
    );

  async function guardar(tarea: () => Promise<void>, rfc: string) {
    try {
      await tarea();
    } catch (e) {
      throw e instanceof RegistroDuplicado ? duplicado(rfc) : e;
    }
  }

  /**
   * The client's statement of account as of `fecha` (a local day, default today in central Mexico): two index
   * ranges (its invoices, their instalments) whatever the number of invoices.
   */
  async function estadoDeCuenta(
    a: Alcance,
    id: string,
    opciones: { fecha?: string } = {},
  ): Promise<EstadoDeCuenta> {
    const fecha = diaDeConsulta(opciones.fecha, hoyEnMexico(ahora()), 'fecha');
    const cliente = await fila(a, id);
    const [facturas, pagos] = await Promise.all([
      deps.cobranza.facturasDeCliente(a, id),
      deps.cobranza.pagosDeCliente(a, id),
    ]);
    // An invoice's currency passed the catalog when it was created.
    const decimalesDe = (moneda: string) => deps.catalogos.moneda(moneda)?.decimales ?? 2;
    return armarEstadoDeCuenta({ modo: a.modo, cliente, fecha, facturas, pagos, decimalesDe });
  }

  return {
    estadoDeCuenta,

    async crear(a: Alcance, entrada: Entrada) {
      const { organizacion, ...resto } = entrada;
      const org = await deps.organizaciones.resolver(a, organizacion, 'organizacion');
      const datos: DatosCliente = { ...resto, correo: resto.correo ?? null, organizacion_id: org.id };
      exigirSinViolaciones(validarCliente(datos, deps.catalogos).errores);
      const id = nuevoId('cli');
      await guardar(() => repo.insertar(a, id, datos, ahora()), datos.rfc);
      return dto(await fila(a, id));
    },

    obtener: async (a: Alcance, id: string) => dto(await fila(a, id)),

    async listar(a: Alcance, filtros: { organizacion?: string; q?: string }, pagina: Pagina) {
      const organizacionId = await deps.organizaciones.idDeFiltro(a, filtros.organizacion);
      return mapearTramo(await repo.listar(a, { organizacionId, q: filtros.q }, pagina), dto);
    },

    async actualizar(a: Alcance, id: string, cambios: Partial<Omit<DatosCliente, 'organizacion_id'>>) {
      const actual = await fila(a, id);
      exigirSinViolaciones(validarCliente({ ...actual, ...cambios }, deps.catalogos).errores);
      await guardar(() => repo.actualizar(a, id, cambios, ahora()), cambios.rfc ?? actual.rfc);
      return dto(await fila(a, id));
    },

    /** The same statement as a CSV attachment, with its file name. */
    async estadoDeCuentaCsv(a: Alcance, id: string, opciones: { fecha?: string } = {}) {
      const e = await estadoDeCuenta(a, id, opciones);
      return { archivo: archivoEstadoDeCuenta(e.cliente.rfc, e.fecha), csv: csvEstadoDeCuenta(e) };
    },

    async eliminar(a: Alcance, id: string) {
      await fila(a, id);
      await repo.eliminar(a, id, ahora());
      return { id, objeto: 'cliente' as const, eliminado: true as const };
    },
  };
}

export type ServicioClientes = ReturnType<typeof crearServicioClientes>;
