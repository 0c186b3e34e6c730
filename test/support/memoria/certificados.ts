import type {
  FilaCertificado,
  RepositorioCertificados,
  SecretosCertificado,
  TipoAvisoCertificado,
} from '../../../db/repositorios/certificados';
import { sinDuplicar } from '../../../db/repositorios/con-alcance';
import type { Alcance } from '../../../dominio/alcance';
import { columnasAlcance, enAlcance, paginarEnMemoria, type Almacen, type ColumnasAlcance } from './almacen';
import { exigirAbierta, porConexion } from './transacciones';

export type CertificadoGuardado = FilaCertificado & SecretosCertificado & ColumnasAlcance;

/** Shared with organizations (their active certificate) and accounts (the live-mode check). */
export const tablaCertificados = (m: Almacen) =>
  m.tabla<CertificadoGuardado>('certificados', [
    { nombre: 'organizacion_no_certificado', clave: (r) => `${r.organizacion_id}|${r.no_certificado}` },
  ]);

/** An expiry notice given; its id is `certificado|tipo`, the real primary key. */
export interface AvisoCertificado {
  id: string;
  certificado_id: string;
  tipo: TipoAvisoCertificado;
  evento_id: string;
}

export const tablaAvisosCertificados = (m: Almacen) => m.tabla<AvisoCertificado>('avisos_certificados');

/** The metadata the real repository selects: never the secrets. */
function metadatos(r: CertificadoGuardado): FilaCertificado {
  const {
    cer: _c,
    llave_cifrada: _l,
    contrasena_cifrada: _p,
    dek_cifrada: _d,
    version_clave: _v,
    ...fila
  } = r;
  const { cuenta_id: _cuenta, ...sinCuenta } = fila;
  return sinCuenta;
}

export function crearCertificadosEnMemoria(m: Almacen): RepositorioCertificados {
  const tabla = tablaCertificados(m);
  const avisos = tablaAvisosCertificados(m);
  const visibles = (a: Alcance) => tabla.todas().filter(enAlcance(a));

  /** One active certificate per organization; both updates scoped, as the real ones. */
  function activar(a: Alcance, organizacionId: string, id: string, ahora: Date) {
    for (const r of visibles(a)) {
      if (r.organizacion_id === organizacionId && r.activo && r.id !== id)
        tabla.cambiar(r.id, { activo: false, actualizado_en: ahora });
    }
    if (visibles(a).some((r) => r.id === id)) tabla.cambiar(id, { activo: true, actualizado_en: ahora });
  }

  return porConexion({
    async listar(a, filtros, pagina) {
      const filas = visibles(a).filter(
        (r) => !filtros.organizacionId || r.organizacion_id === filtros.organizacionId,
      );
      const t = paginarEnMemoria(filas, pagina);
      return { ...t, datos: t.datos.map(metadatos) };
    },
    async obtener(a, id) {
      const r = visibles(a).find((x) => x.id === id);
      return r && metadatos(r);
    },
    async insertarActivo(a, fila, ahora) {
      await sinDuplicar(async () => {
        tabla.insertar({
          ...fila,
          ...columnasAlcance(a),
          activo: false,
          creado_en: ahora,
          actualizado_en: ahora,
        });
        activar(a, fila.organizacion_id, fila.id, ahora);
      });
    },
    async cambiarActivo(a, fila, activo, ahora) {
      if (activo) activar(a, fila.organizacion_id, fila.id, ahora);
      else if (visibles(a).some((r) => r.id === fila.id))
        tabla.cambiar(fila.id, { activo: false, actualizado_en: ahora });
    },
    async activo(a, organizacionId) {
      const r = visibles(a).find((x) => x.organizacion_id === organizacionId && x.activo);
      return r && metadatos(r);
    },
    async activoConSecretos(a, organizacionId) {
      const r = visibles(a).find((x) => x.organizacion_id === organizacionId && x.activo);
      if (!r) return undefined;
      const { cuenta_id: _cuenta, ...fila } = r;
      return fila;
    },
    // Across every account: the schedule's query, not an API one.
    async sinAviso(tipo, ahora, limite, cuantos) {
      const debido = (hasta: Date) =>
        tipo === 'certificado.vencido' ? hasta <= ahora : hasta > ahora && hasta <= limite;
      return tabla
        .todas()
        .filter((r) => r.activo && debido(r.valido_hasta) && !avisos.buscar(`${r.id}|${tipo}`))
        .sort((x, y) => x.valido_hasta.getTime() - y.valido_hasta.getTime())
        .slice(0, cuantos)
        .map((r) => ({ ...metadatos(r), cuenta_id: r.cuenta_id }));
    },
    async registrarAviso(tx, certificadoId, tipo, eventoId) {
      exigirAbierta(tx);
      await sinDuplicar(async () =>
        avisos.insertar({
          id: `${certificadoId}|${tipo}`,
          certificado_id: certificadoId,
          tipo,
          evento_id: eventoId,
        }),
      );
    },
  });
}
