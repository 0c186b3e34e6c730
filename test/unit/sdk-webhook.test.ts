import { ClienteCfdi, ErrorFirmaWebhook, verificarWebhook, type MotivoFirmaInvalida } from '../../sdk/src';
import { encabezadosFirma, nuevoSecretoWebhook } from '../../webhooks/firma';

const EVENTO = {
  id: 'evt_01kbq3z0p8g2h4k6m8n0q2s4t6',
  objeto: 'evento',
  modo: 'test',
  tipo: 'factura.timbrada',
  creado_en: '2026-11-23T02:53:12.456Z',
  datos: { id: 'fac_1', objeto: 'factura', cliente: { nombre: 'UNIVERSIDAD ROBOTICA ESPAÑOLA' } },
};
// The delivery body as the server writes it (JSON.stringify, UTF-8): with non-ASCII text on purpose.
const CUERPO = Buffer.from(JSON.stringify(EVENTO), 'utf8');
const AHORA_S = 1_800_000_000;
const AHORA_MS = AHORA_S * 1000;

/** Node lowercases header names; the server sends them capitalized: both must work. */
const minusculas = (e: Record<string, string>) =>
  Object.fromEntries(Object.entries(e).map(([k, v]) => [k.toLowerCase(), v]));

function motivo(fn: () => unknown): MotivoFirmaInvalida | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof ErrorFirmaWebhook) return e.motivo;
    throw e;
  }
  return undefined;
}

describe('SDK: verificarWebhook con el firmador real del servidor (webhooks/firma.ts)', () => {
  const secreto = nuevoSecretoWebhook();

  it('acepta una entrega firmada y devuelve el evento, con encabezados de Node, Headers o tal cual', () => {
    const encabezados = encabezadosFirma(CUERPO, [secreto], AHORA_S);
    for (const e of [encabezados, minusculas(encabezados), new Headers(encabezados)]) {
      const evento = verificarWebhook({
        cuerpo: CUERPO,
        encabezados: e,
        secretos: secreto,
        ahoraMs: AHORA_MS,
      });
      expect(evento).toEqual(EVENTO);
    }
    // The body as a string (the same bytes decoded as UTF-8) works too.
    expect(
      verificarWebhook({
        cuerpo: CUERPO.toString('utf8'),
        encabezados,
        secretos: [secreto],
        ahoraMs: AHORA_MS,
      }).id,
    ).toBe(EVENTO.id);
    // Via the client as well.
    const sdk = new ClienteCfdi({ llave: 'sk_test_x' });
    expect(
      sdk.webhooks.verificar({ cuerpo: CUERPO, encabezados, secretos: secreto, ahoraMs: AHORA_MS }).tipo,
    ).toBe('factura.timbrada');
  });

  it('rotación: firmada con nuevo y anterior, basta tener cualquiera de los dos; el receptor puede dar varios', () => {
    const anterior = nuevoSecretoWebhook();
    const encabezados = encabezadosFirma(CUERPO, [secreto, anterior], AHORA_S);
    expect(encabezados['X-Facturacion-Firma-Tiempo']!.split(',v1=')).toHaveLength(3);
    for (const secretos of [secreto, anterior, [anterior, secreto], ['whsec_otro', secreto]]) {
      expect(
        motivo(() => verificarWebhook({ cuerpo: CUERPO, encabezados, secretos, ahoraMs: AHORA_MS })),
      ).toBeUndefined();
    }
    // After the overlap only the new one signs: a receiver still holding only the old one refuses.
    const soloNuevo = encabezadosFirma(CUERPO, [secreto], AHORA_S);
    expect(
      motivo(() =>
        verificarWebhook({ cuerpo: CUERPO, encabezados: soloNuevo, secretos: anterior, ahoraMs: AHORA_MS }),
      ),
    ).toBe('firma_invalida');
  });

  it('tolerancia de tiempo: ±300 s por omisión, configurable; fuera de ella, fuera_de_tolerancia', () => {
    const encabezados = encabezadosFirma(CUERPO, [secreto], AHORA_S);
    const con = (ahoraMs: number, toleranciaSegundos?: number) =>
      motivo(() =>
        verificarWebhook({ cuerpo: CUERPO, encabezados, secretos: secreto, ahoraMs, toleranciaSegundos }),
      );
    expect(con(AHORA_MS + 300_000)).toBeUndefined();
    expect(con(AHORA_MS - 300_000)).toBeUndefined();
    expect(con(AHORA_MS + 301_000)).toBe('fuera_de_tolerancia');
    expect(con(AHORA_MS - 301_000)).toBe('fuera_de_tolerancia');
    expect(con(AHORA_MS + 60_000, 30)).toBe('fuera_de_tolerancia');
  });

  it('rechaza otro secreto, un byte cambiado, un t cambiado, firma ausente o mal formada', () => {
    const encabezados = encabezadosFirma(CUERPO, [secreto], AHORA_S);
    const v = (cuerpo: Buffer | string, e: Record<string, string>, s: string | string[] = secreto) =>
      motivo(() => verificarWebhook({ cuerpo, encabezados: e, secretos: s, ahoraMs: AHORA_MS }));
    expect(v(CUERPO, encabezados, nuevoSecretoWebhook())).toBe('firma_invalida');
    const alterado = Buffer.from(CUERPO);
    alterado[alterado.length - 2]! ^= 1;
    expect(v(alterado, encabezados)).toBe('firma_invalida');
    // Re-serializing the parsed JSON (other spacing) is not the raw body.
    expect(v(JSON.stringify(EVENTO, null, 1), encabezados)).toBe('firma_invalida');
    const tiempo = encabezados['X-Facturacion-Firma-Tiempo']!;
    expect(
      v(CUERPO, { 'X-Facturacion-Firma-Tiempo': tiempo.replace(`t=${AHORA_S}`, `t=${AHORA_S + 1}`) }),
    ).toBe('firma_invalida');
    // Only the body signature (no replay protection) is not enough.
    expect(v(CUERPO, { 'X-Facturacion-Firma': encabezados['X-Facturacion-Firma']! })).toBe('firma_ausente');
    expect(v(CUERPO, { 'X-Facturacion-Firma-Tiempo': 'basura' })).toBe('encabezado_mal_formado');
    expect(v(CUERPO, { 'X-Facturacion-Firma-Tiempo': `t=${AHORA_S}` })).toBe('encabezado_mal_formado');
    expect(v(CUERPO, { 'X-Facturacion-Firma-Tiempo': `t=${AHORA_S},t=${AHORA_S},v1=ab` })).toBe(
      'encabezado_mal_formado',
    );
    expect(v(CUERPO, { 'X-Facturacion-Firma-Tiempo': `t=-1,v1=ab` })).toBe('encabezado_mal_formado');
    // A v1 of another length or with non-ASCII characters is a mismatch, never an exception.
    expect(v(CUERPO, { 'X-Facturacion-Firma-Tiempo': `t=${AHORA_S},v1=ñ${'a'.repeat(62)}` })).toBe(
      'firma_invalida',
    );
    // Uppercase hex is the same signature (the server's own check lowercases it).
    expect(
      v(CUERPO, {
        'X-Facturacion-Firma-Tiempo': tiempo.toUpperCase().replace('T=', 't=').replace(/V1=/g, 'v1='),
      }),
    ).toBeUndefined();
    expect(() => verificarWebhook({ cuerpo: CUERPO, encabezados, secretos: [], ahoraMs: AHORA_MS })).toThrow(
      TypeError,
    );
  });

  it('un cuerpo firmado que no es JSON: cuerpo_invalido (la firma se comprueba antes de leerlo)', () => {
    const cuerpo = Buffer.from('no es json');
    const encabezados = encabezadosFirma(cuerpo, [secreto], AHORA_S);
    expect(
      motivo(() => verificarWebhook({ cuerpo, encabezados, secretos: secreto, ahoraMs: AHORA_MS })),
    ).toBe('cuerpo_invalido');
  });
});
