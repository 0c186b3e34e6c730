import { generateKeyPairSync } from 'node:crypto';
import { construirComprobante } from '../../cfdi/comprobante/construir';
import { sellarComprobante } from '../../cfdi/comprobante/sellar';
import { sellar } from '../../cfdi/sello';
import { construirTimbre, insertarTimbre } from '../../cfdi/timbre';
import type { CatalogosValidacion } from '../../cfdi/validacion';
import { serializar } from '../../cfdi/xml/serializar';
import { crearPacPara, pacNoConfigurado } from '../../pac/fabrica';
import { clasificarIncidencia, PacFinkok } from '../../pac/finkok/cliente';
import { NS_CAMPOS, NS_CANCELACION, NS_TIMBRADO } from '../../pac/finkok/protocolo';
import {
  ErrorPacConfiguracion,
  ErrorPacNoConfigurado,
  ErrorPacTransitorio,
  type SolicitudCancelacion,
} from '../../pac/puerto';
import { leerConfigSandbox } from '../../pac/sandbox/configuracion';
import { hayMagia, leerMagia } from '../../pac/sandbox/magia';
import {
  decidirCancelacion,
  esCancelable,
  estadoVigente,
  requiereAceptacion,
  responderSolicitud,
  sinAceptacionPorDocumento,
  totalEnPesos,
  type Reloj,
  type TimbreCancelable,
} from '../../pac/sandbox/reglas-cancelacion';
import { leerComprobante, revisarFecha, uuidsRelacionados } from '../../pac/sandbox/timbrado';
import { campo, faltaSoap, leerSolicitud, respuestaSoap } from '../../pac/soap/sobre';
import { generarCsd } from '../support/certificados';
import { comprobante } from '../support/comprobantes';

const H = 3_600_000;

describe('reglas de cancelación del sandbox', () => {
  it('sin aceptación por el documento: egreso, traslado, nómina, público en general, extranjero, ≤ 1,000 MXN salvo pagos', () => {
    const caso = (tipo: string, totalMxn: string, rfcReceptor = 'MASO451221PM4') =>
      sinAceptacionPorDocumento({ tipo, totalMxn, rfcReceptor });
    expect(caso('I', '1000')).toBe(true);
    expect(caso('I', '1000.01')).toBe(false);
    expect(caso('P', '0')).toBe(false);
    expect(caso('P', '0', 'XAXX010101000')).toBe(true);
    expect(caso('I', '5000', 'XEXX010101000')).toBe(true);
    for (const t of ['E', 'T', 'N']) expect(caso(t, '99999')).toBe(true);
    expect(totalEnPesos('60', '17.5')).toBe('1050');
    expect(totalEnPesos('1160.00', undefined)).toBe('1160');
  });

  const base: TimbreCancelable = {
    sinAceptacionPorDocumento: false,
    forzarAceptacion: false,
    fechaTimbrado: new Date('2026-11-20T10:00:00Z'),
    estado: 'Vigente',
    estatusCancelacion: '',
    cancelacionSolicitadaEn: null,
    plazoAceptacionMs: null,
  };
  const reloj = (horasDespues: number): Reloj => ({
    ahora: new Date(base.fechaTimbrado.getTime() + horasDespues * H),
    ventanaSinAceptacionMs: 24 * H,
    plazoAceptacionMs: 72 * H,
  });

  it('dentro de las 24 h siguientes al timbrado no hace falta aceptación, salvo SANDBOX:CON_ACEPTACION', () => {
    expect(requiereAceptacion(base, reloj(23))).toBe(false);
    expect(requiereAceptacion(base, reloj(25))).toBe(true);
    expect(requiereAceptacion({ ...base, forzarAceptacion: true }, reloj(1))).toBe(true);
    expect(requiereAceptacion({ ...base, sinAceptacionPorDocumento: true }, reloj(500))).toBe(false);
    expect(esCancelable(base, reloj(25), false)).toBe('Cancelable con aceptación');
    expect(esCancelable(base, reloj(25), true)).toBe('No cancelable');
  });

  it('solicitud → En proceso; el receptor acepta o rechaza; vencido el plazo queda Plazo vencido', () => {
    const d = decidirCancelacion(base, reloj(30), false);
    expect(d).toEqual({ tipo: 'aplicar', estado: { estado: 'Vigente', estatusCancelacion: 'En proceso' } });
    const enProceso = {
      ...base,
      estatusCancelacion: 'En proceso' as const,
      cancelacionSolicitadaEn: reloj(30).ahora,
    };
    expect(decidirCancelacion(enProceso, reloj(31), false)).toMatchObject({ tipo: 'previa' });
    expect(responderSolicitud(enProceso, reloj(31), 'aceptar')).toEqual({
      estado: 'Cancelado',
      estatusCancelacion: 'Cancelado con aceptación',
    });
    expect(responderSolicitud(enProceso, reloj(31), 'rechazar')).toEqual({
      estado: 'Vigente',
      estatusCancelacion: 'Solicitud rechazada',
    });
    expect(estadoVigente(enProceso, reloj(30 + 72))).toEqual({
      estado: 'Cancelado',
      estatusCancelacion: 'Plazo vencido',
    });
    expect(responderSolicitud(enProceso, reloj(30 + 72), 'aceptar')).toBeNull();
    expect(estadoVigente({ ...enProceso, plazoAceptacionMs: 1000 }, reloj(30.001))).toMatchObject({
      estatusCancelacion: 'Plazo vencido',
    });
    // A rejected request can be presented again; live related documents block it.
    const rechazada = { ...enProceso, estatusCancelacion: 'Solicitud rechazada' as const };
    expect(decidirCancelacion(rechazada, reloj(40), false)).toMatchObject({ tipo: 'aplicar' });
    expect(decidirCancelacion(rechazada, reloj(40), true)).toEqual({ tipo: 'no_cancelable' });
    expect(decidirCancelacion(base, reloj(1), false)).toEqual({
      tipo: 'aplicar',
      estado: { estado: 'Cancelado', estatusCancelacion: 'Cancelado sin aceptación' },
    });
  });
});

describe('valores mágicos del sandbox', () => {
  it('se detectan con una búsqueda y se leen de Serie y CondicionesDePago', () => {
    expect(hayMagia('<cfdi:Comprobante Serie="A"/>')).toBe(false);
    expect(hayMagia('<cfdi:Comprobante Serie="SANDBOX:ERROR_500"/>')).toBe(true);
    expect(
      leerMagia([
        'SANDBOX:LATENCIA=3000',
        'Contado SANDBOX:PERDIDA SANDBOX:RECHAZO=CFDI40145 SANDBOX:CON_ACEPTACION SANDBOX:PLAZO=2000 SANDBOX:TIMEOUT',
      ]),
    ).toEqual({
      latenciaMs: 3000,
      perdida: true,
      rechazo: 'CFDI40145',
      conAceptacion: true,
      plazoMs: 2000,
      timeout: true,
    });
    expect(leerMagia(['SANDBOX:LATENCIA=99999999', 'SANDBOX:DESCONOCIDO', undefined])).toEqual({
      latenciaMs: 600_000,
    });
  });

  it('la configuración del proceso sale de PAC_SANDBOX_* (vacío = sin definir)', () => {
    const c = leerConfigSandbox({
      PAC_SANDBOX_DATOS: '/tmp/x',
      PAC_SANDBOX_PLAZO_ACEPTACION_MS: '2000',
      PAC_SANDBOX_USUARIO: '',
    });
    expect(c).toMatchObject({ rutaDatos: '/tmp/x', plazoAceptacionMs: 2000, falla: 'normal', latenciaMs: 0 });
    expect(c.credenciales).toBeUndefined();
    expect(() => leerConfigSandbox({ PAC_SANDBOX_FALLA: 'roto' })).toThrow(/PAC_SANDBOX_FALLA/);
  });
});

describe('revisiones previas al timbrado', () => {
  const csd = generarCsd({ rfc: 'EKU9003173C9' });
  const sellado = (c = comprobante({ no_certificado: csd.noCertificado })) =>
    sellarComprobante(
      construirComprobante({ ...c, certificado: csd.cer.toString('base64') }).nodo,
      csd.llavePrivada,
    );

  it('XML mal formado y estructura: 301; ya timbrado: 707', () => {
    expect(leerComprobante('<no')).toMatchObject({ codigo: '301' });
    expect(leerComprobante('<a xmlns="urn:x"/>')).toMatchObject({ codigo: '301' });
    const s = sellado();
    expect(leerComprobante(s.xml.replace(/ Moneda="MXN"/, ''))).toMatchObject({
      codigo: '301',
      mensaje: expect.stringContaining('Comprobante@Moneda'),
    });
    expect(leerComprobante(s.xml.replace(/ Serie="[^"]*"|(?= Fecha=)/, ' Serie=""'))).toMatchObject({
      codigo: '301',
    });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const tfd = construirTimbre(
      {
        uuid: 'A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2',
        fechaTimbrado: '2026-11-22T10:00:00',
        rfcProvCertif: 'SPR190613I52',
        selloCfd: s.sello,
        noCertificadoSat: '30001000000500000001',
      },
      (c) => sellar(c, privateKey),
    );
    expect(leerComprobante(serializar(insertarTimbre(s.nodo, tfd)))).toMatchObject({ codigo: '707' });
    const bien = leerComprobante(s.xml);
    expect('nodo' in bien && bien.huella).toMatch(/^[0-9a-f]{64}$/);
  });

  it('Fecha: hasta 72 h atrás y nada en el futuro, con 5 minutos de tolerancia (401)', () => {
    const catalogos = { codigoPostal: () => undefined } as unknown as CatalogosValidacion;
    const s = sellado(comprobante({ fecha: '2026-11-22T10:00:00' }));
    // 10:00 in Mexico City (UTC-6) is 16:00 UTC.
    const en = (iso: string) => revisarFecha(s.nodo, { catalogos, ahora: new Date(iso) });
    expect(en('2026-11-22T16:00:00Z')).toBeNull();
    expect(en('2026-11-22T15:56:00Z')).toBeNull();
    expect(en('2026-11-22T15:54:00Z')).toMatchObject({ codigo: '401' });
    expect(en('2026-11-25T16:04:00Z')).toBeNull();
    expect(en('2026-11-25T16:06:00Z')).toMatchObject({ codigo: '401' });
  });

  it('los UUID que impiden cancelar: relacionados salvo sustitución (04)', () => {
    const s = sellado(
      comprobante({
        relaciones: [
          { tipo_relacion: '01', uuids: ['a2d530d5-86ee-4ed6-afb7-1c965d72a3e2'] },
          { tipo_relacion: '04', uuids: ['b2d530d5-86ee-4ed6-afb7-1c965d72a3e2'] },
        ],
      }),
    );
    expect(uuidsRelacionados(s.nodo)).toEqual(['A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2']);
  });
});

describe('adaptador Finkok: de respuestas SOAP a resultados del puerto', () => {
  const csd = generarCsd({ rfc: 'EKU9003173C9' });
  const s = sellarComprobante(
    construirComprobante({
      ...comprobante({ no_certificado: csd.noCertificado }),
      certificado: csd.cer.toString('base64'),
    }).nodo,
    csd.llavePrivada,
  );
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const timbrado = serializar(
    insertarTimbre(
      s.nodo,
      construirTimbre(
        {
          uuid: 'A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2',
          fechaTimbrado: '2026-11-22T10:00:00',
          rfcProvCertif: 'SPR190613I52',
          selloCfd: s.sello,
          noCertificadoSat: '30001000000500000001',
        },
        (c) => sellar(c, privateKey),
      ),
    ),
  );

  type Respuesta = { estado?: number; cuerpo: string } | Error;
  /** A PacFinkok whose fetch answers the given bodies in turn and records the operations called. */
  function conRespuestas(...respuestas: Respuesta[]) {
    const llamadas: { ruta: string; operacion: string; parametros: Record<string, string> }[] = [];
    const falso = (async (url: URL, init: RequestInit) => {
      const s = leerSolicitud(String(init.body));
      llamadas.push({ ruta: url.pathname, operacion: s.operacion, parametros: { ...s.parametros } });
      const r = respuestas.shift();
      if (!r) throw new Error('sin más respuestas');
      if (r instanceof Error) throw r;
      return new Response(r.cuerpo, { status: r.estado ?? 200 });
    }) as unknown as typeof fetch;
    return {
      pac: new PacFinkok({ url: 'http://pac.prueba', usuario: 'u', contrasena: 'c', fetch: falso }),
      llamadas,
    };
  }
  const timbre = (operacion: string, campos: { xml?: string; incidencias?: [string, string][] }) => ({
    cuerpo: respuestaSoap(operacion, NS_TIMBRADO, NS_CAMPOS, [
      campo('xml', campos.xml ?? ''),
      campo(
        'Incidencias',
        (campos.incidencias ?? []).map(([codigo, mensaje]) =>
          campo('Incidencia', [campo('CodigoError', codigo), campo('MensajeIncidencia', mensaje)]),
        ),
      ),
    ]),
  });

  it('clasifica las incidencias', () => {
    expect(clasificarIncidencia({ codigo: '307', mensaje: '' })).toBe('previo');
    expect(clasificarIncidencia({ codigo: '300', mensaje: '' })).toBe('configuracion');
    expect(clasificarIncidencia({ codigo: '708', mensaje: '' })).toBe('transitoria');
    expect(clasificarIncidencia({ codigo: '603', mensaje: '' })).toBe('no_encontrado');
    expect(clasificarIncidencia({ codigo: 'CFDI40145', mensaje: '' })).toBe('rechazo');
  });

  it('timbrado: el TFD del XML devuelto da UUID, fecha, certificado y sello; el XML va en base64 a /servicios/soap/stamp', async () => {
    const { pac, llamadas } = conRespuestas(timbre('stamp', { xml: timbrado }));
    const r = await pac.timbrar(s.xml);
    expect(r).toMatchObject({
      tipo: 'timbrado',
      uuid: 'A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2',
      fechaTimbrado: '2026-11-22T10:00:00',
      noCertificadoSat: '30001000000500000001',
      previo: false,
      xml: timbrado,
    });
    expect(llamadas[0]).toMatchObject({
      ruta: '/servicios/soap/stamp',
      operacion: 'stamp',
      parametros: { username: 'u', password: 'c' },
    });
    expect(Buffer.from(llamadas[0]!.parametros['xml']!, 'base64').toString('utf8')).toBe(s.xml);
  });

  it('307 con el XML previo → previo; 307 sin XML → lo recupera con stamped', async () => {
    const con = conRespuestas(
      timbre('stamp', { xml: timbrado, incidencias: [['307', 'El CFDI contiene un timbre previo']] }),
    );
    expect(await con.pac.timbrar(s.xml)).toMatchObject({ tipo: 'timbrado', previo: true });
    const sin = conRespuestas(
      timbre('stamp', { incidencias: [['307', 'El CFDI contiene un timbre previo']] }),
      timbre('stamped', { xml: timbrado }),
    );
    expect(await sin.pac.timbrar(s.xml)).toMatchObject({
      tipo: 'timbrado',
      previo: true,
      uuid: 'A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2',
    });
    expect(sin.llamadas.map((l) => l.operacion)).toEqual(['stamp', 'stamped']);
    const aunNo = conRespuestas(
      timbre('stamp', { incidencias: [['307', 'x']] }),
      timbre('stamped', { incidencias: [['603', 'El CFDI no contiene un timbre previo']] }),
    );
    await expect(aunNo.pac.timbrar(s.xml)).rejects.toBeInstanceOf(ErrorPacTransitorio);
  });

  it('rechazos definitivos son resultados; 300 y 708 son excepciones de distinta clase', async () => {
    expect(
      await conRespuestas(timbre('stamp', { incidencias: [['CFDI40145', 'mensaje']] })).pac.timbrar(s.xml),
    ).toEqual({
      tipo: 'rechazado',
      codigo: 'CFDI40145',
      mensaje: 'mensaje',
    });
    await expect(
      conRespuestas(timbre('stamp', { incidencias: [['300', 'x']] })).pac.timbrar(s.xml),
    ).rejects.toBeInstanceOf(ErrorPacConfiguracion);
    await expect(
      conRespuestas(timbre('stamp', { incidencias: [['708', 'x']] })).pac.timbrar(s.xml),
    ).rejects.toBeInstanceOf(ErrorPacTransitorio);
  });

  it('transporte: red caída, HTTP 5xx, Server Fault y HTML → transitorio; 404 y Client Fault → configuración', async () => {
    const transitorio = [
      new TypeError('fetch failed'),
      { estado: 502, cuerpo: '<html>Bad Gateway</html>' },
      { estado: 500, cuerpo: faltaSoap('Server', 'caído') },
      { estado: 200, cuerpo: 'no es XML' },
    ];
    for (const r of transitorio) {
      await expect(conRespuestas(r).pac.timbrar(s.xml)).rejects.toBeInstanceOf(ErrorPacTransitorio);
    }
    for (const r of [
      { estado: 404, cuerpo: 'Not Found' },
      { estado: 500, cuerpo: faltaSoap('Client', 'mal') },
    ]) {
      const e = await conRespuestas(r)
        .pac.timbrar(s.xml)
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ErrorPacConfiguracion);
      expect((e as ErrorPacConfiguracion).reintentable).toBe(false);
    }
  });

  it('sin respuesta dentro del límite → transitorio con el tiempo en el mensaje', async () => {
    const lento = (async (_u: URL, init: RequestInit) =>
      new Promise((_, rechazar) =>
        init.signal?.addEventListener('abort', () => rechazar(init.signal?.reason)),
      )) as unknown as typeof fetch;
    const pac = new PacFinkok({
      url: 'http://pac.prueba',
      usuario: 'u',
      contrasena: 'c',
      timeoutMs: 50,
      fetch: lento,
    });
    await expect(pac.timbrar(s.xml)).rejects.toThrow(/no respondió en 50 ms/);
  });

  it('consultarTimbre: stamped con XML → timbre previo; 603 → no_encontrado; por UUID usa query_pending', async () => {
    expect(
      await conRespuestas(timbre('stamped', { xml: timbrado })).pac.consultarTimbre(s.xml),
    ).toMatchObject({
      tipo: 'timbrado',
      previo: true,
    });
    expect(
      await conRespuestas(timbre('stamped', { incidencias: [['603', 'x']] })).pac.consultarTimbre(s.xml),
    ).toEqual({
      tipo: 'no_encontrado',
    });
    const q = conRespuestas({
      cuerpo: respuestaSoap('query_pending', NS_TIMBRADO, NS_CAMPOS, [
        campo('status', 'F'),
        campo('xml', timbrado),
        campo('error', ''),
      ]),
    });
    expect(await q.pac.consultarTimbre({ uuid: 'A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2' })).toMatchObject({
      tipo: 'timbrado',
    });
    expect(q.llamadas[0]).toMatchObject({
      operacion: 'query_pending',
      parametros: { uuid: 'A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2' },
    });
  });

  const solicitud: SolicitudCancelacion = {
    rfcEmisor: 'EKU9003173C9',
    uuid: 'a2d530d5-86ee-4ed6-afb7-1c965d72a3e2',
    motivo: '02',
    total: '1740.00',
    rfcReceptor: 'MASO451221PM4',
    firma: { cer: csd.cer, llave: csd.llavePrivada },
  };
  const cancelacion = (folios: [string, string][], codEstatus?: string) => ({
    cuerpo: respuestaSoap('cancel_signature', NS_CANCELACION, NS_CAMPOS, [
      campo(
        'Folios',
        folios.map(([estatus, cancelacion]) =>
          campo('Folio', [
            campo('UUID', 'A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2'),
            campo('EstatusUUID', estatus),
            campo('EstatusCancelacion', cancelacion),
          ]),
        ),
      ),
      campo('Acuse', '<Acuse/>'),
      campo('Fecha', '2026-11-22T10:00:00'),
      ...(codEstatus ? [campo('CodEstatus', codEstatus)] : []),
    ]),
  });

  it('cancelación: 201/202 → solicitada; 205, no_cancelable y errores de solicitud → rechazada; 708 → transitorio', async () => {
    const ok = conRespuestas(cancelacion([['201', 'Cancelado sin aceptación']]));
    expect(await ok.pac.cancelar(solicitud)).toEqual({
      tipo: 'solicitada',
      uuid: 'A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2',
      estatusUuid: '201',
      estatusCancelacion: 'Cancelado sin aceptación',
      acuse: '<Acuse/>',
      fecha: '2026-11-22T10:00:00',
    });
    expect(ok.llamadas[0]).toMatchObject({
      ruta: '/servicios/soap/cancel',
      operacion: 'cancel_signature',
      parametros: { store_pending: 'false', username: 'u' },
    });
    expect(Buffer.from(ok.llamadas[0]!.parametros['xml']!, 'base64').toString('utf8')).toContain(
      '<Folio UUID="A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2" Motivo="02" FolioSustitucion=""/>',
    );
    expect(await conRespuestas(cancelacion([['202', 'En proceso']])).pac.cancelar(solicitud)).toMatchObject({
      tipo: 'solicitada',
      estatusUuid: '202',
      estatusCancelacion: 'En proceso',
    });
    expect(await conRespuestas(cancelacion([['205', '']])).pac.cancelar(solicitud)).toEqual({
      tipo: 'rechazada',
      codigo: '205',
      mensaje: 'UUID no encontrado',
    });
    expect(await conRespuestas(cancelacion([['no_cancelable', '']])).pac.cancelar(solicitud)).toMatchObject({
      codigo: 'no_cancelable',
    });
    expect(
      await conRespuestas(
        cancelacion([], '301 - XML mal formado: el Motivo 01 requiere FolioSustitucion'),
      ).pac.cancelar(solicitud),
    ).toEqual({
      tipo: 'rechazada',
      codigo: '301',
      mensaje: 'XML mal formado: el Motivo 01 requiere FolioSustitucion',
    });
    await expect(
      conRespuestas(cancelacion([], '708 - No se pudo conectar al SAT')).pac.cancelar(solicitud),
    ).rejects.toBeInstanceOf(ErrorPacTransitorio);
  });

  it('estatus SAT: normaliza acentos y mayúsculas; un valor desconocido es transitorio', async () => {
    const sat = (estado: string, esCancelable: string, estatus: string) => ({
      cuerpo: respuestaSoap('get_sat_status', NS_CANCELACION, NS_CAMPOS, [
        campo('sat', [
          campo('CodigoEstatus', 'S - Comprobante obtenido satisfactoriamente.'),
          campo('Estado', estado),
          campo('EsCancelable', esCancelable),
          campo('EstatusCancelacion', estatus),
        ]),
      ]),
    });
    const c = { rfcEmisor: 'EKU9003173C9', rfcReceptor: 'MASO451221PM4', total: '1740.00', uuid: 'x' };
    const r = conRespuestas(sat('Vigente', 'Cancelable con aceptacion', 'En Proceso'));
    expect(await r.pac.estatusSat(c)).toEqual({
      estado: 'Vigente',
      esCancelable: 'Cancelable con aceptación',
      estatusCancelacion: 'En proceso',
      codigoEstatus: 'S - Comprobante obtenido satisfactoriamente.',
    });
    expect(r.llamadas[0]!.parametros).toMatchObject({
      taxpayer_id: 'EKU9003173C9',
      rtaxpayer_id: 'MASO451221PM4',
      total: '1740.00',
      uuid: 'X',
    });
    expect(await conRespuestas(sat('No Encontrado', '', '')).pac.estatusSat(c)).toMatchObject({
      estado: 'No Encontrado',
      esCancelable: '',
    });
    await expect(conRespuestas(sat('Raro', '', '')).pac.estatusSat(c)).rejects.toBeInstanceOf(
      ErrorPacTransitorio,
    );
  });

  it('fábrica: test → sandbox; live sin credenciales → ErrorPacNoConfigurado (503)', async () => {
    expect(crearPacPara('test', { pac: { sandboxUrl: 'http://127.0.0.1:3100' } })).toBeInstanceOf(PacFinkok);
    const live = crearPacPara('live', {
      pac: { sandboxUrl: 'http://x', live: { url: 'https://facturacion.finkok.com' } },
    });
    const e = await live.timbrar(s.xml).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ErrorPacNoConfigurado);
    expect((e as ErrorPacNoConfigurado).estadoHttp).toBe(503);
    await expect(
      pacNoConfigurado().estatusSat({ rfcEmisor: '', rfcReceptor: '', total: '', uuid: '' }),
    ).rejects.toBeInstanceOf(ErrorPacConfiguracion);
  });
});
