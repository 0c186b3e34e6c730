import { ApplicationFailure } from '@temporalio/common';
import type { EntradaCorreo } from '../../activities/correos';
import type { TipoEvento } from '../../db/repositorios/eventos';
import { ErrorCorreoTransitorio } from '../../correo/puerto';
import { tablaCorreos } from '../support/memoria';
import { crearEntornoActividades, errorNegocio } from '../support/memoria/servicios';

let x: Awaited<ReturnType<typeof crearEntornoActividades>>;

beforeEach(async () => {
  x = await crearEntornoActividades();
  await x.s.clientes.actualizar(x.a, x.ids.cli, { correo: 'maria@cliente.example.mx' });
});

const registrarEvento = (tipo: TipoEvento, datos: object) =>
  x.m.transacciones.ejecutar((tx) => x.m.eventos.registrar(tx, x.a, tipo, datos));

/** A stamped invoice (with its PDF) and the email its `factura.timbrada` causes, as the outbox creates it. */
async function timbradaConCorreo(
  extra: Parameters<typeof x.facturar>[0] = {},
  tipo: TipoEvento = 'factura.timbrada',
) {
  const f = await x.facturar(extra);
  await x.m.facturas.guardarPdf(x.a, f.id, Buffer.from('%PDF-1.7 prueba'));
  await registrarEvento(tipo, { id: f.id });
  await x.m.despachador.despacharPendientes();
  const correo = x.m.despachador.correos.find((c) => c.factura_id === f.id);
  return { f, correo };
}

const entrada = (c: { id: string; factura_id: string }): EntradaCorreo => ({
  correoId: c.id,
  facturaId: c.factura_id,
  cuentaId: x.a.cuentaId,
  modo: x.a.modo,
});
const fila = (id: string) => tablaCorreos(x.m.almacen).buscar(id)!;
const eventos = async (tipo: TipoEvento) =>
  (await x.m.eventos.listar(x.a, { tipo }, { limite: 100 })).datos.map((e) => e.datos);

describe('el correo automático de un evento (repositorio + despachador)', () => {
  it('factura.timbrada: uno al cliente y a los adicionales (sin repetir), aunque el outbox corra dos veces', async () => {
    const { f, correo } = await timbradaConCorreo({
      correos_adicionales: ['conta@ure.example.mx', 'MARIA@cliente.example.mx'],
    });
    expect(correo).toBeDefined();
    expect(fila(correo!.id)).toMatchObject({
      factura_id: f.id,
      motivo: 'timbrado',
      estado: 'pendiente',
      destinatarios: ['maria@cliente.example.mx', 'conta@ure.example.mx'],
    });
    await registrarEvento('factura.timbrada', { id: 'fac_otra' });
    await x.m.despachador.despacharPendientes();
    expect(tablaCorreos(x.m.almacen).todas()).toHaveLength(1);
  });

  it('factura.cancelada: el correo de la cancelación', async () => {
    const { correo } = await timbradaConCorreo({}, 'factura.cancelada');
    expect(fila(correo!.id).motivo).toBe('cancelacion');
  });

  it('ninguno si la factura no quiere correo, si la organización lo apagó, sin a quién enviar o de otro evento', async () => {
    expect((await timbradaConCorreo({ enviar_correo: false })).correo).toBeUndefined();
    await x.s.organizaciones.actualizar(x.a, x.ids.org, { correo_automatico: false });
    expect((await timbradaConCorreo()).correo).toBeUndefined();
    await x.s.organizaciones.actualizar(x.a, x.ids.org, { correo_automatico: true });
    await x.s.clientes.actualizar(x.a, x.ids.cli, { correo: null });
    expect((await timbradaConCorreo()).correo).toBeUndefined();
    expect((await timbradaConCorreo({}, 'factura.creada')).correo).toBeUndefined();
    expect(tablaCorreos(x.m.almacen).todas()).toEqual([]);
  });
});

describe('intentarCorreo', () => {
  it('el servidor lo toma: enviado con su respuesta y correo.enviado; repetido no envía otra vez', async () => {
    const { f, correo } = await timbradaConCorreo({ serie: 'A' });
    expect(await x.act.intentarCorreo(entrada(correo!))).toBe('enviado');
    expect(fila(correo!.id)).toMatchObject({
      estado: 'enviado',
      intentos: 1,
      respuesta_smtp: '250 2.0.0 Ok: queued as PRUEBA',
      error: null,
    });
    const [m] = x.correo.mensajes;
    const factura = (await x.m.facturas.obtener(x.a, f.id))!;
    expect(m).toMatchObject({
      para: ['maria@cliente.example.mx'],
      de: { nombre: 'ESCUELA KEMPER URGATE', direccion: 'facturas@cfdi.example.mx' },
      messageId: `<${correo!.id}@cfdi.example.mx>`,
      asunto: `Factura A-${factura.documento.entrada.folio} de ESCUELA KEMPER URGATE`,
    });
    expect(m!.adjuntos.map((a) => a.contenido.toString())).toEqual([
      '<cfdi:Comprobante/>',
      '%PDF-1.7 prueba',
    ]);
    expect(await eventos('correo.enviado')).toEqual([
      expect.objectContaining({ id: correo!.id, factura: f.id }),
    ]);

    expect(await x.act.intentarCorreo(entrada(correo!))).toBe('enviado');
    expect(x.correo.mensajes).toHaveLength(1);
    expect(await eventos('correo.enviado')).toHaveLength(1);
  });

  it('un rechazo (5xx) lo termina fallido con su causa y correo.fallido', async () => {
    const { correo } = await timbradaConCorreo();
    x.correo.responder({
      tipo: 'rechazado',
      codigo: 'destinatario_rechazado',
      respuesta: '550 5.1.0 mailbox unavailable',
    });
    expect(await x.act.intentarCorreo(entrada(correo!))).toBe('fallido');
    expect(fila(correo!.id)).toMatchObject({
      estado: 'fallido',
      intentos: 1,
      respuesta_smtp: '550 5.1.0 mailbox unavailable',
      error: { codigo: 'destinatario_rechazado' },
      enviado_en: null,
    });
    expect(fila(correo!.id).error!.mensaje).toContain('550 5.1.0');
    expect(await eventos('correo.fallido')).toHaveLength(1);
  });

  it('el servidor no responde: anota el intento y su causa, y lanza un error reintentable; luego sale', async () => {
    const { correo } = await timbradaConCorreo();
    x.correo.responder(new ErrorCorreoTransitorio('connect ECONNREFUSED 127.0.0.1:1025'));
    const err = await x.act.intentarCorreo(entrada(correo!)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'smtp_no_disponible', nonRetryable: false });
    expect(fila(correo!.id)).toMatchObject({
      estado: 'pendiente',
      intentos: 1,
      respuesta_smtp: 'connect ECONNREFUSED 127.0.0.1:1025',
    });
    expect(await eventos('correo.fallido')).toEqual([]);
    expect(await x.act.intentarCorreo(entrada(correo!))).toBe('enviado');
    expect(fila(correo!.id)).toMatchObject({ estado: 'enviado', intentos: 2 });
  });
});

describe('pdfParaCorreo y abandonarCorreo', () => {
  it('sin PDF guardado lanza PdfPendiente (reintentable); con él, o para una cancelación, listo', async () => {
    const f = await x.facturar();
    await registrarEvento('factura.timbrada', { id: f.id });
    await registrarEvento('factura.cancelada', { id: f.id });
    await x.m.despachador.despacharPendientes();
    const [timbrado, cancelacion] = x.m.despachador.correos;
    await expect(x.act.pdfParaCorreo(entrada(timbrado!))).rejects.toMatchObject({
      type: 'PdfPendiente',
      nonRetryable: false,
    });
    expect(await x.act.pdfParaCorreo(entrada(cancelacion!))).toBe('listo');
    await x.m.facturas.guardarPdf(x.a, f.id, Buffer.from('%PDF'));
    expect(await x.act.pdfParaCorreo(entrada(timbrado!))).toBe('listo');
  });

  it('vencido el plazo: fallido con la última respuesta del servidor y correo.fallido, una sola vez', async () => {
    const { correo } = await timbradaConCorreo();
    x.correo.responder(new ErrorCorreoTransitorio('421 4.3.2 Service not available'));
    await x.act.intentarCorreo(entrada(correo!)).catch(() => undefined);
    const causa = { codigo: 'smtp_no_disponible' as const, detalle: 'Activity task timed out' };
    expect(await x.act.abandonarCorreo(entrada(correo!), causa)).toBe('fallido');
    expect(fila(correo!.id)).toMatchObject({
      estado: 'fallido',
      intentos: 1,
      error: { codigo: 'smtp_no_disponible' },
    });
    expect(fila(correo!.id).error!.mensaje).toContain('421 4.3.2 Service not available');
    expect(await x.act.abandonarCorreo(entrada(correo!), causa)).toBe('fallido');
    expect(await x.act.pdfParaCorreo(entrada(correo!))).toBe('fallido');
    expect(await eventos('correo.fallido')).toHaveLength(1);
  });
});

describe('servicio de correos (POST …/correo, GET /v1/correos)', () => {
  it('reenvía a su cliente y adicionales por omisión, o a quien se indique, e inicia su workflow', async () => {
    const f = await x.facturar({ enviar_correo: false, correos_adicionales: ['conta@ure.example.mx'] });
    const uno = await x.s.correos.reenviar(x.a, f.id);
    expect(uno).toMatchObject({
      objeto: 'correo',
      factura: f.id,
      motivo: 'reenvio',
      estado: 'pendiente',
      destinatarios: ['maria@cliente.example.mx', 'conta@ure.example.mx'],
      evento: null,
    });
    const dos = await x.s.correos.reenviar(x.a, f.id, { destinatarios: ['otra@ure.example.mx'] });
    expect(dos.destinatarios).toEqual(['otra@ure.example.mx']);
    expect(x.m.despachador.correos.map((c) => c.id)).toEqual([uno.id, dos.id]);
    const lista = await x.s.correos.listar(x.a, { factura: f.id }, { limite: 10 });
    expect(lista.datos.map((c) => c.id).sort()).toEqual([uno.id, dos.id].sort());
    expect(await x.s.correos.obtener(x.a, uno.id)).toEqual(uno);
  });

  it('404 sin factura o correo, 409 sin timbre, 422 sin destinatarios', async () => {
    expect((await errorNegocio(x.s.correos.reenviar(x.a, 'fac_no'))).codigo).toBe('factura_no_encontrada');
    expect((await errorNegocio(x.s.correos.obtener(x.a, 'cor_no'))).codigo).toBe('correo_no_encontrado');
    const filtro = await errorNegocio(x.s.correos.listar(x.a, { factura: 'fac_no' }, { limite: 10 }));
    expect(filtro).toMatchObject({ codigo: 'factura_no_encontrada', parametro: 'factura' });
    const borrador = await x.facturar({ auto_timbrar: false });
    expect(await errorNegocio(x.s.correos.reenviar(x.a, borrador.id))).toMatchObject({
      tipo: 'conflicto',
      codigo: 'factura_no_timbrada',
    });
    await x.s.clientes.actualizar(x.a, x.ids.cli, { correo: null });
    const f = await x.facturar();
    expect(await errorNegocio(x.s.correos.reenviar(x.a, f.id))).toMatchObject({
      tipo: 'regla_de_negocio',
      codigo: 'sin_destinatarios',
      parametro: 'destinatarios',
    });
    expect(x.m.despachador.correos).toEqual([]);
  });
});
