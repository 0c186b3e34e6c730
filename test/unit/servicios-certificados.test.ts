import { archivoSat, CONTRASENA_PRUEBA, CSD_VALIDO, generarCsd } from '../support/certificados';
import { ORGANIZACION } from '../support/cuentas';
import { alcance } from '../support/memoria';
import {
  AHORA,
  entornoConOrganizacion,
  errorNegocio,
  rechazoSinEscrituras,
} from '../support/memoria/servicios';
import { tablaCertificados } from '../support/memoria/certificados';

const a = alcance();
const x = entornoConOrganizacion();

const subida = (
  extra: Partial<{ cer: Buffer; llave: Buffer; contrasena: string; organizacion: string }> = {},
) => ({
  organizacion: x.org,
  cer: archivoSat(CSD_VALIDO.cer),
  llave: archivoSat(CSD_VALIDO.key),
  contrasena: CONTRASENA_PRUEBA,
  ...extra,
});

describe('certificados', () => {
  it('valida, sella llave y contraseña en la bóveda y lo deja activo', async () => {
    const c = await x.s.certificados.crear(a, subida());
    expect(c).toMatchObject({
      objeto: 'certificado',
      organizacion: x.org,
      rfc: CSD_VALIDO.rfc,
      no_certificado: CSD_VALIDO.noCertificado,
      activo: true,
      de_prueba: true,
    });
    expect(c).not.toHaveProperty('llave_cifrada');
    const fila = tablaCertificados(x.s.m.almacen).buscar(c.id)!;
    expect(fila.llave_cifrada.includes(archivoSat(CSD_VALIDO.key))).toBe(false);
    const abierto = x.s.boveda.abrir(
      { cuentaId: a.cuentaId, modo: a.modo, registroId: c.id },
      fila.dek_cifrada,
      { llave: fila.llave_cifrada, contrasena: fila.contrasena_cifrada },
      fila.version_clave,
    );
    expect(abierto.llave!.equals(archivoSat(CSD_VALIDO.key))).toBe(true);
    expect(abierto.contrasena!.toString()).toBe(CONTRASENA_PRUEBA);
    expect((await x.s.organizaciones.obtener(a, x.org)).certificado_activo?.id).toBe(c.id);
  });

  it('el mismo certificado dos veces en la organización → certificado_duplicado en cer', async () => {
    await x.s.certificados.crear(a, subida());
    const e = await rechazoSinEscrituras(x.s.m, () => x.s.certificados.crear(a, subida()));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'certificado_duplicado', 'cer']);
  });

  it.each([
    ['contraseña incorrecta', 'contrasena_incorrecta', 'contrasena', { contrasena: 'otra' }],
    ['RFC de otra organización', 'rfc_no_coincide', 'cer', { organizacion: 'AAA010101AAA' }],
  ])('%s → %s sin escribir', async (_caso, codigo, parametro, extra) => {
    await x.s.organizaciones.crear(a, { ...ORGANIZACION, rfc: 'AAA010101AAA' });
    const e = await rechazoSinEscrituras(x.s.m, () => x.s.certificados.crear(a, subida(extra)));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['regla_de_negocio', codigo, parametro]);
  });

  it('organización desconocida → organizacion_no_encontrada en organizacion', async () => {
    const e = await rechazoSinEscrituras(x.s.m, () =>
      x.s.certificados.crear(a, subida({ organizacion: 'org_x' })),
    );
    expect([e.codigo, e.parametro]).toEqual(['organizacion_no_encontrada', 'organizacion']);
  });

  it('uno activo por organización: subir otro desactiva el anterior; se puede reactivar', async () => {
    const primero = await x.s.certificados.crear(a, subida());
    const otro = generarCsd({
      rfc: ORGANIZACION.rfc,
      llave: 7,
      validoDesde: new Date('2025-01-01T00:00:00Z'),
      validoHasta: new Date('2029-01-01T00:00:00Z'),
    });
    const segundo = await x.s.certificados.crear(a, subida({ cer: otro.cer, llave: otro.llave }));
    expect((await x.s.certificados.obtener(a, primero.id)).activo).toBe(false);
    expect(segundo.activo).toBe(true);
    expect((await x.s.certificados.cambiarActivo(a, primero.id, true)).activo).toBe(true);
    expect((await x.s.certificados.obtener(a, segundo.id)).activo).toBe(false);
    await x.s.certificados.cambiarActivo(a, primero.id, false);
    expect((await x.s.organizaciones.obtener(a, x.org)).certificado_activo).toBeNull();
  });

  it('un certificado vencido no se activa → certificado_vencido', async () => {
    const c = await x.s.certificados.crear(a, subida());
    await x.s.certificados.cambiarActivo(a, c.id, false);
    tablaCertificados(x.s.m.almacen).cambiar(c.id, { valido_hasta: new Date(AHORA.getTime() - 1) });
    const e = await rechazoSinEscrituras(x.s.m, () => x.s.certificados.cambiarActivo(a, c.id, true));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['regla_de_negocio', 'certificado_vencido', 'activo']);
    // Deactivating an expired one is always allowed.
    expect((await x.s.certificados.cambiarActivo(a, c.id, false)).activo).toBe(false);
  });

  it('inexistente o de otro modo → certificado_no_encontrado; lista por organización', async () => {
    const c = await x.s.certificados.crear(a, subida());
    for (const [alc, id] of [
      [a, 'cert_x'],
      [alcance('cta_a', 'live'), c.id],
    ] as const) {
      const e = await errorNegocio(x.s.certificados.obtener(alc, id));
      expect([e.tipo, e.codigo]).toEqual(['no_encontrado', 'certificado_no_encontrado']);
    }
    const otra = await x.s.organizaciones.crear(a, { ...ORGANIZACION, rfc: 'AAA010101AAA' });
    const lista = async (organizacion?: string) =>
      (await x.s.certificados.listar(a, { organizacion }, { limite: 10 })).datos.map((x) => x.id);
    expect(await lista()).toEqual([c.id]);
    expect(await lista(ORGANIZACION.rfc)).toEqual([c.id]);
    expect(await lista(otra.id)).toEqual([]);
  });
});
