import { armarMensaje, importe, nombreArchivo, type DatosMensaje } from '../../correo/mensaje';
import { ErrorCorreoTransitorio } from '../../correo/puerto';
import { clasificarFallaSmtp, crearCorreosPorModo } from '../../correo/smtp';
import { destinatariosAutomaticos, motivoDelEvento, sinRepetir } from '../../dominio/correo';

const DATOS: DatosMensaje = {
  correoId: 'cor_1',
  motivo: 'timbrado',
  destinatarios: ['maria@cliente.example.mx'],
  emisor: { nombre: 'ESCUELA KEMPER URGATE', rfc: 'EKU9003173C9', correo: 'facturacion@kemper.example.mx' },
  receptor: { nombre: 'MARIA <OLIVIA> & CIA', rfc: 'MASO451221PM4' },
  tipo: 'ingreso',
  serie: 'A',
  folio: '12',
  uuid: '5FB2822E-396D-4725-8521-CDC4BDD20CCF',
  fechaTimbrado: '2026-11-27T10:00:00',
  total: '1234567.50',
  moneda: 'MXN',
  motivoCancelacion: null,
  xml: '<cfdi:Comprobante/>',
  pdf: Buffer.from('%PDF'),
  acuse: null,
};

describe('armarMensaje', () => {
  it('una factura timbrada: asunto, De con el nombre del emisor, Reply-To, Message-ID y XML + PDF por serie-folio y UUID', () => {
    const m = armarMensaje(DATOS, 'facturas@cfdi.example.mx');
    expect(m).toMatchObject({
      de: { nombre: 'ESCUELA KEMPER URGATE', direccion: 'facturas@cfdi.example.mx' },
      para: ['maria@cliente.example.mx'],
      responderA: 'facturacion@kemper.example.mx',
      asunto: 'Factura A-12 de ESCUELA KEMPER URGATE',
      messageId: '<cor_1@cfdi.example.mx>',
    });
    expect(m.adjuntos.map((a) => [a.nombre, a.tipo])).toEqual([
      ['A-12_5FB2822E-396D-4725-8521-CDC4BDD20CCF.xml', 'application/xml'],
      ['A-12_5FB2822E-396D-4725-8521-CDC4BDD20CCF.pdf', 'application/pdf'],
    ]);
    expect(m.texto).toContain('ESCUELA KEMPER URGATE le envía la factura A-12 por 1,234,567.50 MXN.');
    expect(m.texto).toContain('Folio fiscal (UUID): 5FB2822E-396D-4725-8521-CDC4BDD20CCF');
    expect(m.texto).toContain('Fecha de timbrado: 27/11/2026 10:00:00');
    expect(m.texto).toContain('Total: $1,234,567.50 MXN');
    expect(m.texto).toContain('responda a este correo');
    // The HTML escapes what the receiver's name brings; the text keeps it as it is.
    expect(m.html).toContain('MARIA &lt;OLIVIA&gt; &amp; CIA');
    expect(m.html).not.toContain('<OLIVIA>');
    expect(m.html).toMatch(/^<!doctype html>\n<html lang="es">/);
    expect(m.texto).toContain('Hola, MARIA <OLIVIA> & CIA:');
  });

  it('un CFDI de pago sin serie, y una organización sin correo (no se responde)', () => {
    const m = armarMensaje(
      { ...DATOS, tipo: 'pago', serie: null, emisor: { ...DATOS.emisor, correo: null }, pdf: null },
      'facturas@cfdi.example.mx',
    );
    expect(m.asunto).toBe('Comprobante de pago 12 de ESCUELA KEMPER URGATE');
    // What a payment CFDI tells is the amount paid.
    expect(m.texto).toContain('Monto pagado: $1,234,567.50 MXN');
    expect(m.responderA).toBeNull();
    expect(m.texto).toContain('no lo responda');
    // Without its PDF the XML still goes; the text says only what is attached.
    expect(m.adjuntos.map((a) => a.nombre)).toEqual(['12_5FB2822E-396D-4725-8521-CDC4BDD20CCF.xml']);
    expect(m.texto).toContain('Adjuntamos el CFDI (XML).');
  });

  it('la cancelación lleva solo el acuse; un reenvío de una cancelada, XML, PDF y acuse', () => {
    const cancelada = { ...DATOS, motivoCancelacion: '02', acuse: '<Acuse/>' };
    const c = armarMensaje({ ...cancelada, motivo: 'cancelacion' }, 'f@cfdi.example.mx');
    expect(c.asunto).toBe('Cancelación de la factura A-12 de ESCUELA KEMPER URGATE');
    expect(c.texto).toContain('canceló ante el SAT');
    expect(c.texto).toContain('motivo 02, comprobante emitido con errores sin relación');
    expect(c.adjuntos.map((a) => a.nombre)).toEqual([
      'Acuse-cancelacion_A-12_5FB2822E-396D-4725-8521-CDC4BDD20CCF.xml',
    ]);
    const r = armarMensaje({ ...cancelada, motivo: 'reenvio' }, 'f@cfdi.example.mx');
    expect(r.asunto).toBe('Factura A-12 de ESCUELA KEMPER URGATE (cancelada)');
    expect(r.adjuntos).toHaveLength(3);
    // A payment CFDI is masculine: "del", "cancelado".
    const pago = { ...cancelada, tipo: 'pago' as const, serie: 'P', folio: '1' };
    expect(armarMensaje({ ...pago, motivo: 'cancelacion' }, 'f@cfdi.example.mx').asunto).toBe(
      'Cancelación del comprobante de pago P-1 de ESCUELA KEMPER URGATE',
    );
    expect(armarMensaje({ ...pago, motivo: 'reenvio' }, 'f@cfdi.example.mx').asunto).toBe(
      'Comprobante de pago P-1 de ESCUELA KEMPER URGATE (cancelado)',
    );
  });

  it('nombres de archivo sin caracteres que un sistema de archivos rechace; importes con separador de miles', () => {
    expect(nombreArchivo({ serie: 'A/B', folio: '1 2', uuid: 'U' }, 'xml')).toBe('A-B-1-2_U.xml');
    expect(importe('999.00')).toBe('999.00');
    expect(importe('1000')).toBe('1,000');
    expect(importe('12345678.123456')).toBe('12,345,678.123456');
  });
});

describe('clasificarFallaSmtp (las respuestas que da un servidor real, Mailpit)', () => {
  it('5xx: rechazos definitivos, por destinatario o por tamaño', () => {
    expect(
      clasificarFallaSmtp({
        code: 'EENVELOPE',
        responseCode: 550,
        response: '550 5.1.0 Requested action not taken: mailbox unavailable',
      }),
    ).toMatchObject({ tipo: 'rechazado', codigo: 'destinatario_rechazado' });
    expect(
      clasificarFallaSmtp({
        code: 'EMESSAGE',
        responseCode: 552,
        response: '552 5.3.4 Requested mail action aborted: exceeded storage allocation (1048576)',
      }),
    ).toMatchObject({ tipo: 'rechazado', codigo: 'correo_demasiado_grande' });
    expect(
      clasificarFallaSmtp({ code: 'EMESSAGE', responseCode: 554, response: '554 5.7.1 spam' }),
    ).toMatchObject({
      tipo: 'rechazado',
      codigo: 'correo_rechazado',
    });
  });

  it('sin conexión, 4xx o credenciales: transitorios (el correo espera)', () => {
    const sinServidor = clasificarFallaSmtp({
      code: 'ESOCKET',
      message: 'connect ECONNREFUSED 127.0.0.1:1025',
    });
    expect(sinServidor).toBeInstanceOf(ErrorCorreoTransitorio);
    expect(sinServidor).toMatchObject({
      codigo: 'smtp_no_disponible',
      respuesta: 'connect ECONNREFUSED 127.0.0.1:1025',
    });
    expect(
      clasificarFallaSmtp({ code: 'EENVELOPE', responseCode: 451, response: '451 Chaos recipient error' }),
    ).toBeInstanceOf(ErrorCorreoTransitorio);
    expect(
      clasificarFallaSmtp({ code: 'EAUTH', responseCode: 535, response: '535 5.7.8 bad credentials' }),
    ).toMatchObject({
      codigo: 'smtp_configuracion',
    });
  });
});

describe('crearCorreosPorModo', () => {
  it('el modo test por su propio servidor solo si SMTP_URL_TEST nombra otro', () => {
    const uno = crearCorreosPorModo({ smtpUrl: 'smtp://127.0.0.1:9' });
    expect(uno('test')).toBe(uno('live'));
    const dos = crearCorreosPorModo({ smtpUrl: 'smtp://127.0.0.1:9', smtpUrlTest: 'smtp://127.0.0.1:10' });
    expect(dos('test')).not.toBe(dos('live'));
    for (const cerrar of [dos('test'), dos('live'), uno('live')]) cerrar.cerrar();
  });
});

describe('destinatarios', () => {
  it('sin repetir (sin distinguir mayúsculas) ni vacíos, en su orden', () => {
    expect(sinRepetir(['A@x.mx', null, ' a@x.mx ', '', 'b@x.mx'])).toEqual(['A@x.mx', 'b@x.mx']);
  });
  it('el automático: nadie si la organización lo apagó o la factura no quiere; si no, cliente y adicionales', () => {
    const base = {
      correoAutomatico: true,
      preferencias: { enviar: true, adicionales: ['c@x.mx'] },
      correoCliente: 'a@x.mx',
    };
    expect(destinatariosAutomaticos(base)).toEqual(['a@x.mx', 'c@x.mx']);
    expect(destinatariosAutomaticos({ ...base, correoAutomatico: false })).toEqual([]);
    expect(
      destinatariosAutomaticos({ ...base, preferencias: { enviar: false, adicionales: ['c@x.mx'] } }),
    ).toEqual([]);
    // Invoices older than email have no preferences: to the client.
    expect(destinatariosAutomaticos({ ...base, preferencias: undefined })).toEqual(['a@x.mx']);
    expect(destinatariosAutomaticos({ ...base, preferencias: undefined, correoCliente: null })).toEqual([]);
  });
  it('qué eventos envían correo', () => {
    expect(motivoDelEvento('factura.timbrada')).toBe('timbrado');
    expect(motivoDelEvento('factura.cancelada')).toBe('cancelacion');
    expect(motivoDelEvento('pago.creado')).toBeUndefined();
  });
});
