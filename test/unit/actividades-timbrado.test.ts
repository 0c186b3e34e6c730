import { ErrorPacTransitorio } from '../../pac/puerto';
import { CSD_VALIDO } from '../support/certificados';
import { CLIENTE } from '../support/cuentas';
import { crearContextoActividad, tablaFacturas } from '../support/memoria';
import { tablaCertificados } from '../support/memoria/certificados';
import { crearEntornoActividades } from '../support/memoria/servicios';

let x: Awaited<ReturnType<typeof crearEntornoActividades>>;

beforeEach(async () => {
  x = await crearEntornoActividades();
});

/** An invoice whose stamping workflow has just started: a draft with timbrado pendiente. */
async function pendiente(cliente: string = CLIENTE.rfc) {
  x.s.timbrador.desenlace('pendiente');
  return x.entrada((await x.facturar({ cliente })).id);
}

/** The stored row, XMLs included. */
const guardada = (id: string) => tablaFacturas(x.m.almacen).buscar(id)!;

const eventos = async () => (await x.s.eventos.listar(x.a, {}, { limite: 100 })).datos;

/** An invoice sealed and ready for the PAC. */
async function sellada() {
  const e = await pendiente();
  expect(await x.act.prepararTimbrado(e)).toMatchObject({ estado: 'listo' });
  return e;
}

const enviar = (e: { facturaId: string; pdfEnElFlujo?: boolean }, o: { local?: boolean } = {}) =>
  crearContextoActividad(o).ejecutar(() =>
    x.act.enviarAlPac({ ...x.entrada(e.facturaId), pdfEnElFlujo: e.pdfEnElFlujo }),
  );

describe('prepararTimbrado', () => {
  it('sella con el CSD activo, con la Fecha del reloj, y lo guarda con el documento', async () => {
    const e = await pendiente();
    const antes = guardada(e.facturaId);
    // What ops search the workflow by: the two RFCs and serie-folio (no names, amounts or addresses).
    const serieFolio = [antes.documento.entrada.serie, antes.documento.entrada.folio]
      .filter(Boolean)
      .join('-');
    expect(await x.act.prepararTimbrado(e)).toEqual({
      estado: 'listo',
      referencias: [antes.documento.entrada.emisor.rfc, antes.documento.cliente.rfc, serieFolio],
    });
    const f = guardada(e.facturaId);
    expect(f.xml_sellado).toContain(`NoCertificado="${CSD_VALIDO.noCertificado}"`);
    expect(f.xml_sellado).toMatch(/Sello="[A-Za-z0-9+/=]{100,}"/);
    expect(f.no_certificado).toBe(CSD_VALIDO.noCertificado);
    // 12:00 UTC is 06:00 in Pachuca (42501, Tiempo del Centro).
    expect(f.documento.entrada.fecha).toBe('2025-06-01T06:00:00');
    expect(f.xml_sellado).toContain('Fecha="2025-06-01T06:00:00"');
  });

  it('sella una sola vez: un reintento reutiliza los mismos bytes aunque el reloj avance', async () => {
    const e = await sellada();
    const primero = guardada(e.facturaId).xml_sellado;
    x.reloj.ahora = new Date(x.reloj.ahora.getTime() + 60_000);
    const certificado = jest.spyOn(x.m.certificados, 'activoConSecretos');
    expect(await x.act.prepararTimbrado(e)).toMatchObject({ estado: 'listo' });
    expect(guardada(e.facturaId).xml_sellado).toBe(primero);
    expect(certificado).not.toHaveBeenCalled();
  });

  it('una factura ya timbrada (una corrida nueva) no se prepara: se entrega su PDF y sigue', async () => {
    const e = await sellada();
    await enviar(e);
    x.temporal.terminar(`pdf:${e.facturaId}`);
    expect(await x.act.prepararTimbrado(e)).toMatchObject({ estado: 'timbrada' });
    expect(x.temporal.inicios.map((i) => [i.workflowId, i.nuevo])).toEqual([
      [`pdf:${e.facturaId}`, true],
      [`pdf:${e.facturaId}`, true],
    ]);
  });

  it('una factura ya timbrada no se vuelve a preparar', async () => {
    const factura = await x.facturar();
    const antes = x.m.almacen.volcado();
    expect(await x.act.prepararTimbrado(x.entrada(factura.id))).toMatchObject({ estado: 'timbrada' });
    expect(x.m.almacen.volcado()).toBe(antes);
  });

  it('sin CSD activo → rechazado sin_certificado_activo, sin sellar', async () => {
    const e = await pendiente();
    await x.s.certificados.cambiarActivo(x.a, x.ids.cert!, false);
    const r = await x.act.prepararTimbrado(e);
    expect(r).toMatchObject({ estado: 'rechazado', error: { codigo: 'sin_certificado_activo' } });
    expect(guardada(e.facturaId).xml_sellado).toBeNull();
  });

  it('una regla del SAT que se comprueba aquí → rechazado con el código del SAT, sin llegar al PAC', async () => {
    // Stored with a warning (the specification keeps it); the stamping refuses it.
    const cli = await x.s.clientes.crear(x.a, {
      ...CLIENTE,
      rfc: 'XIQB891116QE4',
      uso_cfdi: 'CN01',
      organizacion: x.ids.org,
    });
    expect(cli.advertencias.map((w) => w.codigo)).toContain('uso_cfdi_incompatible');
    const e = await pendiente(cli.id);
    const r = await x.act.prepararTimbrado(e);
    expect(r).toMatchObject({ estado: 'rechazado', error: { codigo: 'CFDI40161' } });
    expect(guardada(e.facturaId).xml_sellado).toBeNull();
    expect(x.pac.llamadas).toEqual([]);
  });

  it('una factura inexistente es un error que no se reintenta (el flujo falla a la vista), no un rechazo', async () => {
    const err = await x.act.prepararTimbrado(x.entrada('fac_inexistente')).catch((e: unknown) => e);
    expect(err).toMatchObject({ type: 'RegistroInexistente', nonRetryable: true });
    expect((err as Error).message).toContain('inexistente');
  });

  it('un CFDI que no se puede construir → rechazado comprobante_invalido, no un error que se reintenta sin fin', async () => {
    // A document stored before the input discipline existed: XML 1.0 cannot hold U+0001.
    const e = await pendiente();
    guardada(e.facturaId).documento.entrada.conceptos[0]!.descripcion = 'Servicio\u0001';
    const r = await x.act.prepararTimbrado(e);
    expect(r).toMatchObject({
      estado: 'rechazado',
      error: { codigo: 'comprobante_invalido', paso: 'sellado' },
    });
    expect(r.estado === 'rechazado' && r.error.mensaje).toContain('U+0001');
    expect(guardada(e.facturaId).xml_sellado).toBeNull();
    expect(x.pac.llamadas).toEqual([]);
  });

  it('un CSD guardado que no abre (dañado o de otra clave maestra) → rechazado, no un reintento sin fin', async () => {
    const e = await pendiente();
    const certificados = tablaCertificados(x.m.almacen);
    const cert = certificados.buscar(x.ids.cert!)!;
    const danada = Buffer.from(cert.llave_cifrada);
    danada[0] = danada[0]! ^ 0xff;
    certificados.cambiar(cert.id, { llave_cifrada: danada });
    const r = await x.act.prepararTimbrado(e);
    expect(r).toMatchObject({
      estado: 'rechazado',
      error: { codigo: 'comprobante_invalido', paso: 'sellado' },
    });
    expect(x.pac.llamadas).toEqual([]);
  });
});

describe('enviarAlPac', () => {
  it('timbra y escribe el timbre y su evento factura.timbrada juntos', async () => {
    const e = await sellada();
    const r = await enviar(e);
    const f = guardada(e.facturaId);
    // Its UUID joins the references once stamped.
    expect(r).toMatchObject({ estado: 'timbrada', referencias: expect.arrayContaining([f.uuid]) });
    expect(f).toMatchObject({ estado: 'timbrada', timbrado_estado: 'timbrada', timbrado_intentos: 1 });
    expect(f.xml_timbrado).toContain(f.uuid!);
    expect(x.pac.metodos()).toEqual(['timbrar']);
    const [evento, ...otros] = await eventos();
    expect(otros).toEqual([]);
    expect(evento).toMatchObject({ tipo: 'factura.timbrada', datos: { id: e.facturaId, uuid: f.uuid } });
  });

  it('si el evento no se escribe, tampoco el timbre (y el reintento lo recupera del PAC)', async () => {
    const e = await sellada();
    jest.spyOn(x.m.eventos, 'registrar').mockRejectedValueOnce(new Error('conexión perdida'));
    await expect(enviar(e)).rejects.toThrow('conexión perdida');
    expect(guardada(e.facturaId)).toMatchObject({ estado: 'borrador', uuid: null, xml_timbrado: null });
    expect(await eventos()).toEqual([]);
    expect(await enviar(e)).toMatchObject({ estado: 'timbrada' });
    expect(x.pac.metodos()).toEqual(['timbrar', 'consultarTimbre']);
  });

  it('cuenta el intento antes de llamar: un error de transporte se propaga y queda contado', async () => {
    const e = await sellada();
    x.pac.alTimbrar({ tipo: 'caido' });
    await expect(enviar(e)).rejects.toBeInstanceOf(ErrorPacTransitorio);
    expect(guardada(e.facturaId)).toMatchObject({ estado: 'borrador', timbrado_intentos: 1 });
    // Still pending, and the invoice says why: the last transient error, replaced by the stamp later.
    expect(guardada(e.facturaId)).toMatchObject({
      timbrado_estado: 'pendiente',
      timbrado_error: { codigo: 'pac_no_disponible' },
    });
    expect(await eventos()).toEqual([]);
    expect(await enviar(e)).toMatchObject({ estado: 'timbrada' });
    expect(guardada(e.facturaId).timbrado_error).toBeNull();
  });

  it('solo pregunta por un timbre previo cuando hubo un intento anterior', async () => {
    const e = await sellada();
    x.pac.alTimbrar({ tipo: 'caido' });
    await expect(enviar(e)).rejects.toThrow();
    expect(await enviar(e)).toMatchObject({ estado: 'timbrada' });
    expect(x.pac.metodos()).toEqual(['timbrar', 'consultarTimbre', 'timbrar']);
    // Both attempts sent the very bytes sealed once.
    const enviados = x.pac.llamadas.flatMap((l) => (l.metodo === 'timbrar' ? [l.xml] : []));
    expect(new Set(enviados)).toEqual(new Set([guardada(e.facturaId).xml_sellado]));
  });

  it('una respuesta perdida se recupera con consultarTimbre, sin timbrar dos veces', async () => {
    const e = await sellada();
    x.pac.alTimbrar({ tipo: 'perdido' });
    await expect(enviar(e)).rejects.toBeInstanceOf(ErrorPacTransitorio);
    expect(await enviar(e)).toMatchObject({ estado: 'timbrada' });
    expect(x.pac.metodos()).toEqual(['timbrar', 'consultarTimbre']);
    expect(guardada(e.facturaId).timbrado_intentos).toBe(2);
  });

  it('un rechazo del PAC es una respuesta: rechazado con su código, sin escribir el timbre', async () => {
    const e = await sellada();
    x.pac.alTimbrar({ tipo: 'rechazado', codigo: 'CFDI40102', mensaje: 'Sello inválido.' });
    expect(await enviar(e)).toEqual({
      estado: 'rechazado',
      error: { codigo: 'CFDI40102', mensaje: 'Sello inválido.', paso: 'pac' },
      // What ops find the failed stamping by: the RFCs and serie-folio.
      referencias: expect.arrayContaining([CLIENTE.rfc]) as string[],
    });
    expect(guardada(e.facturaId)).toMatchObject({ estado: 'borrador', timbrado_estado: 'pendiente' });
    expect(await eventos()).toEqual([]);
  });

  it('un UUID que ya es de otra factura → rechazado cfdi_duplicado, sin tocar ninguna', async () => {
    const primera = await sellada();
    const uuid = '5F1C2A0E-7D3B-4C8A-9E21-0A1B2C3D4E5F';
    x.pac.alTimbrar({ tipo: 'timbrado', uuid }, { tipo: 'timbrado', uuid });
    await enviar(primera);
    const segunda = await sellada();
    const antes = guardada(segunda.facturaId);
    const r = await enviar(segunda);
    expect(r).toMatchObject({ estado: 'rechazado', error: { codigo: 'cfdi_duplicado' } });
    expect(r.estado === 'rechazado' && r.error.mensaje).toContain(uuid);
    expect(guardada(segunda.facturaId)).toMatchObject({ estado: 'borrador', uuid: null });
    expect(guardada(segunda.facturaId).timbrado_intentos).toBe(antes.timbrado_intentos + 1);
    expect((await eventos()).map((ev) => ev.tipo)).toEqual(['factura.timbrada']);
  });

  it('si otro intento escribió el timbre mientras el PAC respondía, no se escribe de nuevo', async () => {
    const e = await sellada();
    const timbrar = x.pac.timbrar;
    jest.spyOn(x.pac, 'timbrar').mockImplementationOnce(async (xml) => {
      const r = await timbrar(xml);
      // A concurrent attempt (a retry on another worker) stores the same stamp first.
      if (r.tipo === 'timbrado')
        await x.m.transacciones.ejecutar((tx) => x.m.facturas.guardarTimbre(tx, x.a, e.facturaId, r));
      return r;
    });
    const guardarTimbre = jest.spyOn(x.m.facturas, 'guardarTimbre');
    expect(await enviar(e)).toMatchObject({ estado: 'timbrada' });
    // Only the concurrent attempt's write: the activity saw the stamp under the lock and left it.
    expect(guardarTimbre).toHaveBeenCalledTimes(1);
    expect(await eventos()).toEqual([]);
  });

  it('timbrada: antes de contestar entrega el PDF a su flujo pdf:<factura> (la cola de PDF), sin renderizarlo', async () => {
    const e = await sellada();
    expect(x.temporal.inicios).toEqual([]);
    await enviar(e);
    expect(x.temporal.inicios).toEqual([
      {
        tipo: 'generarPdfFactura',
        workflowId: `pdf:${e.facturaId}`,
        taskQueue: 'cfdi-pdf',
        entrada: { facturaId: e.facturaId, cuentaId: e.cuentaId, modo: e.modo },
        nuevo: true,
      },
    ]);
    expect(x.pdf.llamadas).toEqual([]);
  });

  it('timbrarFacturaV3 (pdfEnElFlujo): no inicia pdf:<factura>, su propio flujo lo genera', async () => {
    const e = await sellada();
    expect(await enviar({ ...e, pdfEnElFlujo: true })).toMatchObject({ estado: 'timbrada' });
    expect(guardada(e.facturaId).estado).toBe('timbrada');
    expect(x.temporal.inicios).toEqual([]);
    expect(x.pdf.llamadas).toEqual([]);
  });

  it('si Temporal no toma el PDF, el paso falla; el reintento encuentra el timbre y lo entrega sin timbrar otra vez', async () => {
    const e = await sellada();
    const start = jest
      .spyOn(x.temporal.cliente.workflow, 'start')
      .mockRejectedValueOnce(new Error('14 UNAVAILABLE'));
    await expect(enviar(e)).rejects.toThrow('UNAVAILABLE');
    expect(guardada(e.facturaId).estado).toBe('timbrada');
    expect(await enviar(e)).toMatchObject({ estado: 'timbrada' });
    expect(start).toHaveBeenCalledTimes(2);
    expect(x.temporal.inicios.map((i) => i.workflowId)).toEqual([`pdf:${e.facturaId}`]);
    expect(x.pac.metodos()).toEqual(['timbrar']);
  });

  it('un rechazo no entrega PDF', async () => {
    const e = await sellada();
    x.pac.alTimbrar({ tipo: 'rechazado', codigo: 'CFDI40102', mensaje: 'Sello inválido.' });
    await enviar(e);
    expect(x.temporal.inicios).toEqual([]);
  });

  it('una factura ya timbrada no llama al PAC', async () => {
    const e = await sellada();
    await enviar(e);
    expect(await enviar(e)).toMatchObject({ estado: 'timbrada' });
    expect(x.pac.metodos()).toEqual(['timbrar']);
    expect(guardada(e.facturaId).timbrado_intentos).toBe(1);
  });

  it('sin XML sellado es un error (el flujo siempre prepara antes)', async () => {
    const e = await pendiente();
    await expect(enviar(e)).rejects.toThrow('sin XML sellado');
    expect(x.pac.llamadas).toEqual([]);
  });

  describe('latidos mientras el PAC trabaja', () => {
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
    afterEach(() => jest.useRealTimers());

    /** A PAC that takes `ms` to answer (on the fake clock). */
    function pacLento(ms: number) {
      const timbrar = x.pac.timbrar;
      jest
        .spyOn(x.pac, 'timbrar')
        .mockImplementation((xml) => new Promise((r) => setTimeout(() => r(timbrar(xml)), ms)));
    }

    it.each([
      [false, 3],
      [true, 0],
    ])('actividad local %p → %p latidos en 3.5 s', async (local, esperados) => {
      const e = await sellada();
      pacLento(3_500);
      const contexto = crearContextoActividad({ local });
      const envio = contexto.ejecutar(() => x.act.enviarAlPac(e));
      await jest.advanceTimersByTimeAsync(3_500);
      expect(await envio).toMatchObject({ estado: 'timbrada' });
      expect(contexto.latidos()).toBe(esperados);
      // The interval is cleared: no heartbeat after the answer.
      await jest.advanceTimersByTimeAsync(5_000);
      expect(contexto.latidos()).toBe(esperados);
    });
  });
});

describe('registrarRechazo', () => {
  const error = { codigo: 'CFDI40145', mensaje: 'El RFC del receptor no está en la lista del SAT.' };

  it('desde pendiente: fallido con el error, sin el XML sellado, y evento factura.timbrado_fallido', async () => {
    const e = await sellada();
    await x.act.registrarRechazo(e, error);
    const f = guardada(e.facturaId);
    expect(f).toMatchObject({ estado: 'borrador', timbrado_estado: 'fallido', timbrado_error: error });
    expect(f.xml_sellado).toBeNull();
    const [evento] = await eventos();
    expect(evento).toMatchObject({
      tipo: 'factura.timbrado_fallido',
      datos: { id: e.facturaId, timbrado: { estado: 'fallido', ultimo_error: error } },
    });
  });

  it('fuera de pendiente no cambia nada (un timbre que llegó antes gana)', async () => {
    const e = await sellada();
    await enviar(e);
    const borrador = await x.facturar({ auto_timbrar: false });
    const antes = x.m.almacen.volcado();
    await x.act.registrarRechazo(e, error);
    await x.act.registrarRechazo(x.entrada(borrador.id), error);
    await x.act.registrarRechazo(x.entrada('fac_inexistente'), error);
    expect(x.m.almacen.volcado()).toBe(antes);
  });
});

describe('timbrarDeUnaVez', () => {
  const deUnaVez = (e: { facturaId: string }) =>
    crearContextoActividad({ local: true }).ejecutar(() =>
      x.act.timbrarDeUnaVez({ ...x.entrada(e.facturaId), pdfEnElFlujo: true }),
    );

  it('sella y timbra en un paso: el intento se cuenta con el sello, una sola llamada al PAC', async () => {
    const e = await pendiente();
    const contar = jest.spyOn(x.m.facturas, 'contarIntento');
    const r = await deUnaVez(e);
    expect(r).toMatchObject({ estado: 'timbrada' });
    expect(guardada(e.facturaId)).toMatchObject({ estado: 'timbrada', timbrado_intentos: 1 });
    expect(contar).not.toHaveBeenCalled();
    expect(x.pac.metodos()).toEqual(['timbrar']);
    expect((await eventos()).map((v) => v.tipo)).toEqual(['factura.timbrada']);
  });

  it('si el PAC no responde queda sellada y contada: el paso siguiente pregunta antes de timbrar otra vez', async () => {
    const e = await pendiente();
    x.pac.alTimbrar({ tipo: 'perdido' });
    await expect(deUnaVez(e)).rejects.toBeInstanceOf(ErrorPacTransitorio);
    const sellado = guardada(e.facturaId).xml_sellado;
    expect(guardada(e.facturaId)).toMatchObject({ estado: 'borrador', timbrado_intentos: 1 });
    expect(await enviar(e)).toMatchObject({ estado: 'timbrada' });
    expect(x.pac.metodos()).toEqual(['timbrar', 'consultarTimbre']);
    expect(guardada(e.facturaId).xml_sellado).toBe(sellado);
  });

  it('un rechazo del PAC lleva las referencias de la factura', async () => {
    const e = await pendiente();
    x.pac.alTimbrar({ tipo: 'rechazado', codigo: 'CFDI40102', mensaje: 'Sello inválido.' });
    const r = await deUnaVez(e);
    expect(r).toMatchObject({ estado: 'rechazado', error: { codigo: 'CFDI40102', paso: 'pac' } });
    expect(r.referencias).toContain(CLIENTE.rfc);
  });
});

describe('registrarAbandono', () => {
  const quien = { origen: { solicitudId: 'req_abandono', llaveId: 'llave_ops' } };
  /** Sealed, and sent once to a PAC that did not answer: the state a stamping stuck on a fault is in. */
  async function intentada(o: { perdida?: boolean } = {}) {
    const e = await sellada();
    x.pac.alTimbrar(o.perdida ? { tipo: 'perdido' } : { tipo: 'caido' });
    await expect(enviar(e)).rejects.toThrow();
    return e;
  }

  it('sin timbre en el PAC: fallido timbrado_abandonado, sin XML sellado, con su evento y quien lo pidió como actor', async () => {
    const e = await intentada();
    const r = await x.act.registrarAbandono(e, quien, 0);
    expect(r).toMatchObject({ estado: 'rechazado', error: { codigo: 'timbrado_abandonado', paso: 'pac' } });
    // Asked first, as every retry does; nothing sent again.
    expect(x.pac.metodos()).toEqual(['timbrar', 'consultarTimbre']);
    const f = guardada(e.facturaId);
    expect(f).toMatchObject({ estado: 'borrador', timbrado_estado: 'fallido', uuid: null });
    expect(f.timbrado_error!.mensaje).toMatch(
      /^El timbrado se abandonó a petición de la llave llave_ops sin que el PAC lo timbrara \(1 intentos\)/,
    );
    expect(f.xml_sellado).toBeNull();
    const [evento] = await eventos();
    expect(evento).toMatchObject({
      tipo: 'factura.timbrado_fallido',
      actor: { tipo: 'llave', id: 'llave_ops' },
      solicitud: { id: 'req_abandono', llave: 'llave_ops' },
      datos: {
        id: e.facturaId,
        timbrado: { estado: 'fallido', ultimo_error: { codigo: 'timbrado_abandonado' } },
      },
    });
    expect(x.metricas.timbrados).toEqual(['rechazada']);
  });

  it('si el PAC ya lo había timbrado (una respuesta perdida), guarda ese timbre: exactamente una vez', async () => {
    const e = await intentada({ perdida: true });
    const r = await x.act.registrarAbandono({ ...e, pdfEnElFlujo: true }, quien, 0);
    expect(r.estado).toBe('timbrada');
    const f = guardada(e.facturaId);
    expect(f).toMatchObject({ estado: 'timbrada', timbrado_estado: 'timbrada' });
    expect(x.pac.metodos().filter((m) => m === 'timbrar')).toHaveLength(1);
    expect((await eventos()).map((v) => v.tipo)).toEqual(['factura.timbrada']);
  });

  it('nunca enviado al PAC: no le pregunta nada; ya timbrada o fallida: no cambia nada', async () => {
    const e = await sellada();
    expect((await x.act.registrarAbandono(e, quien, 0)).estado).toBe('rechazado');
    expect(x.pac.metodos()).toEqual([]);
    const antes = x.m.almacen.volcado();
    expect(await x.act.registrarAbandono(e, quien, 0)).toMatchObject({
      estado: 'rechazado',
      error: { codigo: 'timbrado_abandonado' },
    });
    const t = await sellada();
    await enviar(t);
    const despues = x.m.almacen.volcado();
    expect((await x.act.registrarAbandono(t, quien, 0)).estado).toBe('timbrada');
    expect(x.m.almacen.volcado()).toBe(despues);
    expect(antes).not.toBe(despues);
  });

  it('tras otra ejecución (quietud): con actividad reciente falla para reintentarse, sin preguntar ni escribir', async () => {
    const e = await intentada();
    // The activities' clock at the row's last write: not quiet yet.
    x.reloj.ahora = new Date(guardada(e.facturaId).actualizado_en.getTime() + 10_000);
    const antes = x.m.almacen.volcado();
    await expect(x.act.registrarAbandono(e, quien, 60_000)).rejects.toThrow(
      /espera a que termine un intento/,
    );
    expect(x.m.almacen.volcado()).toBe(antes);
    x.reloj.ahora = new Date(guardada(e.facturaId).actualizado_en.getTime() + 61_000);
    expect((await x.act.registrarAbandono(e, quien, 60_000)).estado).toBe('rechazado');
  });
});
