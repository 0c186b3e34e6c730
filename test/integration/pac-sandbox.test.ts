import { randomInt } from 'node:crypto';
import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { construirComprobante } from '../../cfdi/comprobante/construir';
import { sellarComprobante } from '../../cfdi/comprobante/sellar';
import type { ComprobanteEntrada } from '../../cfdi/comprobante/tipos';
import { abrirLlave } from '../../cfdi/csd';
import { fechaCfdi } from '../../cfdi/fecha';
import { extraerTimbre, verificarTimbre } from '../../cfdi/timbre';
import { parsear } from '../../cfdi/xml/parsear';
import { CatalogosEnMemoria } from '../../db/catalogos/memoria';
import { crearKnex, type Knex } from '../../db/conexion';
import * as m009 from '../../db/migrations/009_timbres_sandbox';
import { crearLogger } from '../../log/logger';
import { PacFinkok } from '../../pac/finkok/cliente';
import {
  ErrorPacConfiguracion,
  ErrorPacTransitorio,
  type SolicitudCancelacion,
  type TimbreObtenido,
} from '../../pac/puerto';
import { TABLA_TIMBRES } from '../../pac/sandbox/almacen';
import { leerConfigSandbox, type ConfigSandbox } from '../../pac/sandbox/configuracion';
import { RFC_PAC_SANDBOX } from '../../pac/sandbox/identidad';
import { crearSandboxPac } from '../../pac/sandbox/servidor';
import { archivoSat, CONTRASENA_PRUEBA, CSD_VALIDO, generarCsd } from '../support/certificados';
import { comprobante, concepto } from '../support/comprobantes';
import { directorioTemporal, validarConEsquema } from '../support/xslt';

/**
 * The sandbox PAC over real HTTP (port 0) against the test database, driven only through the Finkok
 * adapter: what test mode does in production.
 */

const logger = crearLogger('prueba', 'silent');
const dormir = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PLAZO_MS = 4000;

describe('PAC sandbox a través del adaptador Finkok', () => {
  let db: Knex;
  let catalogos: CatalogosEnMemoria;
  const datos = directorioTemporal('pac-sandbox-');
  const servidores: Server[] = [];
  let url: string;
  let pac: PacFinkok;
  let huso: string;

  const llave = (() => {
    const a = abrirLlave(archivoSat(CSD_VALIDO.key), CONTRASENA_PRUEBA);
    if (!a.ok) throw new Error('no abre la llave de prueba');
    return a.llave;
  })();
  const cer = archivoSat(CSD_VALIDO.cer);

  async function levantar(config: Partial<ConfigSandbox> = {}): Promise<string> {
    const app = crearSandboxPac({
      logger,
      db,
      catalogos,
      config: {
        ...leerConfigSandbox(),
        rutaDatos: datos.ruta,
        ventanaSinAceptacionMs: 0,
        plazoAceptacionMs: PLAZO_MS,
        ...config,
      },
    });
    await app.preparar();
    const s = await new Promise<Server>((r) => {
      const srv = app.listen(0, '127.0.0.1', () => r(srv));
    });
    servidores.push(s);
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  }

  const adaptador = (base: string, op: Partial<ConstructorParameters<typeof PacFinkok>[0]> = {}) =>
    new PacFinkok({ url: base, usuario: 'sandbox', contrasena: 'sandbox', timeoutMs: 5000, ...op });

  /** A valid invoice of the SAT's test issuer, sealed with its CSD, Fecha = now where it is issued. */
  function sellado(c: Partial<ComprobanteEntrada> = {}, fecha = new Date()) {
    const entrada = comprobante({
      fecha: fechaCfdi(fecha, huso),
      folio: String(randomInt(1e9)),
      no_certificado: CSD_VALIDO.noCertificado,
      certificado: cer.toString('base64'),
      ...c,
    });
    return sellarComprobante(construirComprobante(entrada).nodo, llave).xml;
  }

  async function timbrado(c: Partial<ComprobanteEntrada> = {}): Promise<TimbreObtenido> {
    const r = await pac.timbrar(sellado(c));
    if (r.tipo !== 'timbrado') throw new Error(`rechazado: ${r.codigo} ${r.mensaje}`);
    return r;
  }

  const cancelacion = (t: TimbreObtenido, s: Partial<SolicitudCancelacion> = {}): SolicitudCancelacion => {
    const a = parsear(t.xml).atributos;
    return {
      rfcEmisor: CSD_VALIDO.rfc,
      uuid: t.uuid,
      motivo: '02',
      total: a['Total'] as string,
      rfcReceptor: 'MASO451221PM4',
      firma: { cer, llave },
      ...s,
    };
  };

  const post = (ruta: string, cuerpo?: unknown) =>
    fetch(`${url}${ruta}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: cuerpo === undefined ? undefined : JSON.stringify(cuerpo),
    });

  beforeAll(async () => {
    db = crearKnex(process.env.DATABASE_URL!);
    catalogos = await CatalogosEnMemoria.cargar(db);
    huso = catalogos.codigoPostal('42501')!.huso_horario;
    url = await levantar();
    pac = adaptador(url);
  });

  afterAll(async () => {
    await Promise.all(servidores.map((s) => new Promise((r) => s.close(r))));
    await db.destroy();
    datos.borrar();
  });

  describe('timbrado', () => {
    it('timbra un CFDI válido: pasa el esquema del SAT y su SelloSAT verifica con /sat/certificado', async () => {
      const t = await timbrado();
      expect(t).toMatchObject({
        tipo: 'timbrado',
        previo: false,
        uuid: expect.stringMatching(/^[0-9A-F-]{36}$/),
      });
      expect(t.uuid).toBe(t.uuid.toUpperCase());
      expect(t.uuid[14]).toBe('4');

      const der = Buffer.from(await (await fetch(`${url}/sat/certificado`)).arrayBuffer());
      const resp = await fetch(`${url}/sat/certificado`);
      expect(resp.headers.get('content-type')).toBe('application/pkix-cert');
      const certificadoSat = new X509Certificate(der);
      const nodo = parsear(t.xml);
      expect(verificarTimbre(nodo, certificadoSat)).toBe(true);
      const pem = await (await fetch(`${url}/sat/certificado.pem`)).text();
      expect(new X509Certificate(pem).raw.equals(der)).toBe(true);

      const tfd = extraerTimbre(nodo)!.atributos;
      expect(tfd).toMatchObject({
        Version: '1.1',
        UUID: t.uuid,
        RfcProvCertif: RFC_PAC_SANDBOX,
        FechaTimbrado: t.fechaTimbrado,
        NoCertificadoSAT: t.noCertificadoSat,
        SelloSAT: t.selloSat,
        SelloCFD: nodo.atributos['Sello'],
      });

      const archivo = join(datos.ruta, 'timbrado.xml');
      writeFileSync(archivo, t.xml, 'utf8');
      expect(validarConEsquema([archivo]).get(archivo)).toEqual([]);
    });

    it('el mismo XML otra vez → 307 con el timbre original; stamped y query_pending lo devuelven', async () => {
      const xml = sellado();
      const primero = await pac.timbrar(xml);
      const segundo = await pac.timbrar(xml);
      expect(primero).toMatchObject({ tipo: 'timbrado', previo: false });
      expect(segundo).toEqual({ ...primero, previo: true });
      expect(await pac.consultarTimbre(xml)).toEqual({ ...primero, previo: true });
      if (primero.tipo !== 'timbrado') throw new Error('no timbró');
      expect(await pac.consultarTimbre({ uuid: primero.uuid })).toMatchObject({
        uuid: primero.uuid,
        xml: primero.xml,
      });
      expect(await pac.consultarTimbre(sellado())).toEqual({ tipo: 'no_encontrado' });
      expect(await pac.consultarTimbre({ uuid: '00000000-0000-4000-8000-000000000000' })).toEqual({
        tipo: 'no_encontrado',
      });
    });

    it('SANDBOX:PERDIDA: timbra y no responde; stamped recupera el UUID y un nuevo stamp da 307', async () => {
      const xml = sellado({ serie: 'SANDBOX:PERDIDA' });
      await expect(pac.timbrar(xml)).rejects.toBeInstanceOf(ErrorPacTransitorio);
      const recuperado = await pac.consultarTimbre(xml);
      expect(recuperado).toMatchObject({ tipo: 'timbrado', previo: true });
      if (recuperado.tipo !== 'timbrado') throw new Error('no se recuperó');
      expect(await pac.timbrar(xml)).toMatchObject({ tipo: 'timbrado', previo: true, uuid: recuperado.uuid });
    });

    it('sello roto → CFDI40102; certificado de otro RFC → 303; Fecha de hace 4 días → 401', async () => {
      const xml = sellado();
      const alterado = xml.replace(/ Descripcion="[^"]*"/, ' Descripcion="Otro servicio"');
      expect(await pac.timbrar(alterado)).toMatchObject({ tipo: 'rechazado', codigo: 'CFDI40102' });

      const otro = generarCsd({ rfc: 'URE180429TM6' });
      const ajeno = sellarComprobante(
        construirComprobante(
          comprobante({
            fecha: fechaCfdi(new Date(), huso),
            no_certificado: otro.noCertificado,
            certificado: otro.cer.toString('base64'),
          }),
        ).nodo,
        otro.llavePrivada,
      ).xml;
      expect(await pac.timbrar(ajeno)).toMatchObject({ tipo: 'rechazado', codigo: '303' });

      const viejo = sellado({}, new Date(Date.now() - 4 * 24 * 3_600_000));
      expect(await pac.timbrar(viejo)).toMatchObject({
        tipo: 'rechazado',
        codigo: '401',
        mensaje: 'Fecha y hora de generación fuera de rango',
      });
    });

    it('una regla de la matriz → su código CFDI40xxx; SANDBOX:RECHAZO → el código pedido', async () => {
      const ppd = sellado({ metodo_pago: 'PPD', forma_pago: '03' });
      expect(await pac.timbrar(ppd)).toMatchObject({ tipo: 'rechazado', codigo: 'CFDI40105' });
      const uso = sellado({
        receptor: { ...comprobante().receptor, uso_cfdi: 'D01', rfc: 'URE180429TM6', regimen_fiscal: '601' },
      });
      expect(await pac.timbrar(uso)).toMatchObject({
        tipo: 'rechazado',
        codigo: expect.stringMatching(/^CFDI40\d{3}$/),
      });
      const magia = sellado({ condiciones_pago: 'Contado SANDBOX:RECHAZO=CFDI40145' });
      expect(await pac.timbrar(magia)).toMatchObject({ tipo: 'rechazado', codigo: 'CFDI40145' });
    });
  });

  describe('fallas', () => {
    it('SANDBOX:ERROR_500 y SANDBOX:TIMEOUT lanzan el error reintentable; SANDBOX:LATENCIA solo tarda', async () => {
      const e500 = await pac.timbrar(sellado({ serie: 'SANDBOX:ERROR_500' })).catch((e: unknown) => e);
      expect(e500).toBeInstanceOf(ErrorPacTransitorio);
      expect((e500 as ErrorPacTransitorio).reintentable).toBe(true);
      expect((e500 as Error).message).toMatch(/HTTP 500/);

      const impaciente = adaptador(url, { timeoutMs: 400 });
      const t0 = Date.now();
      await expect(impaciente.timbrar(sellado({ serie: 'SANDBOX:TIMEOUT' }))).rejects.toThrow(
        /no respondió en 400 ms/,
      );
      expect(Date.now() - t0).toBeLessThan(3000);

      const t1 = Date.now();
      expect(await pac.timbrar(sellado({ serie: 'SANDBOX:LATENCIA=300' }))).toMatchObject({
        tipo: 'timbrado',
      });
      expect(Date.now() - t1).toBeGreaterThanOrEqual(300);
    });

    it('caída y error_500 por el control de fallas, y la recuperación al vencer `duracion_ms`', async () => {
      const xml = sellado();
      expect(await (await post('/sandbox/fallas', { modo: 'caido' })).json()).toEqual({
        modo: 'caido',
        hasta: null,
      });
      await expect(pac.timbrar(xml)).rejects.toThrow(/falla de transporte/);
      // /salud keeps answering during the simulated outage, as 503: the PAC cannot stamp.
      const salud = await fetch(`${url}/salud`);
      expect(salud.status).toBe(503);
      expect(await salud.json()).toMatchObject({ estado: 'degradado', fallas: 'caido' });

      await post('/sandbox/fallas', { modo: 'error_500', duracion_ms: 500 });
      await expect(pac.timbrar(xml)).rejects.toBeInstanceOf(ErrorPacTransitorio);
      await dormir(600);
      expect(await pac.timbrar(xml)).toMatchObject({ tipo: 'timbrado', previo: false });
      expect(await (await fetch(`${url}/sandbox/fallas`)).json()).toEqual({ modo: 'normal', hasta: null });
      expect((await post('/sandbox/fallas', { modo: 'roto' })).status).toBe(400);
    });

    it('el control global de fallas es del operador: reenviado sin token o con otro → 401 y no se aplica', async () => {
      const TOKEN = 'operador-'.padEnd(40, '9');
      const base = await levantar({ tokenOperador: TOKEN });
      // A forwarded request is not local even on loopback (a reverse proxy on the same host).
      const ajeno = { 'content-type': 'application/json', 'X-Forwarded-For': '203.0.113.9' };
      const cambiar = (encabezados: Record<string, string>, cuerpo: unknown) =>
        fetch(`${base}/sandbox/fallas`, {
          method: 'POST',
          headers: { ...ajeno, ...encabezados },
          body: JSON.stringify(cuerpo),
        });
      const intentos: Record<string, string>[] = [
        {},
        { Authorization: `Bearer ${'x'.repeat(40)}` },
        { Authorization: `Bearer ${TOKEN}x` },
        { Authorization: `Basic ${TOKEN}` },
      ];
      for (const enc of intentos) {
        const r = await cambiar(enc, { modo: 'caido' });
        expect(r.status).toBe(401);
        expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="operador"/);
        expect(await r.json()).toEqual({
          error: 'solo el operador',
          detalle: [expect.stringMatching(/operador/)],
        });
      }
      // Every method: reading the mode is the operator's too.
      expect((await fetch(`${base}/sandbox/fallas`, { headers: ajeno })).status).toBe(401);
      // Not applied: the mode is still normal and a stamp goes through.
      expect(await (await fetch(`${base}/sandbox/fallas`)).json()).toEqual({ modo: 'normal', hasta: null });
      expect(await adaptador(base).timbrar(sellado())).toMatchObject({ tipo: 'timbrado' });

      const conToken = { Authorization: `Bearer ${TOKEN}` };
      const r = await cambiar(conToken, { modo: 'caido' });
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ modo: 'caido', hasta: null });
      await expect(adaptador(base).timbrar(sellado())).rejects.toThrow(/falla de transporte/);
      const leido = await fetch(`${base}/sandbox/fallas`, { headers: { ...ajeno, ...conToken } });
      expect(await leido.json()).toEqual({ modo: 'caido', hasta: null });
      expect((await cambiar(conToken, { modo: 'normal' })).status).toBe(200);
      expect(await adaptador(base).timbrar(sellado())).toMatchObject({ tipo: 'timbrado' });
    });

    it('sin TOKEN_OPERADOR el control global solo se usa desde el equipo: ningún token lo abre', async () => {
      const base = await levantar({ tokenOperador: undefined });
      const r = await fetch(`${base}/sandbox/fallas`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'X-Real-IP': '203.0.113.10',
          Authorization: `Bearer ${'operador-'.padEnd(40, '9')}`,
        },
        body: JSON.stringify({ modo: 'error_500' }),
      });
      expect(r.status).toBe(401);
      expect(await (await fetch(`${base}/sandbox/fallas`)).json()).toEqual({ modo: 'normal', hasta: null });
    });

    it('credenciales: con PAC_SANDBOX_USUARIO definido, otras credenciales → ErrorPacConfiguracion', async () => {
      const base = await levantar({ credenciales: { usuario: 'integrador', contrasena: 'secreta' } });
      await expect(adaptador(base).timbrar(sellado())).rejects.toBeInstanceOf(ErrorPacConfiguracion);
      await expect(
        adaptador(base).estatusSat({ rfcEmisor: 'X', rfcReceptor: 'Y', total: '1', uuid: 'Z' }),
      ).rejects.toBeInstanceOf(ErrorPacConfiguracion);
      expect(
        await adaptador(base, { usuario: 'integrador', contrasena: 'secreta' }).timbrar(sellado()),
      ).toMatchObject({
        tipo: 'timbrado',
      });
    });

    it('un reinicio conserva el certificado SAT (archivo) y los timbres (MySQL)', async () => {
      const xml = sellado();
      const t = await pac.timbrar(xml);
      const otraVez = await levantar();
      const der1 = Buffer.from(await (await fetch(`${url}/sat/certificado`)).arrayBuffer());
      const der2 = Buffer.from(await (await fetch(`${otraVez}/sat/certificado`)).arrayBuffer());
      expect(der2.equals(der1)).toBe(true);
      expect(await adaptador(otraVez).consultarTimbre(xml)).toEqual({ ...t, previo: true });
    });
  });

  it('cerrar su servidor HTTP suelta lo retenido sin esperar y deja abierta la base de datos de quien la abrió', async () => {
    const app = crearSandboxPac({ logger, db, config: { ...leerConfigSandbox(), rutaDatos: datos.ruta } });
    const s = await new Promise<Server>((r) => {
      const srv = app.listen(0, '127.0.0.1', () => r(srv));
    });
    const base = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    expect(await adaptador(base).timbrar(sellado())).toMatchObject({ tipo: 'timbrado' });
    const retenida = adaptador(base, { timeoutMs: 60_000 })
      .timbrar(sellado({ serie: 'SANDBOX:TIMEOUT' }))
      .catch((e: unknown) => e);
    await dormir(200);
    const t0 = Date.now();
    await new Promise((r) => s.close(r));
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(await retenida).toBeInstanceOf(ErrorPacTransitorio);
    expect(await db.raw('SELECT 1')).toBeDefined();
  });

  describe('cancelación', () => {
    const estatus = (t: TimbreObtenido) =>
      pac.estatusSat({
        rfcEmisor: CSD_VALIDO.rfc,
        rfcReceptor: 'MASO451221PM4',
        total: parsear(t.xml).atributos['Total'] as string,
        uuid: t.uuid,
      });
    // 1 × 500 + 16 % = 580.00; 1 × 1500 + 16 % = 1740.00.
    const hastaMil = { conceptos: [concepto({ valor_unitario: '500' })] };

    it('total ≤ 1,000 MXN → Cancelado sin aceptación de inmediato; repetirla → 202', async () => {
      const t = await timbrado(hastaMil);
      expect(await estatus(t)).toMatchObject({
        estado: 'Vigente',
        esCancelable: 'Cancelable sin aceptación',
        estatusCancelacion: '',
      });
      expect(await pac.cancelar(cancelacion(t))).toMatchObject({
        tipo: 'solicitada',
        uuid: t.uuid,
        estatusUuid: '201',
        estatusCancelacion: 'Cancelado sin aceptación',
        acuse: expect.stringContaining(t.uuid),
      });
      expect(await estatus(t)).toMatchObject({
        estado: 'Cancelado',
        estatusCancelacion: 'Cancelado sin aceptación',
      });
      expect(await pac.cancelar(cancelacion(t))).toMatchObject({
        estatusUuid: '202',
        estatusCancelacion: 'Cancelado sin aceptación',
      });
    });

    it('con aceptación → En proceso; el receptor acepta → Cancelado con aceptación', async () => {
      const t = await timbrado();
      expect(await estatus(t)).toMatchObject({ esCancelable: 'Cancelable con aceptación' });
      expect(await pac.cancelar(cancelacion(t))).toMatchObject({
        estatusUuid: '201',
        estatusCancelacion: 'En proceso',
      });
      expect(await estatus(t)).toMatchObject({ estado: 'Vigente', estatusCancelacion: 'En proceso' });
      const r = await post(`/sandbox/cancelaciones/${t.uuid}/aceptar`);
      expect(await r.json()).toEqual({
        uuid: t.uuid,
        estado: 'Cancelado',
        estatus_cancelacion: 'Cancelado con aceptación',
      });
      expect(await estatus(t)).toMatchObject({
        estado: 'Cancelado',
        estatusCancelacion: 'Cancelado con aceptación',
      });
      expect((await post(`/sandbox/cancelaciones/${t.uuid}/aceptar`)).status).toBe(409);
    });

    it('el receptor rechaza → Solicitud rechazada (sigue Vigente) y se puede volver a pedir', async () => {
      const t = await timbrado();
      await pac.cancelar(cancelacion(t));
      expect((await post(`/sandbox/cancelaciones/${t.uuid}/rechazar`)).status).toBe(200);
      expect(await estatus(t)).toMatchObject({
        estado: 'Vigente',
        estatusCancelacion: 'Solicitud rechazada',
      });
      expect(await pac.cancelar(cancelacion(t))).toMatchObject({
        estatusUuid: '201',
        estatusCancelacion: 'En proceso',
      });
    });

    it('sin respuesta del receptor en el plazo → Plazo vencido (cancelado)', async () => {
      const t = await timbrado({ condiciones_pago: 'SANDBOX:PLAZO=300' });
      await pac.cancelar(cancelacion(t));
      await dormir(400);
      expect(await estatus(t)).toMatchObject({ estado: 'Cancelado', estatusCancelacion: 'Plazo vencido' });
      expect((await post(`/sandbox/cancelaciones/${t.uuid}/aceptar`)).status).toBe(409);
    });

    it('SANDBOX:CON_ACEPTACION pide aceptación aun por ≤ 1,000 MXN', async () => {
      const t = await timbrado({ ...hastaMil, condiciones_pago: 'SANDBOX:CON_ACEPTACION' });
      expect(await pac.cancelar(cancelacion(t))).toMatchObject({ estatusCancelacion: 'En proceso' });
    });

    it('motivo 01 sin folio de sustitución → rechazada; con él, procede', async () => {
      const t = await timbrado(hastaMil);
      expect(await pac.cancelar(cancelacion(t, { motivo: '01' }))).toMatchObject({
        tipo: 'rechazada',
        codigo: '301',
        mensaje: expect.stringMatching(/FolioSustitucion/),
      });
      const sustituto = await timbrado({
        ...hastaMil,
        relaciones: [{ tipo_relacion: '04', uuids: [t.uuid] }],
      });
      expect(
        await pac.cancelar(cancelacion(t, { motivo: '01', folioSustitucion: sustituto.uuid })),
      ).toMatchObject({
        tipo: 'solicitada',
        estatusUuid: '201',
      });
    });

    it('UUID desconocido → 205; firma con el CSD de otro RFC → 203; con una nota de crédito vigente → no_cancelable', async () => {
      const t = await timbrado(hastaMil);
      expect(
        await pac.cancelar(cancelacion(t, { uuid: '00000000-0000-4000-8000-000000000000' })),
      ).toMatchObject({
        tipo: 'rechazada',
        codigo: '205',
      });
      const otro = generarCsd({ rfc: 'URE180429TM6' });
      expect(
        await pac.cancelar(cancelacion(t, { firma: { cer: otro.cer, llave: otro.llavePrivada } })),
      ).toMatchObject({
        tipo: 'rechazada',
        codigo: '203',
      });
      await timbrado({ tipo: 'E', ...hastaMil, relaciones: [{ tipo_relacion: '01', uuids: [t.uuid] }] });
      expect(await pac.cancelar(cancelacion(t))).toMatchObject({
        tipo: 'rechazada',
        codigo: 'no_cancelable',
      });
      expect(await estatus(t)).toMatchObject({ estado: 'Vigente', esCancelable: 'No cancelable' });
    });

    it('estatus de un CFDI que el SAT no conoce (o con otro total) → No Encontrado', async () => {
      const t = await timbrado(hastaMil);
      expect(
        await pac.estatusSat({
          rfcEmisor: CSD_VALIDO.rfc,
          rfcReceptor: 'MASO451221PM4',
          total: '1.00',
          uuid: t.uuid,
        }),
      ).toMatchObject({ estado: 'No Encontrado', esCancelable: '', estatusCancelacion: '' });
    });
  });

  describe('migración 009_timbres_sandbox', () => {
    // The DDL the sandbox ran at start before the table moved to db/migrations.
    const ddlAnterior = (tabla: string) => `CREATE TABLE ${tabla} (
      huella CHAR(64) NOT NULL, huella_sello CHAR(64) NOT NULL, uuid CHAR(36) NOT NULL,
      rfc_emisor VARCHAR(13) NOT NULL, rfc_receptor VARCHAR(13) NOT NULL, total VARCHAR(40) NOT NULL,
      total_mxn VARCHAR(60) NOT NULL, tipo_comprobante CHAR(1) NOT NULL, xml_timbrado LONGTEXT NOT NULL,
      fecha_timbrado DATETIME(3) NOT NULL, fecha_timbrado_local CHAR(19) NOT NULL,
      no_certificado_sat CHAR(20) NOT NULL, sello_sat TEXT NOT NULL,
      estado VARCHAR(20) NOT NULL DEFAULT 'Vigente', es_cancelable VARCHAR(40) NOT NULL,
      estatus_cancelacion VARCHAR(40) NOT NULL DEFAULT '', cancelacion_solicitada_en DATETIME(3) NULL,
      motivo CHAR(2) NULL, folio_sustitucion CHAR(36) NULL, relacionados TEXT NULL,
      forzar_aceptacion TINYINT(1) NOT NULL DEFAULT 0, plazo_aceptacion_ms INT NULL,
      PRIMARY KEY (huella),
      UNIQUE KEY uq_pac_sandbox_timbres_sello (huella_sello),
      UNIQUE KEY uq_pac_sandbox_timbres_uuid (uuid)
    ) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`;
    const definicion = async (tabla: string): Promise<string> => {
      const [filas] = (await db.raw(`SHOW CREATE TABLE ${tabla}`)) as [Record<string, string>[]];
      return filas[0]!['Create Table']!.replace(tabla, 'T');
    };

    it('crea la misma tabla que el DDL anterior', async () => {
      const previa = 'pac_sandbox_timbres_ddl_previo';
      await db.raw(ddlAnterior(previa));
      try {
        expect(await definicion(TABLA_TIMBRES)).toBe(await definicion(previa));
      } finally {
        await db.schema.dropTable(previa);
      }
    });

    it('deja intacta una tabla que ya existe, con sus timbres', async () => {
      const antes = await db(TABLA_TIMBRES).count({ n: '*' });
      await m009.up(db);
      expect(await db(TABLA_TIMBRES).count({ n: '*' })).toEqual(antes);
      expect(Number(antes[0]!.n)).toBeGreaterThan(0);
    });
  });
});
