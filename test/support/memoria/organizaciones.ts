import { sinDuplicar } from '../../../db/repositorios/con-alcance';
import type {
  DatosOrganizacion,
  FilaOrganizacion,
  RepositorioOrganizaciones,
} from '../../../db/repositorios/organizaciones';
import type { Alcance } from '../../../dominio/alcance';
import {
  filaNueva,
  enAlcance,
  paginarEnMemoria,
  plegar,
  type Almacen,
  type ColumnasAlcance,
} from './almacen';
import { tablaCertificados } from './certificados';
import { porConexion } from './transacciones';

type OrganizacionGuardada = DatosOrganizacion &
  Pick<
    FilaOrganizacion,
    | 'correo'
    | 'correo_automatico'
    | 'autofactura_plazo_dias'
    | 'factura_global_automatica'
    | 'factura_global_periodicidad'
    | 'factura_global_sincronizada'
  > &
  ColumnasAlcance & { id: string; creado_en: Date; actualizado_en: Date };

/** Shared with invoices (the accent color the PDF is printed with). */
export const tablaOrganizaciones = (m: Almacen) =>
  m.tabla<OrganizacionGuardada>('organizaciones', [
    // Under the table's collation: `eku…` and `EKU…` are one RFC.
    { nombre: 'cuenta_modo_rfc', clave: (r) => `${r.cuenta_id}|${r.modo}|${plegar(r.rfc)}` },
  ]);

export function crearOrganizacionesEnMemoria(m: Almacen): RepositorioOrganizaciones {
  const tabla = tablaOrganizaciones(m);
  const certificados = tablaCertificados(m);

  // The real query's LEFT JOIN on the organization's active certificate.
  function conCertificado(r: OrganizacionGuardada): FilaOrganizacion {
    const { cuenta_id: _cuenta, ...fila } = r;
    const c = certificados.todas().find((x) => x.organizacion_id === r.id && x.activo);
    return {
      ...fila,
      cert_id: c?.id ?? null,
      cert_no_certificado: c?.no_certificado ?? null,
      cert_valido_hasta: c?.valido_hasta ?? null,
    };
  }
  const visibles = (a: Alcance) => tabla.todas().filter(enAlcance(a));

  return porConexion({
    listar: async (a, pagina) => {
      const t = paginarEnMemoria(visibles(a), pagina);
      return { ...t, datos: t.datos.map(conCertificado) };
    },
    async obtener(a, idORfc) {
      const porId = idORfc.startsWith('org_');
      const r = visibles(a).find((x) => (porId ? x.id === idORfc : plegar(x.rfc) === plegar(idORfc)));
      return r && conCertificado(r);
    },
    async insertar(a, id, datos, ahora) {
      await sinDuplicar(async () =>
        tabla.insertar({
          ...filaNueva(a, id, ahora),
          correo: null,
          correo_automatico: true,
          autofactura_plazo_dias: 30,
          factura_global_automatica: false,
          factura_global_periodicidad: '04',
          factura_global_sincronizada: true,
          ...datos,
        }),
      );
    },
    async actualizar(a, id, cambios, ahora) {
      if (visibles(a).some((r) => r.id === id)) tabla.cambiar(id, { ...cambios, actualizado_en: ahora });
    },
    async programacionesPendientes(antesDe, limite) {
      return tabla
        .todas()
        .filter((r) => !r.factura_global_sincronizada && r.actualizado_en < antesDe)
        .slice(0, limite)
        .map((r) => ({
          id: r.id,
          cuenta_id: r.cuenta_id,
          modo: r.modo,
          automatica: r.factura_global_automatica,
          periodicidad: r.factura_global_periodicidad,
          codigo_postal: r.codigo_postal,
          actualizado_en: r.actualizado_en,
        }));
    },
    async marcarSincronizada(a, id, version) {
      const r = tabla.buscar(id);
      if (
        r &&
        r.cuenta_id === a.cuentaId &&
        r.modo === a.modo &&
        r.actualizado_en.getTime() === version.getTime()
      ) {
        tabla.cambiar(id, { factura_global_sincronizada: true });
      }
    },
  });
}
