import { COLOR_ACENTO_POR_DEFECTO } from '../../servicios/organizaciones';
import { CSD_VALIDO } from '../support/certificados';
import { ORGANIZACION } from '../support/cuentas';
import { alcance } from '../support/memoria';
import {
  crearServiciosEnMemoria,
  errorNegocio,
  rechazoSinEscrituras,
  sembrar,
  type ServiciosEnMemoria,
} from '../support/memoria/servicios';

const a = alcance();
let s: ServiciosEnMemoria;

beforeEach(() => {
  s = crearServiciosEnMemoria();
});

describe('organizaciones', () => {
  it('crea con el color por defecto, su persona y sin certificado activo', async () => {
    const o = await s.organizaciones.crear(a, ORGANIZACION);
    expect(o).toMatchObject({
      ...ORGANIZACION,
      objeto: 'organizacion',
      modo: 'test',
      color_acento: COLOR_ACENTO_POR_DEFECTO,
      persona: 'moral',
      certificado_activo: null,
    });
    expect(o.id).toMatch(/^org_/);
  });

  it('el color se guarda en mayúsculas, al crear y al actualizar', async () => {
    const o = await s.organizaciones.crear(a, { ...ORGANIZACION, color_acento: '#abcdef' });
    expect(o.color_acento).toBe('#ABCDEF');
    expect((await s.organizaciones.actualizar(a, o.id, { color_acento: '#0a0b0c' })).color_acento).toBe(
      '#0A0B0C',
    );
  });

  it('el mismo RFC dos veces en la cuenta y modo → organizacion_duplicada; en otro modo o cuenta, no', async () => {
    await s.organizaciones.crear(a, ORGANIZACION);
    const e = await rechazoSinEscrituras(s.m, () => s.organizaciones.crear(a, ORGANIZACION));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'organizacion_duplicada', 'rfc']);
    await s.organizaciones.crear(alcance('cta_a', 'live'), ORGANIZACION);
    await s.organizaciones.crear(alcance('cta_b'), ORGANIZACION);
  });

  it.each([
    ['rfc', { rfc: 'NO-ES-RFC' }],
    ['regimen_fiscal', { regimen_fiscal: '999' }],
    ['codigo_postal', { codigo_postal: '00000' }],
  ])('datos fiscales inválidos (%s) → regla_de_negocio sin escribir', async (parametro, cambio) => {
    const e = await rechazoSinEscrituras(s.m, () =>
      s.organizaciones.crear(a, { ...ORGANIZACION, ...cambio }),
    );
    expect([e.tipo, e.parametro]).toEqual(['regla_de_negocio', parametro]);
  });

  it('se obtiene por id o por RFC; inexistente o ajena → organizacion_no_encontrada', async () => {
    const o = await s.organizaciones.crear(a, ORGANIZACION);
    expect(await s.organizaciones.obtener(a, ORGANIZACION.rfc)).toEqual(o);
    expect(await s.organizaciones.obtener(a, o.id)).toEqual(o);
    for (const [alc, id] of [
      [a, 'org_inexistente'],
      [alcance('cta_b'), o.id],
      [alcance('cta_a', 'live'), ORGANIZACION.rfc],
    ] as const) {
      const e = await errorNegocio(s.organizaciones.obtener(alc, id));
      expect([e.tipo, e.codigo, e.parametro]).toEqual(['no_encontrado', 'organizacion_no_encontrada', 'id']);
    }
  });

  it('actualizar valida el resultado completo y no escribe si falla', async () => {
    const o = await s.organizaciones.crear(a, ORGANIZACION);
    // 605 (sueldos) is a regime of personas físicas: wrong for this moral RFC.
    const e = await rechazoSinEscrituras(s.m, () =>
      s.organizaciones.actualizar(a, o.id, { regimen_fiscal: '605' }),
    );
    expect(e.parametro).toBe('regimen_fiscal');
    const cambiada = await s.organizaciones.actualizar(a, ORGANIZACION.rfc, { nombre: 'OTRO NOMBRE' });
    expect(cambiada).toMatchObject({ id: o.id, nombre: 'OTRO NOMBRE', rfc: ORGANIZACION.rfc });
  });

  it('muestra el certificado activo y lista de la más nueva a la más vieja', async () => {
    const ids = await sembrar(s, a);
    const otra = await s.organizaciones.crear(a, { ...ORGANIZACION, rfc: 'AAA010101AAA' });
    const p1 = await s.organizaciones.listar(a, { limite: 1 });
    expect(p1.hayMas).toBe(true);
    const p2 = await s.organizaciones.listar(a, { limite: 1, despuesDe: p1.datos[0]!.id });
    expect(p2.hayMas).toBe(false);
    const [primera, segunda] = [...p1.datos, ...p2.datos];
    expect([primera!.id, segunda!.id]).toEqual([otra.id, ids.org].sort().reverse());
    const conCsd = [primera, segunda].find((o) => o!.id === ids.org)!;
    expect(conCsd.certificado_activo).toEqual({
      id: ids.cert,
      no_certificado: CSD_VALIDO.noCertificado,
      valido_hasta: expect.stringMatching(/^2027-05-18T/),
    });
  });
});
