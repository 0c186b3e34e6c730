import { AVISO_VENCIMIENTO_MS, crearActividadesCertificados } from '../../activities/certificados';
import { nuevoId } from '../../db/ids';
import type { Alcance } from '../../dominio/alcance';
import { alcance } from '../support/memoria';
import { tablaAvisosCertificados } from '../support/memoria/certificados';
import { AHORA, crearServiciosEnMemoria, type ServiciosEnMemoria } from '../support/memoria/servicios';

const a = alcance();
const b = alcance('cta_b', 'live');
const DIA = 24 * 3600_000;
let s: ServiciosEnMemoria;
let act: ReturnType<typeof crearActividadesCertificados>;

beforeEach(() => {
  s = crearServiciosEnMemoria();
  act = crearActividadesCertificados({
    certificados: s.m.certificados,
    eventos: s.m.eventos,
    transacciones: s.m.transacciones,
    ahora: () => s.reloj.ahora,
  });
});

/** A stored certificate of its own organization, valid until `AHORA + dias`; `activo: false` deactivates it. */
async function certificado(alc: Alcance, dias: number, o: { activo?: boolean } = {}) {
  const id = nuevoId('cert');
  const sello = Buffer.from('sellado');
  await s.m.certificados.insertarActivo(
    alc,
    {
      id,
      organizacion_id: nuevoId('org'),
      no_certificado: '30001000000500003416',
      rfc: 'EKU9003173C9',
      nombre_titular: 'ESCUELA KEMPER URGATE',
      valido_desde: new Date(AHORA.getTime() - 365 * DIA),
      valido_hasta: new Date(AHORA.getTime() + dias * DIA),
      de_prueba: true,
      cer: Buffer.from('cer'),
      llave_cifrada: sello,
      contrasena_cifrada: sello,
      dek_cifrada: sello,
      version_clave: 1,
    },
    AHORA,
  );
  if (o.activo === false)
    await s.m.certificados.cambiarActivo(alc, (await s.m.certificados.obtener(alc, id))!, false, AHORA);
  return id;
}

/** The events written in scope `alc` as `[tipo, certificado]`, sorted (ids of one millisecond have no order). */
async function avisos(alc: Alcance) {
  const { datos } = await s.eventos.listar(alc, {}, { limite: 100 });
  return datos.map((e) => [e.tipo, (e.datos as { id: string }).id]).sort(porTexto);
}
const porTexto = (x: string[], y: string[]) => (x.join() < y.join() ? -1 : x.join() > y.join() ? 1 : 0);

describe('avisarVencimientos', () => {
  it('por_vencer a 30 días o menos, vencido ya vencido; nada para inactivos ni para los que vencen después', async () => {
    const pronto = await certificado(a, 10);
    const justo = await certificado(a, AVISO_VENCIMIENTO_MS / DIA);
    const vencido = await certificado(a, -1);
    const deOtraCuenta = await certificado(b, 3);
    await certificado(a, 31);
    await certificado(a, 5, { activo: false });
    await certificado(a, -5, { activo: false });

    expect(await act.avisarVencimientos()).toBe(4);
    expect(await avisos(a)).toEqual(
      [
        ['certificado.vencido', vencido],
        ['certificado.por_vencer', pronto],
        ['certificado.por_vencer', justo],
      ].sort(porTexto),
    );
    // Each event in its certificate's account and mode.
    expect(await avisos(b)).toEqual([['certificado.por_vencer', deOtraCuenta]]);
    expect(
      tablaAvisosCertificados(s.m.almacen)
        .todas()
        .map((r) => [r.tipo, r.certificado_id])
        .sort(porTexto),
    ).toEqual(
      [
        ['certificado.por_vencer', pronto],
        ['certificado.por_vencer', justo],
        ['certificado.vencido', vencido],
        ['certificado.por_vencer', deOtraCuenta],
      ].sort(porTexto),
    );
  });

  it('los datos del evento son el certificado como lo muestra la API, sin secretos', async () => {
    const id = await certificado(a, 10);
    await act.avisarVencimientos();
    const [evento] = (await s.eventos.listar(a, {}, { limite: 10 })).datos;
    expect(evento!.tipo).toBe('certificado.por_vencer');
    expect(evento!.datos).toEqual(await s.certificados.obtener(a, id));
    expect(evento!.datos).toMatchObject({
      objeto: 'certificado',
      activo: true,
      valido_hasta: new Date(AHORA.getTime() + 10 * DIA).toISOString(),
    });
    for (const secreto of [
      'cer',
      'llave_cifrada',
      'contrasena_cifrada',
      'dek_cifrada',
      'version_clave',
      'cuenta_id',
    ])
      expect(evento!.datos).not.toHaveProperty(secreto);
    // The notice names its event.
    expect(tablaAvisosCertificados(s.m.almacen).buscar(`${id}|certificado.por_vencer`)?.evento_id).toBe(
      evento!.id,
    );
  });

  it('una segunda pasada no escribe nada; al vencer, el mismo certificado recibe su aviso de vencido una vez', async () => {
    const id = await certificado(a, 10);
    expect(await act.avisarVencimientos()).toBe(1);
    const antes = s.m.almacen.volcado();
    expect(await act.avisarVencimientos()).toBe(0);
    expect(s.m.almacen.volcado()).toBe(antes);

    s.reloj.ahora = new Date(AHORA.getTime() + 10 * DIA);
    expect(await act.avisarVencimientos()).toBe(1);
    expect(await act.avisarVencimientos()).toBe(0);
    expect(await avisos(a)).toEqual([
      ['certificado.por_vencer', id],
      ['certificado.vencido', id],
    ]);
  });

  it('dos pasadas a la vez escriben cada aviso una sola vez', async () => {
    const pronto = await certificado(a, 10);
    const vencido = await certificado(a, -1);
    const [x, y] = await Promise.all([act.avisarVencimientos(), act.avisarVencimientos()]);
    expect(x + y).toBe(2);
    expect(await avisos(a)).toEqual(
      [
        ['certificado.vencido', vencido],
        ['certificado.por_vencer', pronto],
      ].sort(porTexto),
    );
    expect(tablaAvisosCertificados(s.m.almacen).todas()).toHaveLength(2);
  });
});
