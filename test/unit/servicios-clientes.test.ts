import { CLIENTE, ORGANIZACION } from '../support/cuentas';
import { alcance } from '../support/memoria';
import { entornoConOrganizacion, errorNegocio, rechazoSinEscrituras } from '../support/memoria/servicios';

const a = alcance();
const x = entornoConOrganizacion();

const crear = (extra: Record<string, string> = {}) =>
  x.s.clientes.crear(a, { ...CLIENTE, organizacion: x.org, ...extra });

const PUBLICO = {
  rfc: 'XAXX010101000',
  nombre: 'PUBLICO EN GENERAL',
  regimen_fiscal: '616',
  domicilio_fiscal: '42501',
  uso_cfdi: 'S01',
};

describe('clientes', () => {
  it('crea con su organización (por RFC), persona y sin advertencias', async () => {
    const c = await x.s.clientes.crear(a, { ...CLIENTE, organizacion: ORGANIZACION.rfc });
    expect(c).toMatchObject({
      ...CLIENTE,
      organizacion: x.org,
      persona: 'fisica',
      correo: null,
      advertencias: [],
    });
  });

  it('organización desconocida → organizacion_no_encontrada en organizacion', async () => {
    const e = await rechazoSinEscrituras(x.s.m, () =>
      x.s.clientes.crear(a, { ...CLIENTE, organizacion: 'org_x' }),
    );
    expect([e.codigo, e.parametro]).toEqual(['organizacion_no_encontrada', 'organizacion']);
  });

  it('un RFC activo por organización → cliente_duplicado; los genéricos se repiten', async () => {
    await crear();
    const e = await rechazoSinEscrituras(x.s.m, () => crear({ nombre: 'OTRA' }));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'cliente_duplicado', 'rfc']);
    await x.s.clientes.crear(a, { ...PUBLICO, organizacion: x.org });
    await x.s.clientes.crear(a, { ...PUBLICO, organizacion: x.org });
  });

  it('el mismo RFC en otra organización es otro cliente', async () => {
    await crear();
    const otra = await x.s.organizaciones.crear(a, { ...ORGANIZACION, rfc: 'AAA010101AAA' });
    const c = await x.s.clientes.crear(a, { ...CLIENTE, organizacion: otra.id });
    expect(c.organizacion).toBe(otra.id);
  });

  it('eliminado desaparece de toda lectura y su RFC puede usarse de nuevo', async () => {
    const c = await crear();
    expect(await x.s.clientes.eliminar(a, c.id)).toEqual({ id: c.id, objeto: 'cliente', eliminado: true });
    for (const op of [() => x.s.clientes.obtener(a, c.id), () => x.s.clientes.eliminar(a, c.id)]) {
      const e = await errorNegocio(op());
      expect([e.tipo, e.codigo, e.parametro]).toEqual(['no_encontrado', 'cliente_no_encontrado', 'id']);
    }
    expect((await x.s.clientes.listar(a, {}, { limite: 10 })).datos).toEqual([]);
    expect((await crear()).id).not.toBe(c.id);
  });

  it('cambiar el RFC al de otro cliente → cliente_duplicado sin escribir', async () => {
    await crear();
    const otro = await crear({ rfc: 'XIQB891116QE4', nombre: 'OTRO' });
    const e = await rechazoSinEscrituras(x.s.m, () =>
      x.s.clientes.actualizar(a, otro.id, { rfc: CLIENTE.rfc }),
    );
    expect(e.codigo).toBe('cliente_duplicado');
  });

  it('datos fiscales inválidos se rechazan al crear y al actualizar', async () => {
    const e1 = await rechazoSinEscrituras(x.s.m, () => crear({ domicilio_fiscal: '00000' }));
    expect([e1.tipo, e1.parametro]).toEqual(['regla_de_negocio', 'domicilio_fiscal']);
    const c = await crear();
    const e2 = await rechazoSinEscrituras(x.s.m, () => x.s.clientes.actualizar(a, c.id, { uso_cfdi: 'ZZZ' }));
    expect(e2.parametro).toBe('uso_cfdi');
  });

  it('un uso de CFDI incompatible con el régimen se guarda con una advertencia', async () => {
    const c = await crear({ uso_cfdi: 'CN01' });
    expect(c.advertencias.map((w) => w.codigo)).toEqual(['uso_cfdi_incompatible']);
    expect((await x.s.clientes.actualizar(a, c.id, { uso_cfdi: 'G03' })).advertencias).toEqual([]);
  });

  it('lista por organización y por texto en RFC o nombre, sin ver otras cuentas', async () => {
    const maria = await crear();
    const otro = await crear({ rfc: 'XIQB891116QE4', nombre: 'JUAN PEREZ' });
    await x.s.organizaciones.crear(alcance('cta_b'), ORGANIZACION);
    await x.s.clientes.crear(alcance('cta_b'), { ...CLIENTE, organizacion: ORGANIZACION.rfc });
    const lista = async (f: { organizacion?: string; q?: string }) =>
      (await x.s.clientes.listar(a, f, { limite: 10 })).datos.map((c) => c.id);
    expect(await lista({})).toEqual([maria.id, otro.id].sort().reverse());
    expect(await lista({ q: 'perez' })).toEqual([otro.id]);
    expect(await lista({ q: 'maso45', organizacion: ORGANIZACION.rfc })).toEqual([maria.id]);
    const e = await errorNegocio(x.s.clientes.listar(a, { organizacion: 'AAA010101AAA' }, { limite: 10 }));
    expect([e.codigo, e.parametro]).toEqual(['organizacion_no_encontrada', 'organizacion']);
  });
});
