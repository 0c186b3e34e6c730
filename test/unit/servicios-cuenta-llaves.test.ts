import { hashLlave } from '../../seguridad/llaves-api';
import { alcance, nuevaCuenta } from '../support/memoria';
import { tablaCertificados } from '../support/memoria/certificados';
import {
  AHORA,
  crearServiciosEnMemoria,
  errorNegocio,
  rechazoSinEscrituras,
  sembrar,
  type ServiciosEnMemoria,
} from '../support/memoria/servicios';

const a = alcance();
const ONBOARDING = {
  razon_social: 'ESCUELA KEMPER URGATE SA DE CV',
  rfc: 'EKU9003173C9',
  correo: 'pagos@example.com',
  acepta_terminos: true,
};
const DIA = 86_400_000;
let s: ServiciosEnMemoria;

beforeEach(() => {
  s = crearServiciosEnMemoria();
  nuevaCuenta(s.m.almacen, a.cuentaId, AHORA);
});

/** Turns the account's test CSD into one a production CA issued, valid or not at AHORA. */
async function csdDeProduccion(validoHasta = new Date(AHORA.getTime() + DIA)) {
  const { cert } = await sembrar(s, a);
  tablaCertificados(s.m.almacen).cambiar(cert!, { de_prueba: false, valido_hasta: validoHasta });
  return cert!;
}

describe('cuenta', () => {
  it('una cuenta nueva: onboarding incompleto con lo que falta y sin modo live', async () => {
    expect(await s.cuenta.obtener(a)).toMatchObject({
      id: a.cuentaId,
      objeto: 'cuenta',
      onboarding: { completo: false, faltantes: ['razon_social', 'rfc', 'correo', 'acepta_terminos'] },
      live_habilitado: false,
    });
  });

  it('una cuenta que ya no existe → la llave no es válida', async () => {
    const e = await errorNegocio(s.cuenta.obtener(alcance('cta_borrada')));
    expect([e.tipo, e.codigo]).toEqual(['autenticacion', 'llave_invalida']);
  });

  it('rechazar los términos → terminos_no_aceptados sin guardar nada', async () => {
    const e = await rechazoSinEscrituras(s.m, () =>
      s.cuenta.completarOnboarding(a, { ...ONBOARDING, acepta_terminos: false }),
    );
    expect([e.tipo, e.codigo, e.parametro]).toEqual([
      'regla_de_negocio',
      'terminos_no_aceptados',
      'acepta_terminos',
    ]);
  });

  it('onboarding completo no basta para live: falta un CSD de producción activo y vigente', async () => {
    const c = await s.cuenta.completarOnboarding(a, ONBOARDING);
    expect(c.onboarding).toEqual({ completo: true, faltantes: [] });
    expect(c.live_habilitado).toBe(false);
    const cert = await csdDeProduccion();
    expect(await s.cuenta.liveHabilitado(a.cuentaId)).toBe(true);
    await s.certificados.cambiarActivo(a, cert, false);
    expect(await s.cuenta.liveHabilitado(a.cuentaId)).toBe(false);
  });

  it('un CSD de producción vencido no habilita live', async () => {
    await s.cuenta.completarOnboarding(a, ONBOARDING);
    await csdDeProduccion(new Date(AHORA.getTime() - DIA));
    expect((await s.cuenta.obtener(a)).live_habilitado).toBe(false);
  });

  it('actualizar cambia solo lo enviado', async () => {
    await s.cuenta.completarOnboarding(a, ONBOARDING);
    const c = await s.cuenta.actualizar(a, { telefono: '5555555555' });
    expect(c).toMatchObject({
      telefono: '5555555555',
      correo: ONBOARDING.correo,
      onboarding: { completo: true },
    });
  });
});

describe('llaves', () => {
  it('el secreto sale una sola vez; se guarda su hash y la lista no lo muestra', async () => {
    const l = await s.llaves.crear(a, { nombre: 'CI', modo: 'test' });
    expect(l.secreto).toMatch(/^sk_test_/);
    expect(l.secreto.startsWith(l.prefijo)).toBe(true);
    expect((await s.m.llaves.activaPorHash(hashLlave(l.secreto)))?.id).toBe(l.id);
    const { datos } = await s.llaves.listar(a, { limite: 10 });
    const { secreto: _secreto, ...sinSecreto } = l;
    expect(datos).toEqual([sinSecreto]);
  });

  it('una llave test no crea llaves live, ni con el modo live habilitado → modo_no_permitido', async () => {
    for (const habilitar of [false, true]) {
      if (habilitar) {
        await s.cuenta.completarOnboarding(a, ONBOARDING);
        await csdDeProduccion();
      }
      const e = await rechazoSinEscrituras(s.m, () => s.llaves.crear(a, { nombre: 'prod', modo: 'live' }));
      expect([e.tipo, e.codigo, e.parametro]).toEqual(['permiso', 'modo_no_permitido', 'modo']);
      expect(e.message).toContain('operador');
    }
  });

  it('el operador no emite una llave live sin modo live habilitado → modo_live_bloqueado', async () => {
    const e = await rechazoSinEscrituras(s.m, () =>
      s.llaves.crearPorOperador(a.cuentaId, { nombre: 'prod', modo: 'live' }),
    );
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['permiso', 'modo_live_bloqueado', 'modo']);
  });

  it('con live habilitado el operador emite la primera llave live y con ella se crean más', async () => {
    await s.cuenta.completarOnboarding(a, ONBOARDING);
    await csdDeProduccion();
    const l = await s.llaves.crearPorOperador(a.cuentaId, { nombre: 'prod', modo: 'live' });
    expect([l.modo, l.secreto.startsWith('sk_live_')]).toEqual(['live', true]);
    const live = alcance(a.cuentaId, 'live');
    for (const modo of ['live', 'test'] as const)
      expect((await s.llaves.crear(live, { nombre: modo, modo })).modo).toBe(modo);
  });

  it('una llave live sigue sujeta al bloqueo: sin modo live habilitado no crea otra live', async () => {
    const e = await rechazoSinEscrituras(s.m, () =>
      s.llaves.crear(alcance(a.cuentaId, 'live'), { nombre: 'prod', modo: 'live' }),
    );
    expect(e.codigo).toBe('modo_live_bloqueado');
  });

  it('una llave test no ve ni revoca llaves live (404); una live ve y revoca las de ambos modos', async () => {
    await s.cuenta.completarOnboarding(a, ONBOARDING);
    await csdDeProduccion();
    const live = alcance(a.cuentaId, 'live');
    const deLive = await s.llaves.crear(live, { nombre: 'live', modo: 'live' });
    const deTest = await s.llaves.crear(a, { nombre: 'test', modo: 'test' });
    expect((await s.llaves.listar(a, { limite: 10 })).datos.map((l) => l.id)).toEqual([deTest.id]);
    const e = await errorNegocio(s.llaves.revocar(a, deLive.id));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['no_encontrado', 'llave_no_encontrada', 'id']);
    expect(await s.m.llaves.activaPorHash(hashLlave(deLive.secreto))).toBeDefined();
    const ids = (await s.llaves.listar(live, { limite: 10 })).datos.map((l) => l.id);
    expect(ids.sort()).toEqual([deTest.id, deLive.id].sort());
    expect((await s.llaves.revocar(live, deTest.id)).revocada_en).not.toBeNull();
    expect((await s.llaves.revocar(live, deLive.id)).revocada_en).not.toBeNull();
  });

  it('revocada deja de autenticar; revocar otra vez no cambia la fecha; otra cuenta no la ve', async () => {
    const l = await s.llaves.crear(a, { nombre: 'CI', modo: 'test' });
    const r = await s.llaves.revocar(a, l.id);
    expect(r.revocada_en).toBe(AHORA.toISOString());
    expect(await s.m.llaves.activaPorHash(hashLlave(l.secreto))).toBeUndefined();
    s.reloj.ahora = new Date(AHORA.getTime() + DIA);
    expect(await s.llaves.revocar(a, l.id)).toEqual(r);
    const e = await errorNegocio(s.llaves.revocar(alcance('cta_b'), l.id));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['no_encontrado', 'llave_no_encontrada', 'id']);
  });

  it('una llave live lista las de ambos modos de la cuenta, de la más nueva a la más vieja', async () => {
    await s.cuenta.completarOnboarding(a, ONBOARDING);
    await csdDeProduccion();
    const creadas = [];
    for (const modo of ['test', 'live', 'test'] as const)
      creadas.push((await s.llaves.crear(alcance('cta_a', 'live'), { nombre: modo, modo })).id);
    await s.llaves.crear(alcance('cta_b'), { nombre: 'ajena', modo: 'test' });
    const p1 = await s.llaves.listar(alcance('cta_a', 'live'), { limite: 2 });
    const p2 = await s.llaves.listar(alcance('cta_a', 'live'), { limite: 2, despuesDe: p1.datos.at(-1)!.id });
    expect([p1.hayMas, p2.hayMas]).toEqual([true, false]);
    expect([...p1.datos, ...p2.datos].map((l) => l.id)).toEqual([...creadas].sort().reverse());
  });
});
