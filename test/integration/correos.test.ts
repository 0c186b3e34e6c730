import { strFromU8, unzipSync } from 'fflate';
import type { Esquema } from '../../contrato';
import { crearCorreoSmtp } from '../../correo/smtp';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { arrancarMailpit, type MailpitPrueba } from '../support/mailpit';
import { iniciarPila, type Pila } from '../support/pila';

type Correo = Esquema<'Correo'>;

/**
 * Email to the receivers over a real SMTP server (a Mailpit of this file's): what the receiver gets when an
 * invoice is stamped and cancelled, resends, the email log, the SMTP server down then up, and its refusals.
 */
describe('correos de facturas (Mailpit)', () => {
  let mailpit: MailpitPrueba;
  let pila: Pila;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  const CLIENTE = 'maria@cliente.example.mx';
  const ORGANIZACION = 'facturacion@kemper.example.mx';
  beforeAll(async () => {
    // Only these domains exist: any other recipient gets 550. Messages over 1 MB get 552.
    mailpit = await arrancarMailpit({
      destinatariosPermitidos: '@(cliente|ure)\\.example\\.mx$',
      tamanoMaximoMb: 1,
    });
    pila = await iniciarPila({
      correo: { smtpUrl: mailpit.smtpUrl, esperaMaximaS: 1 },
      cancelacionSondeoMs: 300,
    });
    c = await cuentaLista(pila);
    expect((await c.http.patch(`/v1/clientes/${c.cli}`, { correo: CLIENTE })).status).toBe(200);
    const org = await c.http.patch(`/v1/organizaciones/${c.org}`, { correo: ORGANIZACION });
    expect(org.body).toMatchObject({ correo: ORGANIZACION, correo_automatico: true });
  });
  afterAll(async () => {
    await pila?.detener();
    await mailpit?.detener();
  });

  const timbrada = async (extra: Record<string, unknown> = {}) => {
    const r = await c.http.post('/v1/facturas', facturaNueva(c, extra));
    expect(r.status).toBe(201);
    return r.body as Esquema<'Factura'>;
  };
  const correosDe = async (facturaId: string) =>
    (await c.http.get(`/v1/correos?factura=${facturaId}`)).body.datos as Correo[];
  /** The invoice's emails once `n` of them left `pendiente`. */
  const terminados = (facturaId: string, n = 1, ms = 30_000) =>
    esperar(async () => {
      const lista = await correosDe(facturaId);
      return lista.filter((x) => x.estado !== 'pendiente').length >= n ? lista : undefined;
    }, ms);
  const mensajeDe = async (correo: Correo) =>
    (await mailpit.esperarMensajes(1, { filtro: (m) => m.MessageID.startsWith(`${correo.id}@`) }))[0]!;

  it('al timbrarse, el cliente y los adicionales reciben el XML (idéntico al de la API) y el PDF; correo.enviado', async () => {
    const f = await timbrada({ serie: 'C', correos_adicionales: ['conta@ure.example.mx', CLIENTE] });
    expect(f).toMatchObject({ enviar_correo: true, correos_adicionales: ['conta@ure.example.mx', CLIENTE] });
    const [correo] = await terminados(f.id);
    expect(correo).toMatchObject({
      objeto: 'correo',
      factura: f.id,
      motivo: 'timbrado',
      destinatarios: [CLIENTE, 'conta@ure.example.mx'],
      estado: 'enviado',
      intentos: 1,
      error: null,
    });
    expect(correo!.respuesta_smtp).toMatch(/^250 /);
    expect((await c.http.get(`/v1/correos/${correo!.id}`)).body).toEqual(correo);

    const m = await mailpit.mensaje((await mensajeDe(correo!)).ID);
    const sf = `C-${f.folio}`;
    expect(m.Subject).toBe(`Factura ${sf} de ESCUELA KEMPER URGATE`);
    expect(m.From).toEqual({ Name: 'ESCUELA KEMPER URGATE', Address: 'facturas@cfdi-api.localhost' });
    expect(m.To.map((t) => t.Address)).toEqual([CLIENTE, 'conta@ure.example.mx']);
    expect(m.ReplyTo.map((t) => t.Address)).toEqual([ORGANIZACION]);
    expect(m.MessageID).toBe(`${correo!.id}@cfdi-api.localhost`);
    expect(Date.parse(m.Date)).toBeGreaterThan(Date.now() - 120_000);
    expect(m.Text).toContain(f.uuid!);
    expect(m.HTML).toContain(f.uuid!);
    expect(m.Text).toContain(`Serie y folio: ${sf}`);
    expect(m.Attachments.map((a) => [a.FileName, a.ContentType])).toEqual([
      [`${sf}_${f.uuid}.xml`, 'application/xml'],
      [`${sf}_${f.uuid}.pdf`, 'application/pdf'],
    ]);
    const xml = await mailpit.adjunto(m.ID, m.Attachments[0]!.PartID);
    const api = await c.http.binario(`/v1/facturas/${f.id}/xml`);
    expect(xml.equals(api.body)).toBe(true);
    expect(api.headers.get('content-disposition')).toBe(`inline; filename="${f.id}.xml"`);
    const pdf = await mailpit.adjunto(m.ID, m.Attachments[1]!.PartID);
    expect(pdf.equals((await c.http.binario(`/v1/facturas/${f.id}/pdf`)).body)).toBe(true);

    const eventos = (await c.http.get(`/v1/eventos?factura=${f.id}&tipo=correo.enviado`)).body.datos;
    expect(eventos).toHaveLength(1);
    expect(eventos[0].datos).toMatchObject({ id: correo!.id, estado: 'enviado' });
  });

  it('al cancelarse, el receptor recibe la cancelación con el acuse del SAT (el de GET …/acuse)', async () => {
    const f = await timbrada({ serie: 'K' });
    await terminados(f.id);
    const r = await c.http.post(`/v1/facturas/${f.id}/cancelar`, { motivo: '02' });
    expect(r.body.estado).toBe('cancelada');
    const lista = await terminados(f.id, 2);
    const cancelacion = lista.find((x) => x.motivo === 'cancelacion')!;
    expect(cancelacion).toMatchObject({ estado: 'enviado', destinatarios: [CLIENTE] });
    const m = await mailpit.mensaje((await mensajeDe(cancelacion)).ID);
    const sf = `K-${f.folio}`;
    expect(m.Subject).toBe(`Cancelación de la factura ${sf} de ESCUELA KEMPER URGATE`);
    expect(m.Text).toContain('motivo 02');
    expect(m.Attachments.map((a) => a.FileName)).toEqual([`Acuse-cancelacion_${sf}_${f.uuid}.xml`]);
    const acuse = await mailpit.adjunto(m.ID, m.Attachments[0]!.PartID);
    expect(acuse.equals((await c.http.binario(`/v1/facturas/${f.id}/acuse`)).body)).toBe(true);

    // The audit package has the email log, and each email's workflow among the invoice's histories.
    const zip = unzipSync((await c.http.binario(`/v1/facturas/${f.id}/auditoria`)).body);
    const log = JSON.parse(strFromU8(zip['correos.json']!)) as Correo[];
    expect(log.map((x) => [x.motivo, x.estado])).toEqual([
      ['timbrado', 'enviado'],
      ['cancelacion', 'enviado'],
    ]);
    for (const x of log) {
      expect(Object.keys(zip).some((k) => k.startsWith(`historias/correo-${x.id}/`))).toBe(true);
    }
  });

  it('un pago: su CFDI de pago llega al cliente y a los adicionales de la factura pagada, con su XML y su PDF', async () => {
    const r = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, {
        metodo_pago: 'PPD',
        forma_pago: undefined,
        correos_adicionales: ['cxp@ure.example.mx'],
      }),
    );
    const pago = await c.http.post('/v1/pagos', {
      organizacion: c.org,
      fecha_pago: new Date().toISOString(),
      forma_pago: '03',
      monto: '100.00',
      facturas_pagadas: [{ factura: r.body.id, imp_pagado: '100.00' }],
    });
    expect(pago.status).toBe(201);
    const cfdi = pago.body.factura_pago as string;
    const [correo] = await terminados(cfdi);
    expect(correo).toMatchObject({
      motivo: 'timbrado',
      estado: 'enviado',
      destinatarios: [CLIENTE, 'cxp@ure.example.mx'],
    });
    const m = await mailpit.mensaje((await mensajeDe(correo!)).ID);
    expect(m.Subject).toMatch(/^Comprobante de pago .+ de ESCUELA KEMPER URGATE$/);
    // The payment CFDI's own total is 0 XXX: the message tells the amount paid.
    expect(m.Text).toContain('por 100.00 MXN');
    expect(m.Text).toContain('Monto pagado: $100.00 MXN');
    expect(m.Attachments.map((a) => a.ContentType)).toEqual(['application/xml', 'application/pdf']);
    const xml = await mailpit.adjunto(m.ID, m.Attachments[0]!.PartID);
    expect(xml.equals((await c.http.binario(`/v1/facturas/${cfdi}/xml`)).body)).toBe(true);
  });

  it('enviar_correo: false no envía nada solo; POST …/correo lo envía a quien se indique, y lo refusa sin timbre o sin destinatarios', async () => {
    const f = await timbrada({ enviar_correo: false });
    expect(f.enviar_correo).toBe(false);
    const borrador = await c.http.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
    const noTimbrada = await c.http.post(`/v1/facturas/${borrador.body.id}/correo`);
    expect(noTimbrada.status).toBe(409);
    expect(noTimbrada.body.error).toMatchObject({ codigo: 'factura_no_timbrada', parametro: 'id' });
    // An address that is not one is refused where it is given, in Spanish and naming the field.
    const malo = await c.http.post(`/v1/facturas/${f.id}/correo`, { destinatarios: ['no-es-correo'] });
    expect(malo.status).toBe(400);
    expect(malo.body.error.parametro).toBe('destinatarios[0]');
    const adicional = await c.http.post('/v1/facturas', facturaNueva(c, { correos_adicionales: ['a@b@c'] }));
    expect(adicional.status).toBe(400);
    expect(adicional.body.error).toMatchObject({
      codigo: 'parametro_invalido',
      parametro: 'correos_adicionales[0]',
    });
    const cliente = await c.http.post('/v1/clientes', {
      organizacion: c.org,
      rfc: 'URE180429TM6',
      nombre: 'UNIVERSIDAD ROBOTICA ESPAÑOLA',
      regimen_fiscal: '601',
      domicilio_fiscal: '86991',
      uso_cfdi: 'G03',
      correo: 'facturas.ure.example.mx',
    });
    expect(cliente.status).toBe(400);
    expect(cliente.body.error).toMatchObject({ codigo: 'parametro_invalido', parametro: 'correo' });
    expect(cliente.body.error.mensaje).toMatch(/correo/);

    const r = await c.http.post(`/v1/facturas/${f.id}/correo`, { destinatarios: ['pagos@ure.example.mx'] });
    expect(r.status).toBe(202);
    expect(r.headers.get('location')).toBe(`/v1/correos/${r.body.id}`);
    expect(r.body).toMatchObject({ motivo: 'reenvio', estado: 'pendiente', evento: null });
    const lista = await terminados(f.id);
    // Only the resend: the invoice opted out of the automatic one.
    expect(lista.map((x) => [x.id, x.estado])).toEqual([[r.body.id, 'enviado']]);
    const m = await mensajeDe(r.body);
    expect(m.To.map((t) => t.Address)).toEqual(['pagos@ure.example.mx']);

    // A client without an address and an invoice without additional ones: nobody to send to.
    expect((await c.http.patch(`/v1/clientes/${c.cli}`, { correo: null })).status).toBe(200);
    try {
      const g = await timbrada();
      const nadie = await c.http.post(`/v1/facturas/${g.id}/correo`, {});
      expect(nadie.status).toBe(422);
      expect(nadie.body.error).toMatchObject({ codigo: 'sin_destinatarios', parametro: 'destinatarios' });
      expect(await correosDe(g.id)).toEqual([]);
    } finally {
      await c.http.patch(`/v1/clientes/${c.cli}`, { correo: CLIENTE });
    }
  });

  it('un destinatario rechazado (550) termina fallido con su causa y correo.fallido, sin reintentos', async () => {
    const f = await timbrada({ enviar_correo: false });
    const r = await c.http.post(`/v1/facturas/${f.id}/correo`, { destinatarios: ['nadie@otro.example.mx'] });
    const [correo] = await terminados(f.id);
    expect(correo).toMatchObject({
      id: r.body.id,
      estado: 'fallido',
      intentos: 1,
      error: { codigo: 'destinatario_rechazado' },
    });
    expect(correo!.respuesta_smtp).toMatch(/^550 /);
    const eventos = (await c.http.get(`/v1/eventos?factura=${f.id}&tipo=correo.fallido`)).body.datos;
    expect(eventos.map((e: { datos: Correo }) => e.datos.id)).toEqual([correo!.id]);
  });

  it('con el servidor SMTP caído los correos esperan y salen al volver, una vez cada uno', async () => {
    await mailpit.detenerSmtp();
    let facturas: Esquema<'Factura'>[] = [];
    try {
      facturas = [await timbrada(), await timbrada()];
      // Each email tried at least once and kept its cause, still pending.
      await esperar(async () => {
        const todos = (await Promise.all(facturas.map((f) => correosDe(f.id)))).flat();
        return todos.length === 2 && todos.every((x) => x.estado === 'pendiente' && x.intentos >= 1)
          ? todos
          : undefined;
      });
      const [uno] = await correosDe(facturas[0]!.id);
      expect(uno!.respuesta_smtp).toMatch(/ECONNREFUSED|conex/i);
    } finally {
      await mailpit.reanudarSmtp();
    }
    for (const f of facturas) {
      const [correo] = await terminados(f.id);
      expect(correo).toMatchObject({ estado: 'enviado', error: null });
      expect(correo!.intentos).toBeGreaterThanOrEqual(2);
      const copias = await mailpit.mensajes(`message-id:"${correo!.id}@cfdi-api.localhost"`);
      expect(copias).toHaveLength(1);
    }
  });

  it('el adaptador SMTP: un mensaje de más de 1 MB es un rechazo por tamaño (552), no un error transitorio', async () => {
    const smtp = crearCorreoSmtp({ url: mailpit.smtpUrl });
    try {
      const r = await smtp.enviar({
        de: { nombre: 'Prueba', direccion: 'facturas@cfdi-api.localhost' },
        para: [CLIENTE],
        responderA: null,
        asunto: 'Grande',
        texto: 'adjunto grande',
        html: '<p>adjunto grande</p>',
        adjuntos: [{ nombre: 'grande.pdf', tipo: 'application/pdf', contenido: Buffer.alloc(1_200_000, 1) }],
        messageId: '<grande@cfdi-api.localhost>',
      });
      expect(r).toMatchObject({ tipo: 'rechazado', codigo: 'correo_demasiado_grande' });
      expect((r as { respuesta: string }).respuesta).toMatch(/^552 /);
    } finally {
      smtp.cerrar();
    }
  });
});
