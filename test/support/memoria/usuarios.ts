import type { FilaUsuario, RepositorioUsuarios } from '../../../db/repositorios/usuarios';
import type { Modo } from '../../../dominio/alcance';
import { RegistroDuplicado } from '../../../dominio/errores';
import { ClaveUnicaViolada, type Almacen } from './almacen';

type UsuarioGuardado = FilaUsuario & { contrasena_hash: string };
interface SesionGuardada {
  id: string;
  usuario_id: string;
  modo: Modo;
  creado_en: Date;
  vence_en: Date;
}

export function crearUsuariosEnMemoria(m: Almacen): RepositorioUsuarios {
  const usuarios = m.tabla<UsuarioGuardado>('usuarios', [{ nombre: 'correo', clave: (r) => r.correo }]);
  // Keyed by the hash in hex: the table's primary key.
  const sesiones = m.tabla<SesionGuardada>('sesiones_consola');
  const leer = ({ contrasena_hash: _h, ...u }: UsuarioGuardado): FilaUsuario => u;
  const deCuenta = (cuentaId: string, id: string) =>
    usuarios.todas().find((u) => u.cuenta_id === cuentaId && u.id === id);

  return {
    async insertar(f) {
      try {
        usuarios.insertar({ ...f });
      } catch (e) {
        throw e instanceof ClaveUnicaViolada ? new RegistroDuplicado(e) : e;
      }
    },
    async porCorreo(correo) {
      const u = usuarios.todas().find((x) => x.correo === correo);
      return u && { ...u };
    },
    async obtener(cuentaId, id) {
      const u = deCuenta(cuentaId, id);
      return u && leer(u);
    },
    async hashContrasena(cuentaId, id) {
      return deCuenta(cuentaId, id)?.contrasena_hash;
    },
    async cambiarContrasena(cuentaId, id, hash) {
      if (deCuenta(cuentaId, id))
        usuarios.cambiar(id, { contrasena_hash: hash, debe_cambiar_contrasena: false });
    },
    async crearSesion(s) {
      sesiones.insertar({
        id: s.hash.toString('hex'),
        usuario_id: s.usuarioId,
        modo: s.modo,
        creado_en: s.ahora,
        vence_en: s.venceEn,
      });
    },
    async sesion(hash, ahora) {
      const s = sesiones.buscar(hash.toString('hex'));
      if (!s || s.vence_en <= ahora) return undefined;
      const u = usuarios.buscar(s.usuario_id);
      return u && { usuario: leer(u), modo: s.modo, vence_en: s.vence_en };
    },
    async extenderSesion(hash, venceEn) {
      if (sesiones.buscar(hash.toString('hex')))
        sesiones.cambiar(hash.toString('hex'), { vence_en: venceEn });
    },
    async cambiarModo(hash, modo) {
      if (sesiones.buscar(hash.toString('hex'))) sesiones.cambiar(hash.toString('hex'), { modo });
    },
    async cerrarSesion(hash) {
      if (sesiones.buscar(hash.toString('hex'))) sesiones.borrar(hash.toString('hex'));
    },
    async cerrarOtrasSesiones(usuarioId, salvo) {
      for (const s of sesiones.todas())
        if (s.usuario_id === usuarioId && s.id !== salvo.toString('hex')) sesiones.borrar(s.id);
    },
    async purgarVencidas(ahora) {
      const vencidas = sesiones.todas().filter((s) => s.vence_en <= ahora);
      for (const s of vencidas) sesiones.borrar(s.id);
      return vencidas.length;
    },
  };
}
