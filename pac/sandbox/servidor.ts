import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import Decimal from 'decimal.js';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { fechaCfdi } from '../../cfdi/fecha';
import type { CatalogosValidacion } from '../../cfdi/validacion';
import { cargarConfigSinSecretos } from '../../config/config';
import { CatalogosEnMemoria } from '../../db/catalogos/memoria';
import { crearKnex, type Knex } from '../../db/conexion';
import type { Logger } from '../../log/logger';
import { verificarCancelacion, type FolioCancelacion } from '../finkok/cancelacion';
import {
  CODIGO_ESTATUS_SAT,
  CODIGOS,
  ESTATUS_UUID,
  MENSAJES,
  NS_CAMPOS,
  NS_DE,
  OPERACIONES,
  RUTAS,
  TIMBRADO_CORRECTO,
  type Servicio,
} from '../finkok/protocolo';
import type { EstatusCancelacion } from '../puerto';
import {
  campo,
  faltaSoap,
  leerSolicitud,
  respuestaSoap,
  type CodigoFalla,
  type SolicitudLeida,
} from '../soap/sobre';
import { elemento, escribirXml, type ElementoXml } from '../soap/xml';
import { AlmacenTimbres, comoCancelable, type FilaTimbre } from './almacen';
import { cargarOCrearCertificadoSat, type CertificadoSat } from './certificado-sat';
import { leerConfigSandbox, MODOS_FALLA, type ConfigSandbox, type ModoFalla } from './configuracion';
import { hayMagia, leerMagia, type Magia } from './magia';
import {
  decidirCancelacion,
  esCancelable,
  estadoVigente,
  responderSolicitud,
  sinAceptacionPorDocumento,
  totalEnPesos,
  type EstadoCancelacion,
  type Reloj,
} from './reglas-cancelacion';
import {
  leerComprobante,
  revisarFecha,
  revisarMatriz,
  revisarSello,
  timbrar,
  uuidsRelacionados,
  type Rechazo,
} from './timbrado';

export const VERSION_SANDBOX = 'pac-sandbox/1.0';
/** RfcProvCertif of every sandbox stamp. */
export const RFC_PAC_SANDBOX = 'SPR190613I52';

export interface OpcionesServidorPac {
  logger: Logger;
  /** Where stamps are kept; without it the sandbox opens DATABASE_URL itself (and closes it with the server). */
  db?: Knex;
  /** The catalog lookups validarComprobante needs; loaded from `db` when absent. */
  catalogos?: CatalogosValidacion | Promise<CatalogosValidacion>;
  /** Overrides of the PAC_SANDBOX_* environment settings. */
  config?: Partial<ConfigSandbox>;
  /** The clock (tests). */
  ahora?: () => Date;
}

export type ServidorPac = Express & {
  /** Resolves once the table, the SAT certificate and the catalogs are ready. */
  preparar(): Promise<void>;
  /** Releases what the sandbox opened itself and drops requests it is holding (SANDBOX:TIMEOUT). */
  cerrar(): Promise<void>;
};

const dormir = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The runtime fault mode, switched by POST /sandbox/fallas (an outage and its recovery). */
class Fallas {
  constructor(
    public modo: ModoFalla,
    public hasta: Date | null = null,
  ) {}

  actual(ahora: Date): ModoFalla {
    if (this.hasta && ahora >= this.hasta) {
      this.modo = 'normal';
      this.hasta = null;
    }
    return this.modo;
  }
}

const esquemaFallas = z.object({
  modo: z.enum(MODOS_FALLA),
  hasta: z.iso.datetime({ offset: true }).optional(),
  duracion_ms: z.number().int().positive().max(86_400_000).optional(),
});

/**
 * The sandbox PAC: a real HTTP service speaking Finkok's SOAP protocol on Finkok's paths, so test mode
 * exercises the production adapter. See README.md next to this file for the fault injection.
 */
export function crearServidorPac(op: OpcionesServidorPac): ServidorPac {
  const { logger } = op;
  const config: ConfigSandbox = { ...leerConfigSandbox(), ...op.config };
  const ahora = op.ahora ?? (() => new Date());
  const fallas = new Fallas(config.falla);
  const reloj = (): Reloj => ({
    ahora: ahora(),
    plazoAceptacionMs: config.plazoAceptacionMs,
    ventanaSinAceptacionMs: config.ventanaSinAceptacionMs,
  });

  // --- resources, prepared once (and again after a failure) ---------------------------------------------
  let dbPropia: Knex | undefined;
  const db = (): Knex => op.db ?? (dbPropia ??= crearKnex(cargarConfigSinSecretos().databaseUrl));
  let almacen: Promise<AlmacenTimbres> | undefined;
  let certificado: Promise<CertificadoSat> | undefined;
  let catalogos: Promise<CatalogosValidacion> | undefined;
  const reintentable = <T>(crear: () => Promise<T>, olvidar: () => void): Promise<T> =>
    crear().catch((e: unknown) => {
      olvidar();
      throw e;
    });
  const obtenerAlmacen = () =>
    (almacen ??= reintentable(
      async () => {
        const a = new AlmacenTimbres(db());
        await a.preparar();
        return a;
      },
      () => (almacen = undefined),
    ));
  const obtenerCertificado = () =>
    (certificado ??= reintentable(
      () => cargarOCrearCertificadoSat(config.rutaDatos),
      () => (certificado = undefined),
    ));
  const obtenerCatalogos = () =>
    (catalogos ??= reintentable(
      async () => op.catalogos ?? CatalogosEnMemoria.cargar(db()),
      () => (catalogos = undefined),
    ));
  const preparar = async () => {
    await Promise.all([obtenerAlmacen(), obtenerCertificado(), obtenerCatalogos()]);
  };
  // Started now so the first stamp does not pay for it; a failure is logged and retried on demand.
  preparar().catch((e: unknown) => logger.error({ err: e }, 'PAC sandbox: preparación fallida'));

  // --- requests held open by SANDBOX:TIMEOUT ---------------------------------------------------------------
  const retenidas = new Map<Response, NodeJS.Timeout>();
  const retener = (req: Request, res: Response) => {
    retenidas.set(
      res,
      setTimeout(() => req.socket.destroy(), config.esperaMaximaMs),
    );
    res.on('close', () => {
      clearTimeout(retenidas.get(res));
      retenidas.delete(res);
    });
  };
  const soltarRetenidas = () => {
    for (const [res, t] of retenidas) {
      clearTimeout(t);
      res.socket?.destroy();
    }
    retenidas.clear();
  };
  let cerrado = false;
  const cerrar = async () => {
    soltarRetenidas();
    if (cerrado) return;
    cerrado = true;
    if (dbPropia) await dbPropia.destroy();
  };

  // --- SOAP ---------------------------------------------------------------------------------------------------
  const responder = (res: Response, servicio: Servicio, operacion: string, campos: ElementoXml[]) =>
    res
      .status(200)
      .type('text/xml; charset=utf-8')
      .send(respuestaSoap(operacion, NS_DE[servicio], NS_CAMPOS, campos));
  const falta = (res: Response, codigo: CodigoFalla, mensaje: string) =>
    res.status(500).type('text/xml; charset=utf-8').send(faltaSoap(codigo, mensaje));

  const fechaLocal = () => fechaCfdi(ahora(), 'Tiempo del Centro');

  const incidencia = (r: Rechazo, uuid = '') =>
    campo('Incidencia', [
      campo('IdIncidencia', randomUUID()),
      campo('Uuid', uuid),
      campo('CodigoError', r.codigo),
      campo('WorkProcessId', randomUUID()),
      campo('MensajeIncidencia', r.mensaje),
      campo('ExtraInfo', ''),
      campo('NoCertificadoPac', ''),
      campo('FechaRegistro', fechaLocal()),
    ]);

  /** stampResult / stampedResult: the stamp (when there is one) and the incidencias. */
  const resultadoTimbre = (fila: FilaTimbre | undefined, incidencias: Rechazo[], conXml = true) => [
    campo('xml', fila && conXml ? fila.xml_timbrado : ''),
    campo('UUID', fila?.uuid ?? ''),
    campo('Fecha', fila?.fecha_timbrado_local ?? ''),
    campo(
      'CodEstatus',
      !fila ? '' : incidencias.length === 0 ? TIMBRADO_CORRECTO : 'Comprobante timbrado previamente',
    ),
    campo('SatSeal', fila?.sello_sat ?? ''),
    campo(
      'Incidencias',
      incidencias.map((i) => incidencia(i, fila?.uuid)),
    ),
    campo('NoCertificadoSAT', fila?.no_certificado_sat ?? ''),
  ];

  const previo: Rechazo = { codigo: CODIGOS.timbrePrevio, mensaje: MENSAJES[CODIGOS.timbrePrevio] as string };

  /** The `xml` parameter: the CFDI in base64 (raw XML is tolerated). */
  const decodificar = (valor: string | undefined): string | null => {
    if (!valor) return null;
    if (valor.startsWith('<')) return valor;
    if (!/^[A-Za-z0-9+/=\s]+$/.test(valor)) return null;
    const texto = Buffer.from(valor, 'base64').toString('utf8');
    return texto.trimStart().startsWith('<') ? texto : null;
  };
  const rechazoBase64: Rechazo = {
    codigo: CODIGOS.xmlMalFormado,
    mensaje: `${MENSAJES[CODIGOS.xmlMalFormado]}: el parámetro xml debe ser el CFDI sellado en base64`,
  };

  type Manejador = (s: SolicitudLeida, req: Request, res: Response) => Promise<unknown>;

  const stamp =
    (rapido: boolean): Manejador =>
    async (s, req, res) => {
      const operacion = s.operacion;
      const contestar = (fila: FilaTimbre | undefined, incidencias: Rechazo[], conXml = true) => {
        logger.info(
          { operacion, uuid: fila?.uuid, codigo: incidencias[0]?.codigo },
          incidencias.length ? 'PAC sandbox: incidencia' : 'PAC sandbox: timbrado',
        );
        return responder(res, 'timbrado', operacion, resultadoTimbre(fila, incidencias, conXml));
      };
      const xml = decodificar(s.parametros['xml']);
      if (xml === null) return contestar(undefined, [rechazoBase64]);
      const leido = leerComprobante(xml);
      if ('codigo' in leido) return contestar(undefined, [leido]);
      const { nodo } = leido;

      const magia: Magia = hayMagia(xml)
        ? leerMagia([nodo.atributos['Serie'], nodo.atributos['CondicionesDePago']])
        : {};
      if (magia.latenciaMs) await dormir(magia.latenciaMs);
      if (magia.error500) return falta(res, 'Server', 'Error interno simulado (SANDBOX:ERROR_500)');
      if (magia.timeout) return retener(req, res);

      const almacenTimbres = await obtenerAlmacen();
      const existente = await almacenTimbres.porHuellas(leido.huella, leido.huellaSello);
      // quick_stamp only says "stamped before"; stamp hands the earlier stamp back.
      if (existente) return contestar(existente, [previo], !rapido);
      if (magia.rechazo) {
        return contestar(undefined, [
          {
            codigo: magia.rechazo,
            mensaje: `Rechazo simulado por el PAC sandbox (SANDBOX:RECHAZO=${magia.rechazo})`,
          },
        ]);
      }

      const ctx = { catalogos: await obtenerCatalogos(), ahora: ahora() };
      const sello = revisarSello(nodo, ctx);
      if ('codigo' in sello) return contestar(undefined, [sello]);
      const fueraDeRango = revisarFecha(nodo, ctx) ?? revisarMatriz(nodo, ctx);
      if (fueraDeRango) return contestar(undefined, [fueraDeRango]);

      const sat = await obtenerCertificado();
      const t = timbrar(nodo, sat, RFC_PAC_SANDBOX, ctx.ahora);
      const receptor = nodo.hijos.find((h) => h.nombre.endsWith('Receptor'))?.atributos['Rfc'] ?? '';
      const tipo = nodo.atributos['TipoDeComprobante'] as string;
      const totalMxn = totalEnPesos(nodo.atributos['Total'] as string, nodo.atributos['TipoCambio']);
      const fila: FilaTimbre = {
        huella: leido.huella,
        huella_sello: leido.huellaSello,
        uuid: t.uuid,
        rfc_emisor: sello.certificado.rfc.toUpperCase(),
        rfc_receptor: receptor.toUpperCase(),
        total: nodo.atributos['Total'] as string,
        total_mxn: totalMxn,
        tipo_comprobante: tipo,
        xml_timbrado: t.xml,
        fecha_timbrado: ctx.ahora,
        fecha_timbrado_local: t.fechaTimbrado,
        no_certificado_sat: sat.noCertificado,
        sello_sat: t.selloSat,
        estado: 'Vigente',
        es_cancelable: sinAceptacionPorDocumento({ tipo, totalMxn, rfcReceptor: receptor.toUpperCase() })
          ? 'Cancelable sin aceptación'
          : 'Cancelable con aceptación',
        estatus_cancelacion: '',
        cancelacion_solicitada_en: null,
        motivo: null,
        folio_sustitucion: null,
        relacionados: uuidsRelacionados(nodo).join(',') || null,
        forzar_aceptacion: magia.conAceptacion ? 1 : 0,
        plazo_aceptacion_ms: magia.plazoMs ?? null,
      };
      const r = await almacenTimbres.insertar(fila);
      // A concurrent request with the same document won: it is that stamp, and this one is a repeat.
      if (!r.nueva) return contestar(r.existente, [previo], !rapido);
      if (magia.perdida) {
        logger.info(
          { operacion, uuid: fila.uuid },
          'PAC sandbox: timbrado y respuesta perdida (SANDBOX:PERDIDA)',
        );
        req.socket.destroy();
        return;
      }
      return contestar(fila, []);
    };

  const stamped: Manejador = async (s, _req, res) => {
    const xml = decodificar(s.parametros['xml']);
    const leido = xml === null ? rechazoBase64 : leerComprobante(xml);
    if ('codigo' in leido)
      return responder(res, 'timbrado', s.operacion, resultadoTimbre(undefined, [leido]));
    const fila = await (await obtenerAlmacen()).porHuellas(leido.huella, leido.huellaSello);
    const sinTimbre: Rechazo = {
      codigo: CODIGOS.sinTimbrePrevio,
      mensaje: MENSAJES[CODIGOS.sinTimbrePrevio] as string,
    };
    const campos = resultadoTimbre(fila, fila ? [] : [sinTimbre]);
    return responder(res, 'timbrado', s.operacion, campos);
  };

  const queryPending: Manejador = async (s, _req, res) => {
    const fila = await (await obtenerAlmacen()).porUuid(s.parametros['uuid'] ?? '');
    return responder(res, 'timbrado', s.operacion, [
      campo('status', fila ? 'F' : ''),
      campo('xml', fila?.xml_timbrado ?? ''),
      campo('uuid', fila?.uuid ?? ''),
      campo('uuid_status', fila ? 'F' : ''),
      campo('next_attempt', ''),
      campo('attempts', fila ? '1' : '0'),
      campo('error', fila ? '' : 'UUID no encontrado'),
      campo('date', fila?.fecha_timbrado_local ?? ''),
    ]);
  };

  /** The state now, writing down a term that ran out while nobody asked. */
  const estadoActual = async (a: AlmacenTimbres, fila: FilaTimbre): Promise<EstadoCancelacion> => {
    const actual = estadoVigente(comoCancelable(fila), reloj());
    if (actual.estado !== fila.estado || actual.estatusCancelacion !== fila.estatus_cancelacion) {
      await a.cambiarEstado(
        fila.uuid,
        { estado: fila.estado, estatusCancelacion: fila.estatus_cancelacion },
        actual,
      );
    }
    return actual;
  };

  const cancelSignature: Manejador = async (s, _req, res) => {
    const respuestaCancelacion = (
      rfcEmisor: string,
      folios: { uuid: string; estatusUuid: string; estatusCancelacion: EstatusCancelacion }[],
      codEstatus = '',
    ) => {
      const fecha = fechaLocal();
      const acuse = folios.length
        ? escribirXml(
            elemento('CancelaCFDResponse', { xmlns: 'http://cancelacfd.sat.gob.mx' }, [
              elemento('CancelaCFDResult', { Fecha: fecha, RfcEmisor: rfcEmisor }, [
                elemento(
                  'Folios',
                  {},
                  folios.flatMap((f) => [
                    elemento('UUID', {}, [f.uuid]),
                    elemento('EstatusUUID', {}, [f.estatusUuid]),
                  ]),
                ),
              ]),
            ]),
            false,
          )
        : '';
      logger.info({ operacion: s.operacion, folios, codEstatus }, 'PAC sandbox: cancelación');
      return responder(res, 'cancelacion', s.operacion, [
        campo(
          'Folios',
          folios.map((f) =>
            campo('Folio', [
              campo('UUID', f.uuid),
              campo('EstatusUUID', f.estatusUuid),
              campo('EstatusCancelacion', f.estatusCancelacion),
            ]),
          ),
        ),
        campo('Acuse', acuse),
        campo('Fecha', fecha),
        campo('RfcEmisor', rfcEmisor),
        ...(codEstatus ? [campo('CodEstatus', codEstatus)] : []),
      ]);
    };
    const error = (codigo: string, detalle: string) =>
      respuestaCancelacion('', [], `${codigo} - ${MENSAJES[codigo] ?? ''}: ${detalle}`);

    const xml = decodificar(s.parametros['xml']);
    if (xml === null) return error(CODIGOS.xmlMalFormado, 'xml debe ser la solicitud firmada en base64');
    const v = verificarCancelacion(xml);
    if (!v.ok)
      return error(v.deCertificado ? CODIGOS.certificadoCancelacion : CODIGOS.selloMalFormado, v.motivo);
    const invalido = v.folios.find((f) => !['01', '02', '03', '04'].includes(f.motivo));
    if (invalido)
      return error(CODIGOS.xmlMalFormado, `Motivo "${invalido.motivo}" no está en el catálogo (01–04)`);
    const sinFolio = v.folios.find((f) => f.motivo === '01' && !f.folioSustitucion);
    if (sinFolio) {
      return error(
        CODIGOS.xmlMalFormado,
        `el Motivo 01 requiere FolioSustitucion (UUID del CFDI que sustituye a ${sinFolio.uuid})`,
      );
    }

    const a = await obtenerAlmacen();
    const resultados = [];
    for (const f of v.folios) resultados.push(await cancelarFolio(a, v.rfcEmisor, v.certificado.rfc, f));
    return respuestaCancelacion(v.rfcEmisor, resultados);
  };

  const cancelarFolio = async (
    a: AlmacenTimbres,
    rfcEmisor: string,
    rfcCertificado: string,
    f: FolioCancelacion,
  ): Promise<{ uuid: string; estatusUuid: string; estatusCancelacion: EstatusCancelacion }> => {
    const con = (estatusUuid: string, estatusCancelacion: EstatusCancelacion = '') => ({
      uuid: f.uuid,
      estatusUuid,
      estatusCancelacion,
    });
    const fila = await a.porUuid(f.uuid);
    if (!fila) return con(ESTATUS_UUID.noEncontrado);
    // Only the issuer cancels, and only with its own certificate.
    const emisor = rfcEmisor.toUpperCase();
    if (fila.rfc_emisor !== emisor || rfcCertificado.toUpperCase() !== emisor) {
      return con(ESTATUS_UUID.rfcNoCorresponde);
    }
    for (let intento = 0; intento < 3; intento++) {
      const actual = intento === 0 ? fila : await a.porUuid(f.uuid);
      if (!actual) return con(ESTATUS_UUID.noEncontrado);
      const r = reloj();
      const d = decidirCancelacion(comoCancelable(actual), r, await a.tieneRelacionadosVigentes(f.uuid));
      if (d.tipo === 'no_cancelable') return con(ESTATUS_UUID.noCancelable);
      if (d.tipo === 'previa') {
        await estadoActual(a, actual);
        return con(ESTATUS_UUID.solicitadaAntes, d.estado.estatusCancelacion);
      }
      const escrito = await a.cambiarEstado(
        f.uuid,
        { estado: actual.estado, estatusCancelacion: actual.estatus_cancelacion },
        d.estado,
        {
          cancelacion_solicitada_en: r.ahora,
          motivo: f.motivo,
          folio_sustitucion: f.folioSustitucion ?? null,
        },
      );
      if (escrito) return con(ESTATUS_UUID.solicitada, d.estado.estatusCancelacion);
      // Someone changed it meanwhile (a concurrent request, the receiver): decide again on the new state.
    }
    throw new Error(`la cancelación de ${f.uuid} no pudo registrarse`);
  };

  const getSatStatus: Manejador = async (s, _req, res) => {
    const p = s.parametros;
    const a = await obtenerAlmacen();
    const fila = await a.porUuid(p['uuid'] ?? '');
    const coincide =
      fila !== undefined &&
      fila.rfc_emisor === (p['taxpayer_id'] ?? '').toUpperCase() &&
      fila.rfc_receptor === (p['rtaxpayer_id'] ?? '').toUpperCase() &&
      mismoImporte(fila.total, p['total'] ?? '');
    let campos: ElementoXml[];
    if (!fila || !coincide) {
      campos = [
        campo('CodigoEstatus', CODIGO_ESTATUS_SAT.noEncontrado),
        campo('Estado', 'No Encontrado'),
        campo('EsCancelable', ''),
        campo('EstatusCancelacion', ''),
      ];
    } else {
      const actual = await estadoActual(a, fila);
      const relacionados = await a.tieneRelacionadosVigentes(fila.uuid);
      campos = [
        campo('CodigoEstatus', CODIGO_ESTATUS_SAT.encontrado),
        campo('Estado', actual.estado),
        campo('EsCancelable', esCancelable(comoCancelable(fila), reloj(), relacionados)),
        campo('EstatusCancelacion', actual.estatusCancelacion),
      ];
    }
    return responder(res, 'cancelacion', s.operacion, [campo('sat', campos)]);
  };

  const MANEJADORES: Record<string, Manejador> = {
    stamp: stamp(false),
    quick_stamp: stamp(true),
    stamped,
    query_pending: queryPending,
    cancel_signature: cancelSignature,
    get_sat_status: getSatStatus,
  };

  /** Answers a call with bad credentials the way each operation reports errors. */
  const sinCredenciales = (servicio: Servicio, s: SolicitudLeida, res: Response) => {
    const r: Rechazo = { codigo: CODIGOS.credenciales, mensaje: MENSAJES[CODIGOS.credenciales] as string };
    const texto = `${r.codigo} - ${r.mensaje}`;
    if (servicio === 'timbrado' && s.operacion !== 'query_pending') {
      return responder(res, servicio, s.operacion, resultadoTimbre(undefined, [r]));
    }
    const campoError = s.operacion === 'cancel_signature' ? 'CodEstatus' : 'error';
    return responder(res, servicio, s.operacion, [campo(campoError, texto)]);
  };

  const fallaDeServicio: RequestHandler = (req, res, next) => {
    const modo = fallas.actual(ahora());
    if (modo === 'caido') {
      req.socket.destroy();
      return;
    }
    if (modo === 'error_500')
      return void falta(res, 'Server', 'Servicio no disponible (falla simulada: error_500)');
    next();
  };

  const soap =
    (servicio: Servicio): RequestHandler =>
    async (req, res) => {
      if (config.latenciaMs) await dormir(config.latenciaMs);
      let s: SolicitudLeida;
      try {
        s = leerSolicitud(typeof req.body === 'string' ? req.body : '');
      } catch (e) {
        return void falta(res, 'Client', `Solicitud SOAP inválida: ${(e as Error).message}`);
      }
      const manejador = (OPERACIONES[servicio] as readonly string[]).includes(s.operacion)
        ? MANEJADORES[s.operacion]
        : undefined;
      if (!manejador)
        return void falta(res, 'Client', `Operación desconocida en ${RUTAS[servicio]}: ${s.operacion}`);
      const c = config.credenciales;
      if (c && (s.parametros['username'] !== c.usuario || s.parametros['password'] !== c.contrasena)) {
        return void sinCredenciales(servicio, s, res);
      }
      try {
        await manejador(s, req, res);
      } catch (e) {
        logger.error({ err: e, operacion: s.operacion }, 'PAC sandbox: error interno');
        if (!res.headersSent) falta(res, 'Server', `Error interno del PAC sandbox: ${(e as Error).message}`);
      }
    };

  // --- the app --------------------------------------------------------------------------------------------------
  const app = express();
  app.disable('x-powered-by');

  app.get('/salud', (_req, res) => {
    res.json({ estado: 'ok', version: VERSION_SANDBOX, fallas: fallas.actual(ahora()) });
  });

  const texto = express.text({ type: () => true, limit: '50mb' });
  for (const servicio of Object.keys(RUTAS) as Servicio[]) {
    app.post([RUTAS[servicio], `${RUTAS[servicio]}.wsdl`], fallaDeServicio, texto, soap(servicio));
  }

  app.get('/sat/certificado', async (_req, res) => {
    const sat = await obtenerCertificado();
    res.type('application/pkix-cert').send(sat.der);
  });
  app.get('/sat/certificado.pem', async (_req, res) => {
    const sat = await obtenerCertificado();
    res.type('application/x-pem-file').send(sat.pem);
  });

  app.get('/sandbox/fallas', (_req, res) => {
    res.json({ modo: fallas.actual(ahora()), hasta: fallas.hasta?.toISOString() ?? null });
  });
  app.post('/sandbox/fallas', express.json(), (req, res) => {
    const r = esquemaFallas.safeParse(req.body);
    if (!r.success) {
      res.status(400).json({ error: 'cuerpo inválido', detalle: r.error.issues.map((i) => i.message) });
      return;
    }
    const { modo, hasta, duracion_ms: duracion } = r.data;
    fallas.modo = modo;
    fallas.hasta =
      modo === 'normal'
        ? null
        : hasta
          ? new Date(hasta)
          : duracion
            ? new Date(ahora().getTime() + duracion)
            : null;
    logger.info({ modo, hasta: fallas.hasta }, 'PAC sandbox: modo de falla');
    res.json({ modo: fallas.modo, hasta: fallas.hasta?.toISOString() ?? null });
  });

  /** The receiver's answer to a pending cancellation (the Buzón Tributario of the real SAT). */
  const respuestaReceptor =
    (respuesta: 'aceptar' | 'rechazar'): RequestHandler =>
    async (req, res) => {
      const a = await obtenerAlmacen();
      const uuid = String(req.params['uuid'] ?? '').toUpperCase();
      const fila = await a.porUuid(uuid);
      if (!fila) {
        res.status(404).json({ error: `no hay un CFDI timbrado con UUID ${uuid}` });
        return;
      }
      const actual = await estadoActual(a, fila);
      const nuevo = responderSolicitud({ ...comoCancelable(fila), ...porEstado(actual) }, reloj(), respuesta);
      const escrito = nuevo !== null && (await a.cambiarEstado(uuid, actual, nuevo));
      if (!nuevo || !escrito) {
        res.status(409).json({
          error: 'el CFDI no tiene una solicitud de cancelación en proceso',
          uuid,
          estado: actual.estado,
          estatus_cancelacion: actual.estatusCancelacion,
        });
        return;
      }
      logger.info(
        { uuid, respuesta, estatus: nuevo.estatusCancelacion },
        'PAC sandbox: respuesta del receptor',
      );
      res.json({ uuid, estado: nuevo.estado, estatus_cancelacion: nuevo.estatusCancelacion });
    };
  app.post('/sandbox/cancelaciones/:uuid/aceptar', respuestaReceptor('aceptar'));
  app.post('/sandbox/cancelaciones/:uuid/rechazar', respuestaReceptor('rechazar'));

  app.use((req, res) => {
    logger.info({ metodo: req.method, ruta: req.path }, 'ruta desconocida');
    res.status(404).json({ error: 'ruta desconocida' });
  });

  // Resources the sandbox opened itself go away with its HTTP server; held requests must not keep
  // server.close() waiting for minutes.
  const escucharOriginal = app.listen.bind(app) as (...args: unknown[]) => Server;
  const escuchar = (...args: unknown[]): Server => {
    const servidor = escucharOriginal(...args);
    const cerrarOriginal = servidor.close.bind(servidor);
    servidor.close = ((cb?: (err?: Error) => void) => {
      soltarRetenidas();
      return cerrarOriginal(cb);
    }) as typeof servidor.close;
    servidor.once('close', () => void cerrar());
    return servidor;
  };
  return Object.assign(app, { listen: escuchar as unknown as Express['listen'], preparar, cerrar });
}

const porEstado = (e: EstadoCancelacion) => ({ estado: e.estado, estatusCancelacion: e.estatusCancelacion });

function mismoImporte(a: string, b: string): boolean {
  try {
    return new Decimal(a).eq(new Decimal(b));
  } catch {
    return false;
  }
}
