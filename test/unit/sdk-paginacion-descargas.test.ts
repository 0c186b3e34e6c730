import { ErrorTiempoAgotado, respuestaDe, type Factura } from '../../sdk/src';
import { sdkDePrueba, servidorFalso, type Respuesta } from '../support/sdk-servidor';

type Servidor = Awaited<ReturnType<typeof servidorFalso>>;
let s: Servidor;
let manejar: (r: Parameters<Parameters<typeof servidorFalso>[0]>[0], n: number) => Respuesta;
beforeAll(async () => {
  s = await servidorFalso((r, n) => manejar(r, n));
});
afterAll(() => s.cerrar());
beforeEach(() => {
  s.recibidas.length = 0;
});

const pagina = (ids: string[], siguiente: string | null) => ({
  json: {
    objeto: 'lista',
    datos: ids.map((id) => ({ id })),
    paginacion: { hay_mas: siguiente !== null, siguiente_cursor: siguiente },
  },
});

describe('SDK: paginación por cursor', () => {
  beforeEach(() => {
    manejar = (r) => {
      const cursor = r.consulta.get('paginacion.cursor_inicio');
      if (cursor === null) return pagina(['fac_5', 'fac_4'], 'c1');
      if (cursor === 'c1') return pagina(['fac_3', 'fac_2'], 'c2');
      return pagina(['fac_1'], null);
    };
  });

  it('for await recorre todas las páginas, repitiendo los filtros con cada cursor', async () => {
    const { sdk } = sdkDePrueba(s.url);
    const ids: string[] = [];
    for await (const f of sdk.facturas.listar({
      estado: 'timbrada',
      organizacion: 'EKU9003173C9',
      limite: 2,
    })) {
      ids.push(f.id);
    }
    expect(ids).toEqual(['fac_5', 'fac_4', 'fac_3', 'fac_2', 'fac_1']);
    expect(s.recibidas.map((r) => Object.fromEntries(r.consulta))).toEqual([
      { estado: 'timbrada', organizacion: 'EKU9003173C9', 'paginacion.limite': '2' },
      {
        estado: 'timbrada',
        organizacion: 'EKU9003173C9',
        'paginacion.limite': '2',
        'paginacion.cursor_inicio': 'c1',
      },
      {
        estado: 'timbrada',
        organizacion: 'EKU9003173C9',
        'paginacion.limite': '2',
        'paginacion.cursor_inicio': 'c2',
      },
    ]);
  });

  it('pagina() trae una sola página (la primera, o la del cursor); aArreglo(n) no pide páginas de más', async () => {
    const { sdk } = sdkDePrueba(s.url);
    const p = await sdk.webhooks.listar().pagina();
    expect(p.datos.map((x) => x.id)).toEqual(['fac_5', 'fac_4']);
    expect(p.paginacion).toEqual({ hay_mas: true, siguiente_cursor: 'c1' });
    const p2 = await sdk.webhooks.listar({ cursor: 'c1' }).pagina();
    expect(p2.datos.map((x) => x.id)).toEqual(['fac_3', 'fac_2']);
    expect(s.recibidas).toHaveLength(2);
    expect(await sdk.clientes.listar().aArreglo(3)).toHaveLength(3);
    expect(s.recibidas).toHaveLength(4);
    const paginas: number[] = [];
    for await (const pg of sdk.eventos.entregas('evt_1').paginas()) paginas.push(pg.datos.length);
    expect(paginas).toEqual([2, 2, 1]);
    expect(s.recibidas.at(-1)!.ruta).toBe('/v1/eventos/evt_1/entregas');
  });

  it('una página con hay_mas pero sin cursor termina la iteración (no repite la primera)', async () => {
    manejar = () => ({
      json: { objeto: 'lista', datos: [{ id: 'a' }], paginacion: { hay_mas: true, siguiente_cursor: null } },
    });
    const { sdk } = sdkDePrueba(s.url);
    expect(await sdk.pagos.listar().aArreglo()).toHaveLength(1);
  });
});

describe('SDK: descargas como bytes', () => {
  it('XML, PDF, ZIP y acuse llegan byte por byte (nunca se interpretan como JSON), con su Accept', async () => {
    // Bytes that are not valid UTF-8 nor JSON: any decoding would change them.
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0xff, 0x00, 0xc3, 0x28, 0x7b])]);
    const xml = Buffer.from('<?xml version="1.0" encoding="UTF-8"?><cfdi:Comprobante Total="1740.00"/>\n');
    const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0xde, 0xad, 0xbe, 0xef]);
    manejar = (r) =>
      r.ruta.endsWith('/pdf')
        ? { cuerpo: pdf, encabezados: { 'content-type': 'application/pdf' } }
        : r.ruta.endsWith('/xml') || r.ruta.endsWith('/acuse')
          ? { cuerpo: xml, encabezados: { 'content-type': 'application/xml' } }
          : { cuerpo: zip, encabezados: { 'content-type': 'application/zip' } };
    const { sdk } = sdkDePrueba(s.url);
    const bytesPdf = await sdk.facturas.pdf('fac_1');
    expect(bytesPdf).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(bytesPdf).equals(pdf)).toBe(true);
    expect(Buffer.from(await sdk.facturas.xml('fac_1')).equals(xml)).toBe(true);
    expect(Buffer.from(await sdk.facturas.auditoria('fac_1')).equals(zip)).toBe(true);
    expect(Buffer.from(await sdk.facturas.acuse('fac_1')).equals(xml)).toBe(true);
    expect(s.recibidas.map((r) => [r.ruta, r.encabezados.accept])).toEqual([
      ['/v1/facturas/fac_1/pdf', 'application/pdf'],
      ['/v1/facturas/fac_1/xml', 'application/xml'],
      ['/v1/facturas/fac_1/auditoria', 'application/zip'],
      ['/v1/facturas/fac_1/acuse', 'application/xml'],
    ]);
    expect(respuestaDe(bytesPdf)?.encabezados.get('content-type')).toBe('application/pdf');
  });
});

const factura = (timbrado: string, cancelacion: string | null = null) => ({
  id: 'fac_1',
  objeto: 'factura',
  estado: timbrado === 'timbrada' ? 'timbrada' : 'borrador',
  timbrado: { estado: timbrado, intentos: 1, ultimo_error: null },
  cancelacion: cancelacion === null ? null : { estado: cancelacion },
});

describe('SDK: esperar… tras un 202', () => {
  it('sigue el Location del 202 tras su Retry-After y después el Retry-After de cada lectura', async () => {
    manejar = (r, n) => {
      if (r.metodo === 'POST') {
        return {
          estado: 202,
          json: factura('pendiente'),
          encabezados: { location: '/v1/facturas/fac_1?desde=202', 'retry-after': '3' },
        };
      }
      return n < 4
        ? { json: factura('pendiente'), encabezados: { 'retry-after': '1' } }
        : { json: factura('timbrada') };
    };
    const { sdk, esperas } = sdkDePrueba(s.url);
    const f = await sdk.facturas.crear({
      organizacion: 'org_1',
      tipo: 'ingreso',
      cliente: 'cli_1',
      conceptos: [],
    });
    expect(respuestaDe(f)).toMatchObject({ estado: 202, reintentarEnMs: 3000 });
    expect(respuestaDe(f)!.ubicacion).toBe(`${s.url}/v1/facturas/fac_1?desde=202`);
    const final = await sdk.facturas.esperarTimbrado(f, { tiempoMaximoMs: 10_000 });
    expect(final.timbrado.estado).toBe('timbrada');
    expect(s.recibidas.slice(1).map((r) => `${r.metodo} ${r.ruta}?${r.consulta}`)).toEqual([
      'GET /v1/facturas/fac_1?desde=202',
      'GET /v1/facturas/fac_1?desde=202',
      'GET /v1/facturas/fac_1?desde=202',
    ]);
    expect(esperas).toEqual([3000, 1000, 1000]);
  });

  it('sin Location ni Retry-After: GET del recurso cada intervaloMs; con un id lee de inmediato', async () => {
    manejar = (_r, n) => ({ json: factura('timbrada', n < 3 ? 'en_proceso' : 'aceptada') });
    const { sdk, esperas } = sdkDePrueba(s.url);
    const f = await sdk.facturas.esperarCancelacion('fac_1', { intervaloMs: 250 });
    expect(f.cancelacion?.estado).toBe('aceptada');
    expect(s.recibidas.map((r) => r.ruta)).toEqual(Array(3).fill('/v1/facturas/fac_1'));
    expect(esperas).toEqual([250, 250]);
  });

  it('un recurso ya terminado vuelve sin solicitudes; un Location de otro origen se ignora', async () => {
    manejar = () => ({ json: factura('timbrada') });
    const { sdk } = sdkDePrueba(s.url);
    const terminada = factura('timbrada') as unknown as Factura;
    expect(await sdk.facturas.esperarTimbrado(terminada)).toBe(terminada);
    expect(s.recibidas).toHaveLength(0);

    manejar = (r) =>
      r.metodo === 'POST'
        ? {
            estado: 202,
            json: factura('pendiente'),
            encabezados: { location: 'http://otro.example/v1/facturas/fac_1' },
          }
        : { json: factura('fallido') };
    const f = await sdk.facturas.timbrar('fac_1');
    expect(respuestaDe(f)!.ubicacion).toBeNull();
    expect((await sdk.facturas.esperarTimbrado(f)).timbrado.estado).toBe('fallido');
    expect(s.recibidas.map((r) => `${r.metodo} ${r.ruta}`)).toEqual([
      'POST /v1/facturas/fac_1/timbrar',
      'GET /v1/facturas/fac_1',
    ]);
  });

  it('pagos y entregas: esperan a un estado final; sin él a tiempo, ErrorTiempoAgotado con lo último leído', async () => {
    manejar = (r, n) =>
      r.ruta.startsWith('/v1/pagos')
        ? {
            json: {
              id: 'pago_1',
              objeto: 'pago',
              estado: n === 1 ? 'registrando' : n === 2 ? 'borrador' : 'timbrada',
            },
          }
        : { json: { id: 'ent_1', objeto: 'entrega', estado: 'pendiente' } };
    const { sdk } = sdkDePrueba(s.url, {
      dormir: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))),
    });
    expect((await sdk.pagos.esperar('pago_1', { intervaloMs: 1 })).estado).toBe('timbrada');
    expect(s.recibidas).toHaveLength(3);
    const e = await sdk.entregas
      .esperar('ent_1', { intervaloMs: 5, tiempoMaximoMs: 60 })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ErrorTiempoAgotado);
    expect((e as ErrorTiempoAgotado).ultimo).toMatchObject({ id: 'ent_1', estado: 'pendiente' });
  });
});
