import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router, type ErrorRequestHandler, type Request } from 'express';
import type { Servicios } from '../../composicion/servicios';
import { ErrorNegocio } from '../../dominio/errores';
import { CONTRASENA_MINIMA } from '../../dominio/usuario';
import { normalizarCorreo } from '../../servicios/usuarios';
import { CARPETA_PORTAL } from '../rutas/autofactura';
import { claveDeDireccion, crearLimiteDeFallos } from '../middleware/limite';
import { aApiError } from '../middleware/manejador-errores';
import { aviso, campoCsrf, enviar, pagina, paginaSuelta } from './diseno';
import { html, type Html } from './html';
import { campo, conSesion, consolaDe, destinoSeguro, ponerCookie, quitarCookie, tokenDe } from './sesion';
import { parametro } from './paginas/comun';
import { paginasFacturas, type OpcionesConsola } from './paginas/facturas';
import { paginasOperacion } from './paginas/operacion';
import { paginaPanel } from './paginas/panel';
import { paginasClientes } from './paginas/clientes';

export type { OpcionesConsola } from './paginas/facturas';

/** Sign-in failures: 5 per email and 20 per client address in 15 minutes, counted across replicas. */
const VENTANA_MS = 15 * 60_000;
const FALLOS_POR_CORREO = 5;
const FALLOS_POR_DIRECCION = 20;

function formularioEntrar(correo = '', error?: string, volver = '/consola'): Html {
  return html`${aviso(error, 'error')}
    <form method="post" action="/consola/entrar">
      <input type="hidden" name="volver" value="${volver}" />
      <div class="campo">
        <label for="correo">Correo</label>
        <input
          id="correo"
          name="correo"
          type="email"
          autocomplete="username"
          required
          value="${correo}"
          autofocus
        />
      </div>
      <div class="campo">
        <label for="contrasena">Contraseña</label>
        <input id="contrasena" name="contrasena" type="password" autocomplete="current-password" required />
      </div>
      <button type="submit">Entrar</button>
    </form>`;
}

function formularioContrasena(req: Request, error?: string): Html {
  const { marco, sesion } = consolaDe(req);
  const primera = sesion.usuario.debe_cambiar_contrasena;
  return pagina(
    marco,
    primera ? 'Elija su contraseña' : 'Cambiar contraseña',
    html`${primera ? html`<p>Entró con una contraseña temporal: elija la suya para continuar.</p>` : ''}
      ${aviso(error, 'error')}
      <form method="post" action="/consola/contrasena">
        ${campoCsrf(marco)}
        <div class="campo">
          <label for="actual">Contraseña ${primera ? 'temporal' : 'actual'}</label>
          <input id="actual" name="actual" type="password" autocomplete="current-password" required />
        </div>
        <div class="campo">
          <label for="nueva"
            >Contraseña nueva <small>(${CONTRASENA_MINIMA} caracteres o más; una frase sirve)</small></label
          >
          <input
            id="nueva"
            name="nueva"
            type="password"
            autocomplete="new-password"
            minlength="${CONTRASENA_MINIMA}"
            required
          />
        </div>
        <button type="submit">Guardar</button>
      </form>`,
  );
}

/**
 * The console for finance and ops at `/consola`: pages rendered here from the same services the API's routes call
 * (nothing a key could not do), with no script at all; forms post back and are redirected (Post/Redirect/Get).
 */
export function rutasConsola(servicios: Servicios, op: OpcionesConsola): Router {
  const r = Router();
  const { usuarios } = servicios;
  const porCorreo = crearLimiteDeFallos(servicios.limites, {
    maximo: FALLOS_POR_CORREO,
    ventanaMs: VENTANA_MS,
  });
  const porDireccion = crearLimiteDeFallos(servicios.limites, {
    maximo: FALLOS_POR_DIRECCION,
    ventanaMs: VENTANA_MS,
  });
  const css = readFileSync(join(CARPETA_PORTAL(), 'consola.css'));

  r.use('/consola', express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 }));
  r.get('/consola/consola.css', (_req, res) => {
    res.type('text/css; charset=utf-8').set('Cache-Control', 'public, max-age=300').send(css);
  });

  r.get('/consola/entrar', async (req, res) => {
    const token = tokenDe(req);
    const volver = destinoSeguro(parametro(req, 'volver'));
    if (token && (await usuarios.sesion(token))) return res.redirect(303, volver);
    enviar(res, paginaSuelta('Entrar', formularioEntrar('', undefined, volver)));
  });
  r.post('/consola/entrar', async (req, res) => {
    if (!req.is('application/x-www-form-urlencoded'))
      throw new ErrorNegocio(
        'solicitud_invalida',
        'formulario_requerido',
        'Entre desde el formulario de /consola/entrar (application/x-www-form-urlencoded).',
      );
    const [correo, contrasena] = [campo(req, 'correo'), campo(req, 'contrasena')];
    const volver = destinoSeguro(campo(req, 'volver'));
    // An email is counted by its hash: the table of failures never holds an address.
    const claveCorreo = `consola:correo:${createHash('sha256').update(normalizarCorreo(correo)).digest('hex').slice(0, 40)}`;
    const claveDireccion = `consola:dir:${claveDeDireccion(req.ip)}`;
    const espera = Math.max(
      (await porDireccion.espera(claveDireccion)) ?? 0,
      (await porCorreo.espera(claveCorreo)) ?? 0,
    );
    if (espera > 0) {
      res.set('Retry-After', String(espera));
      return enviar(
        res,
        paginaSuelta(
          'Entrar',
          formularioEntrar(
            correo,
            `Demasiados intentos fallidos: espere ${Math.ceil(espera / 60)} min antes de intentar de nuevo.`,
            volver,
          ),
        ),
        429,
      );
    }
    try {
      const { token } = await usuarios.entrar(correo, contrasena);
      ponerCookie(req, res, token);
      res.redirect(303, volver);
    } catch (e) {
      if (!(e instanceof ErrorNegocio) || e.codigo !== 'credenciales_invalidas') throw e;
      await porCorreo.registrarFallo(claveCorreo);
      if (await porDireccion.registrarFallo(claveDireccion))
        req.log.warn({ cliente: claveDireccion }, 'consola: límite de intentos fallidos alcanzado');
      enviar(res, paginaSuelta('Entrar', formularioEntrar(correo, e.message, volver)), 401);
    }
  });

  r.use('/consola', conSesion(usuarios));

  r.get('/consola/contrasena', (req, res) => {
    enviar(res, formularioContrasena(req));
  });
  r.post('/consola/contrasena', async (req, res) => {
    const [actual, nueva] = [campo(req, 'actual'), campo(req, 'nueva')];
    try {
      await usuarios.cambiarContrasena(consolaDe(req).sesion, actual, nueva);
    } catch (e) {
      if (!(e instanceof ErrorNegocio) || e.tipo !== 'solicitud_invalida') throw e;
      return enviar(res, formularioContrasena(req, e.message), 400);
    }
    res.redirect(303, '/consola?aviso=contrasena');
  });
  r.post('/consola/salir', async (req, res) => {
    await usuarios.salir(consolaDe(req).sesion);
    quitarCookie(req, res);
    res.redirect(303, '/consola/entrar');
  });
  r.post('/consola/modo', async (req, res) => {
    const modo = campo(req, 'modo') === 'live' ? 'live' : 'test';
    await usuarios.cambiarModo(consolaDe(req).sesion, modo);
    res.redirect(303, '/consola');
  });

  paginaPanel(r, servicios);
  paginasFacturas(r, servicios, op);
  paginasClientes(r, servicios);
  paginasOperacion(r, servicios);

  r.use('/consola', (req, res) => {
    const c = req.consola;
    const cuerpo = html`<p>Esa página no existe. <a href="/consola">Volver al panel</a>.</p>`;
    enviar(
      res,
      c ? pagina(c.marco, 'Página no encontrada', cuerpo) : paginaSuelta('Página no encontrada', cuerpo),
      404,
    );
  });
  r.use('/consola', errorConsola);
  return r;
}

/** Errors as pages: the status the API would give, its Spanish message, never internals. */
const errorConsola: ErrorRequestHandler = (err, req, res, _next) => {
  const e = aApiError(err);
  if (e.status >= 500) req.log.error({ err }, 'consola: error');
  for (const [k, v] of Object.entries(e.encabezados)) res.set(k, v);
  const mensaje =
    e.status >= 500 && e.codigo === 'error_interno' ? 'Ocurrió un error inesperado.' : e.message;
  const cuerpo = html`${aviso(mensaje, 'error')}
    <p><a href="/consola">Volver al panel</a></p>`;
  const c = req.consola;
  enviar(
    res,
    c ? pagina(c.marco, 'No se pudo completar', cuerpo) : paginaSuelta('No se pudo completar', cuerpo),
    e.status,
  );
};
