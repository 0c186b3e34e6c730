import type { Request, Response } from 'express';
import { construirComprobante } from '../../cfdi/comprobante/construir';
import { sellarComprobante } from '../../cfdi/comprobante/sellar';
import { crearLogger } from '../../log/logger';
import { CODIGO_ESTATUS_SAT, TIMBRADO_CORRECTO } from '../../pac/finkok/protocolo';
import type { FolioCancelacion } from '../../pac/finkok/cancelacion';
import { leerSolicitud, solicitudSoap } from '../../pac/soap/sobre';
import { hijoDe, localDe, textoDe, type ElementoXml } from '../../pac/soap/xml';
import type { AlmacenTimbres, CamposSolicitud, FilaTimbre } from '../../pac/sandbox/almacen';
import {
  efectoDeMagia,
  efectoDelModo,
  EstadoFallas,
  leerCambioFallas,
  rechazoSimulado,
} from '../../pac/sandbox/fallas';
import {
  acuseCancelacion,
  crearCancelSignature,
  revisarFolios,
} from '../../pac/sandbox/manejadores/cancelar';
import { crearQueryPending, crearStamped } from '../../pac/sandbox/manejadores/consultar';
import { coincideConsulta, crearGetSatStatus, mismoImporte } from '../../pac/sandbox/manejadores/estatus-sat';
import { crearRespuestaReceptor } from '../../pac/sandbox/manejadores/receptor';
import { crearTimbrar, type DepsTimbrar } from '../../pac/sandbox/manejadores/timbrar';
import { soloOperador } from '../../pac/sandbox/operador';
import { perezoso } from '../../pac/sandbox/recurso';
import type { EstadoCancelacion, Reloj } from '../../pac/sandbox/reglas-cancelacion';
import type { Respuesta } from '../../pac/sandbox/respuesta';
import { credencialesAceptadas, decodificarXml, leerEntrada, operacionDe } from '../../pac/sandbox/solicitud';
import { leerComprobante } from '../../pac/sandbox/timbrado';
import { generarCsd } from '../support/certificados';
import { comprobante } from '../support/comprobantes';

/** The sandbox's pieces without HTTP or MySQL: request reading, fault decisions and the handlers. */

const logger = crearLogger('prueba', 'silent');
const FECHA = '2026-11-23T10:00:00';
const UUID = 'A2D530D5-86EE-4ED6-AFB7-1C965D72A3E2';

/** A stored stamp; override what a test needs. */
const fila = (c: Partial<FilaTimbre> = {}): FilaTimbre => ({
  huella: 'a'.repeat(64),
  huella_sello: 'b'.repeat(64),
  uuid: UUID,
  rfc_emisor: 'EKU9003173C9',
  rfc_receptor: 'MASO451221PM4',
  total: '1740.00',
  total_mxn: '1740',
  tipo_comprobante: 'I',
  xml_timbrado: '<cfdi:Comprobante/>',
  fecha_timbrado: new Date('2026-11-23T16:00:00Z'),
  fecha_timbrado_local: FECHA,
  no_certificado_sat: '30001000000500000001',
  sello_sat: 'c2VsbG8=',
  estado: 'Vigente',
  es_cancelable: 'Cancelable con aceptación',
  estatus_cancelacion: '',
  cancelacion_solicitada_en: null,
  motivo: null,
  folio_sustitucion: null,
  relacionados: null,
  forzar_aceptacion: 0,
  plazo_aceptacion_ms: null,
  ...c,
});

/** The store's contract over an array, with the same compare-and-set on the state. */
class AlmacenEnMemoria implements AlmacenTimbres {
  constructor(public filas: FilaTimbre[] = []) {}
  async porHuellas(huella: string, huellaSello: string) {
    return this.filas.find((f) => f.huella === huella || f.huella_sello === huellaSello);
  }
  async porUuid(uuid: string) {
    return this.filas.find((f) => f.uuid === uuid.toUpperCase());
  }
  async insertar(f: FilaTimbre) {
    const existente = await this.porHuellas(f.huella, f.huella_sello);
    if (existente) return { nueva: false as const, existente };
    this.filas.push(f);
    return { nueva: true as const };
  }
  async tieneRelacionadosVigentes(uuid: string) {
    return this.filas.some((f) => f.estado === 'Vigente' && (f.relacionados ?? '').includes(uuid));
  }
  async cambiarEstado(
    uuid: string,
    desde: EstadoCancelacion,
    hacia: EstadoCancelacion,
    extra: CamposSolicitud = {},
  ) {
    const f = await this.porUuid(uuid);
    if (!f || f.estado !== desde.estado || f.estatus_cancelacion !== desde.estatusCancelacion) return false;
    Object.assign(f, { estado: hacia.estado, estatus_cancelacion: hacia.estatusCancelacion, ...extra });
    return true;
  }
}

/** A result field of a SOAP answer, by local name (nested names go one level each). */
function valor(r: Respuesta, ...ruta: string[]): string {
  if (r.tipo !== 'soap') throw new Error(`se esperaba una respuesta SOAP y llegó ${r.tipo}`);
  const [primero, ...resto] = ruta;
  let el: ElementoXml | undefined = r.campos.find((c) => localDe(c.nombre) === primero);
  for (const nombre of resto) el = hijoDe(el, nombre);
  return textoDe(el);
}

/** A call as the Finkok adapter sends it. */
const llamada = (operacion: string, parametros: Record<string, string>) =>
  leerSolicitud(solicitudSoap(operacion, 'urn:servicio', Object.entries(parametros)));

const reloj =
  (iso = '2026-11-23T17:00:00Z'): (() => Reloj) =>
  () => ({ ahora: new Date(iso), plazoAceptacionMs: 3_600_000, ventanaSinAceptacionMs: 0 });

describe('lectura de la solicitud', () => {
  it('cada operación solo en la ruta de su servicio', () => {
    expect(operacionDe('timbrado', 'quick_stamp')).toBe('quick_stamp');
    expect(operacionDe('cancelacion', 'stamp')).toBeUndefined();
    expect(operacionDe('timbrado', 'get_sat_status')).toBeUndefined();
  });

  it('sin credenciales configuradas acepta cualquiera; con ellas, solo el par exacto', () => {
    expect(credencialesAceptadas(undefined, {})).toBe(true);
    const c = { usuario: 'integrador', contrasena: 'secreta' };
    expect(credencialesAceptadas(c, { username: 'integrador', password: 'secreta' })).toBe(true);
    expect(credencialesAceptadas(c, { username: 'integrador', password: 'otra' })).toBe(false);
    expect(credencialesAceptadas(c, {})).toBe(false);
  });

  it('el parámetro xml: base64, o XML tal cual; otra cosa es null', () => {
    const xml = '<a>ñ</a>';
    expect(decodificarXml(Buffer.from(xml).toString('base64'))).toBe(xml);
    expect(decodificarXml(xml)).toBe(xml);
    expect(decodificarXml(undefined)).toBeNull();
    expect(decodificarXml('')).toBeNull();
    expect(decodificarXml('no es base64!')).toBeNull();
    expect(decodificarXml(Buffer.from('texto sin XML').toString('base64'))).toBeNull();
  });

  it('lo que no llega a un manejador: sobre inválido, operación ajena, credenciales incorrectas', () => {
    const fecha = () => FECHA;
    expect(leerEntrada('timbrado', 'no es XML', undefined, fecha)).toMatchObject({
      tipo: 'respuesta',
      respuesta: {
        tipo: 'falta',
        codigo: 'Client',
        mensaje: expect.stringMatching(/^Solicitud SOAP inválida/),
      },
    });
    const sobre = (op: string) =>
      solicitudSoap(op, 'urn:servicio', [
        ['username', 'u'],
        ['password', 'p'],
      ]);
    expect(leerEntrada('cancelacion', sobre('stamp'), undefined, fecha)).toMatchObject({
      respuesta: { tipo: 'falta', mensaje: 'Operación desconocida en /servicios/soap/cancel: stamp' },
    });
    expect(leerEntrada('timbrado', sobre('stamp'), undefined, fecha)).toMatchObject({
      tipo: 'operacion',
      operacion: 'stamp',
      solicitud: { parametros: { username: 'u' } },
    });

    const otras = { usuario: 'x', contrasena: 'y' };
    const rechazo = (servicio: 'timbrado' | 'cancelacion', op: string) => {
      const e = leerEntrada(servicio, sobre(op), otras, fecha);
      if (e.tipo !== 'respuesta') throw new Error('debió rechazarse');
      expect(e.operacion).toBe(op);
      return e.respuesta;
    };
    expect(valor(rechazo('timbrado', 'stamp'), 'Incidencias', 'Incidencia', 'CodigoError')).toBe('300');
    expect(valor(rechazo('timbrado', 'query_pending'), 'error')).toBe('300 - Usuario y contraseña inválidos');
    expect(valor(rechazo('cancelacion', 'cancel_signature'), 'CodEstatus')).toMatch(/^300 - /);
    expect(valor(rechazo('cancelacion', 'get_sat_status'), 'error')).toMatch(/^300 - /);
  });
});

describe('inyección de fallas', () => {
  it('un modo con fin vuelve solo a normal al leerse después de su fin', () => {
    const e = new EstadoFallas('normal');
    e.cambiar({ modo: 'caido', hasta: new Date('2026-11-23T10:00:00Z') });
    expect(e.actual(new Date('2026-11-23T09:59:59Z'))).toBe('caido');
    expect(e.actual(new Date('2026-11-23T10:00:00Z'))).toBe('normal');
    expect(e.hasta).toBeNull();
  });

  it('POST /sandbox/fallas: hasta gana a duracion_ms; normal no tiene fin; lo inválido se explica', () => {
    const ahora = new Date('2026-11-23T10:00:00Z');
    expect(leerCambioFallas({ modo: 'error_500', duracion_ms: 500 }, ahora)).toEqual({
      ok: true,
      cambio: { modo: 'error_500', hasta: new Date('2026-11-23T10:00:00.500Z') },
    });
    expect(
      leerCambioFallas({ modo: 'caido', hasta: '2026-11-23T12:00:00-06:00', duracion_ms: 500 }, ahora),
    ).toEqual({ ok: true, cambio: { modo: 'caido', hasta: new Date('2026-11-23T18:00:00Z') } });
    expect(leerCambioFallas({ modo: 'caido' }, ahora)).toEqual({
      ok: true,
      cambio: { modo: 'caido', hasta: null },
    });
    expect(leerCambioFallas({ modo: 'normal', duracion_ms: 500 }, ahora)).toEqual({
      ok: true,
      cambio: { modo: 'normal', hasta: null },
    });
    for (const malo of [
      { modo: 'roto' },
      { modo: 'caido', duracion_ms: -1 },
      { modo: 'caido', hasta: 'mañana' },
      null,
    ]) {
      expect(leerCambioFallas(malo, ahora)).toMatchObject({ ok: false, detalle: [expect.any(String)] });
    }
  });

  it('el control global es del operador: una dirección ajena pasa solo con el token correcto', () => {
    const TOKEN = 'operador-'.padEnd(40, '3');
    /** Runs the guard over a request from `direccion`: 'siguiente', or the refusal's status, header and body. */
    const correr = (
      token: string | undefined,
      direccion: string,
      encabezados: Record<string, string> = {},
    ) => {
      const req = {
        method: 'POST',
        path: '/sandbox/fallas',
        headers: Object.fromEntries(Object.entries(encabezados).map(([k, v]) => [k.toLowerCase(), v])),
        socket: { remoteAddress: direccion },
      } as unknown as Request;
      const respuesta: { status?: number; encabezados: Record<string, string>; cuerpo?: unknown } = {
        encabezados: {},
      };
      const res = {
        status(n: number) {
          respuesta.status = n;
          return res;
        },
        set(k: string, v: string) {
          respuesta.encabezados[k] = v;
          return res;
        },
        json(c: unknown) {
          respuesta.cuerpo = c;
          return res;
        },
      } as unknown as Response;
      let paso = false;
      void soloOperador(token, logger)(req, res, () => {
        paso = true;
      });
      return paso ? 'siguiente' : respuesta;
    };
    const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      expect(correr(undefined, ip)).toBe('siguiente');
    expect(correr(TOKEN, '203.0.113.5', bearer(TOKEN))).toBe('siguiente');
    const rechazos = [
      correr(TOKEN, '203.0.113.5'),
      correr(TOKEN, '203.0.113.5', bearer(TOKEN.slice(1))),
      correr(TOKEN, '203.0.113.5', { Authorization: `Basic ${TOKEN}` }),
      correr(TOKEN, '127.0.0.1', { 'X-Forwarded-For': '203.0.113.5' }),
      correr(undefined, '203.0.113.5', bearer(TOKEN)),
      correr(undefined, '10.0.0.8'),
    ];
    for (const r of rechazos) {
      expect(r).toEqual({
        status: 401,
        encabezados: { 'WWW-Authenticate': expect.stringMatching(/^Bearer /) },
        cuerpo: { error: 'solo el operador', detalle: [expect.stringContaining('operador')] },
      });
    }
  });

  it('efecto del modo y de los valores mágicos', () => {
    expect(efectoDelModo('normal')).toBeNull();
    expect(efectoDelModo('caido')).toEqual({ tipo: 'cortar' });
    expect(efectoDelModo('error_500')).toMatchObject({ tipo: 'falta', codigo: 'Server' });
    expect(efectoDeMagia({})).toBeNull();
    expect(efectoDeMagia({ latenciaMs: 10, perdida: true })).toBeNull();
    expect(efectoDeMagia({ timeout: true })).toEqual({ tipo: 'retener' });
    expect(efectoDeMagia({ timeout: true, error500: true })).toMatchObject({
      tipo: 'falta',
      mensaje: expect.stringContaining('SANDBOX:ERROR_500'),
    });
    expect(rechazoSimulado({})).toBeNull();
    expect(rechazoSimulado({ rechazo: 'CFDI40145' })).toMatchObject({ codigo: 'CFDI40145' });
  });
});

describe('recursos perezosos', () => {
  it('se preparan una vez, y otra vez solo si la anterior falló', async () => {
    let veces = 0;
    const r = perezoso(async () => {
      veces++;
      if (veces === 1) throw new Error('falla pasajera');
      return veces;
    });
    await expect(r()).rejects.toThrow('falla pasajera');
    expect(await Promise.all([r(), r()])).toEqual([2, 2]);
    expect(await r()).toBe(2);
  });
});

describe('manejadores sobre un almacén en memoria', () => {
  const csd = generarCsd({ rfc: 'EKU9003173C9' });
  const sellado = (c: Parameters<typeof comprobante>[0] = {}) =>
    sellarComprobante(
      construirComprobante({
        ...comprobante({ no_certificado: csd.noCertificado, ...c }),
        certificado: csd.cer.toString('base64'),
      }).nodo,
      csd.llavePrivada,
    ).xml;
  const base64 = (xml: string) => Buffer.from(xml).toString('base64');
  const noUsar = async (): Promise<never> => {
    throw new Error('no debía hacer falta');
  };
  const timbrarCon = (almacen: AlmacenTimbres, extra: Partial<DepsTimbrar> = {}) => {
    const d: DepsTimbrar = {
      almacen,
      certificado: noUsar,
      catalogos: noUsar,
      ahora: () => new Date(),
      fechaLocal: () => FECHA,
      esperar: async () => undefined,
      logger,
      ...extra,
    };
    return { stamp: crearTimbrar(d, false), quickStamp: crearTimbrar(d, true) };
  };

  it('stamp: ERROR_500, TIMEOUT, LATENCIA y RECHAZO mágicos; un xml que no es base64 → 301', async () => {
    const esperas: number[] = [];
    const { stamp } = timbrarCon(new AlmacenEnMemoria(), { esperar: async (ms) => void esperas.push(ms) });
    expect(
      await stamp(llamada('stamp', { xml: base64(sellado({ serie: 'SANDBOX:ERROR_500' })) })),
    ).toMatchObject({
      tipo: 'falta',
    });
    const xml = sellado({ condiciones_pago: 'SANDBOX:LATENCIA=250 SANDBOX:TIMEOUT' });
    expect(await stamp(llamada('stamp', { xml: base64(xml) }))).toEqual({ tipo: 'retener' });
    expect(esperas).toEqual([250]);
    const r = await stamp(llamada('stamp', { xml: base64(sellado({ serie: 'SANDBOX:RECHAZO=CFDI40145' })) }));
    expect(valor(r, 'Incidencias', 'Incidencia', 'CodigoError')).toBe('CFDI40145');
    expect(
      valor(await stamp(llamada('stamp', { xml: 'basura' })), 'Incidencias', 'Incidencia', 'CodigoError'),
    ).toBe('301');
  });

  it('stamp y quick_stamp de un documento ya timbrado: 307 con el timbre original (quick_stamp sin el XML)', async () => {
    const xml = sellado();
    const leido = leerComprobante(xml);
    if ('codigo' in leido) throw new Error(leido.mensaje);
    const previo = fila({
      huella: leido.huella,
      huella_sello: leido.huellaSello,
      xml_timbrado: '<timbrado/>',
    });
    const { stamp, quickStamp } = timbrarCon(new AlmacenEnMemoria([previo]));
    const r = await stamp(llamada('stamp', { xml: base64(xml) }));
    expect(valor(r, 'UUID')).toBe(UUID);
    expect(valor(r, 'xml')).toBe('<timbrado/>');
    expect(valor(r, 'CodEstatus')).toBe('Comprobante timbrado previamente');
    expect(valor(r, 'Incidencias', 'Incidencia', 'CodigoError')).toBe('307');
    const rapido = await quickStamp(llamada('quick_stamp', { xml: base64(xml) }));
    expect(valor(rapido, 'xml')).toBe('');
    expect(valor(rapido, 'UUID')).toBe(UUID);
  });

  it('stamped y query_pending: el timbre guardado, o 603 / UUID no encontrado', async () => {
    const xml = sellado();
    const leido = leerComprobante(xml);
    if ('codigo' in leido) throw new Error(leido.mensaje);
    const almacen = new AlmacenEnMemoria([fila({ huella: leido.huella })]);
    const stamped = crearStamped({ almacen, fechaLocal: () => FECHA });
    const r = await stamped(llamada('stamped', { xml: base64(xml) }));
    expect(valor(r, 'CodEstatus')).toBe(TIMBRADO_CORRECTO);
    expect(valor(r, 'UUID')).toBe(UUID);
    const otro = await stamped(llamada('stamped', { xml: base64(sellado({ folio: '999' })) }));
    expect(valor(otro, 'Incidencias', 'Incidencia', 'CodigoError')).toBe('603');

    const pendiente = crearQueryPending({ almacen });
    expect(valor(await pendiente(llamada('query_pending', { uuid: UUID.toLowerCase() })), 'status')).toBe(
      'F',
    );
    const nada = await pendiente(llamada('query_pending', { uuid: '00000000-0000-4000-8000-000000000000' }));
    expect(valor(nada, 'error')).toBe('UUID no encontrado');
    expect(valor(nada, 'attempts')).toBe('0');
  });

  it('get_sat_status: RFCs y total deben coincidir; un plazo vencido queda escrito', async () => {
    expect(mismoImporte('1740', '1740.000')).toBe(true);
    expect(mismoImporte('1740', 'mil')).toBe(false);
    const f = fila({
      estatus_cancelacion: 'En proceso',
      cancelacion_solicitada_en: new Date('2026-11-23T15:00:00Z'),
    });
    const consulta = {
      taxpayer_id: 'eku9003173c9',
      rtaxpayer_id: 'MASO451221PM4',
      total: '1740',
      uuid: UUID,
    };
    expect(coincideConsulta(f, consulta)).toBe(true);
    expect(coincideConsulta(f, { ...consulta, total: '1.00' })).toBe(false);

    const almacen = new AlmacenEnMemoria([f]);
    const estatus = crearGetSatStatus({ almacen, reloj: reloj() });
    const r = await estatus(llamada('get_sat_status', consulta));
    expect(valor(r, 'sat', 'Estado')).toBe('Cancelado');
    expect(valor(r, 'sat', 'EstatusCancelacion')).toBe('Plazo vencido');
    expect(f).toMatchObject({ estado: 'Cancelado', estatus_cancelacion: 'Plazo vencido' });
    const ajeno = await estatus(llamada('get_sat_status', { ...consulta, rtaxpayer_id: 'XAXX010101000' }));
    expect(valor(ajeno, 'sat', 'CodigoEstatus')).toBe(CODIGO_ESTATUS_SAT.noEncontrado);
  });

  it('cancel_signature: la solicitud se revisa entera antes de tocar un folio', async () => {
    const folio = (c: Partial<FolioCancelacion>): FolioCancelacion => ({ uuid: UUID, motivo: '02', ...c });
    expect(revisarFolios([folio({})])).toBeNull();
    expect(revisarFolios([folio({}), folio({ motivo: '05' })])).toMatch(/Motivo "05"/);
    expect(revisarFolios([folio({ motivo: '01' })])).toMatch(/FolioSustitucion/);
    expect(revisarFolios([folio({ motivo: '01', folioSustitucion: UUID })])).toBeNull();
    expect(acuseCancelacion('EKU9003173C9', FECHA, [])).toBe('');
    expect(
      acuseCancelacion('EKU9003173C9', FECHA, [{ uuid: UUID, estatusUuid: '201', estatusCancelacion: '' }]),
    ).toContain(`<UUID>${UUID}</UUID><EstatusUUID>201</EstatusUUID>`);

    const cancelar = crearCancelSignature({
      almacen: new AlmacenEnMemoria(),
      reloj: reloj(),
      fechaLocal: () => FECHA,
      logger,
    });
    const r = await cancelar(llamada('cancel_signature', { xml: 'no es base64!' }));
    expect(valor(r, 'CodEstatus')).toMatch(/^301 - XML mal formado: /);
    expect(valor(r, 'Acuse')).toBe('');
  });

  it('el receptor: 404 sin timbre, 409 sin solicitud pendiente, 200 al aceptar', async () => {
    const f = fila({
      estatus_cancelacion: 'En proceso',
      cancelacion_solicitada_en: new Date('2026-11-23T16:30:00Z'),
    });
    const almacen = new AlmacenEnMemoria([
      f,
      fila({ uuid: '00000000-0000-4000-8000-000000000001', huella: 'x', huella_sello: 'y' }),
    ]);
    const responder = crearRespuestaReceptor({ almacen, reloj: reloj(), logger });
    expect(await responder('00000000-0000-4000-8000-000000000000', 'aceptar')).toMatchObject({ estado: 404 });
    expect(await responder('00000000-0000-4000-8000-000000000001', 'rechazar')).toMatchObject({
      estado: 409,
      cuerpo: { estado: 'Vigente', estatus_cancelacion: '' },
    });
    expect(await responder(UUID.toLowerCase(), 'aceptar')).toEqual({
      estado: 200,
      cuerpo: { uuid: UUID, estado: 'Cancelado', estatus_cancelacion: 'Cancelado con aceptación' },
    });
    expect(f.estatus_cancelacion).toBe('Cancelado con aceptación');
  });
});
