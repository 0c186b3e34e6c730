import type { Modo } from '../../dominio/alcance';
import { ErrorPacConfiguracion, ErrorPacTransitorio } from '../../pac/puerto';
import type { ConceptoNuevo, FacturaNueva } from '../../servicios/facturas/armar';
import { CLIENTE, ORGANIZACION } from '../support/cuentas';
import { alcance, tablaFacturas } from '../support/memoria';
import {
  crearServiciosEnMemoria,
  errorNegocio,
  rechazoSinEscrituras,
  sembrar,
  solicitudFactura,
  type ServiciosEnMemoria,
} from '../support/memoria/servicios';

const a = alcance();
let s: ServiciosEnMemoria;
let ids: Awaited<ReturnType<typeof sembrar>>;
// Taken away by the tests of live mode without a PAC.
let sinPac: Modo[];

const nueva = (extra: Partial<FacturaNueva> = {}) => solicitudFactura(ids, extra);

const CONCEPTO_LIBRE = {
  cantidad: '1',
  clave_prod_serv: '43211914',
  clave_unidad: 'H87',
  descripcion: 'Pantalla',
  valor_unitario: '100.00',
  objeto_imp: '01',
} satisfies ConceptoNuevo;

/** A second organization of the same account and mode. */
const otraOrganizacion = () =>
  s.organizaciones.crear(a, {
    rfc: 'AAA010101AAA',
    nombre: 'OTRA EMPRESA',
    regimen_fiscal: '601',
    codigo_postal: '42501',
  });

const borrador = async (extra: Partial<FacturaNueva> = {}) =>
  (await s.facturas.crear(a, nueva({ auto_timbrar: false, ...extra }))).factura;

const timbrada = async (extra: Partial<FacturaNueva> = {}) => {
  const r = await s.facturas.crear(a, nueva(extra));
  expect(r.factura.estado).toBe('timbrada');
  return r.factura;
};

const eventos = async (tipo?: string) =>
  (await s.eventos.listar(a, { tipo }, { limite: 100 })).datos.map((e) => ({ tipo: e.tipo, datos: e.datos }));

beforeEach(async () => {
  sinPac = [];
  s = crearServiciosEnMemoria({ sinPacEn: sinPac });
  ids = await sembrar(s, a);
});

describe('facturas.crear: rechazos antes de escribir nada', () => {
  it('organización desconocida → organizacion_no_encontrada en organizacion', async () => {
    const e = await rechazoSinEscrituras(s.m, () =>
      s.facturas.crear(a, nueva({ organizacion: 'org_inexistente' })),
    );
    expect([e.tipo, e.codigo, e.parametro]).toEqual([
      'no_encontrado',
      'organizacion_no_encontrada',
      'organizacion',
    ]);
    expect(s.timbrador.llamadas).toHaveLength(0);
  });

  it('la organización de otra cuenta o de otro modo no existe', async () => {
    for (const otro of [alcance('cta_b'), alcance('cta_a', 'live')]) {
      const e = await rechazoSinEscrituras(s.m, () => s.facturas.crear(otro, nueva()));
      expect(e.codigo).toBe('organizacion_no_encontrada');
    }
  });

  it('cliente desconocido, por RFC o por id → cliente_no_encontrado en cliente', async () => {
    for (const cliente of ['XIQB891116QE4', 'cli_inexistente']) {
      const e = await rechazoSinEscrituras(s.m, () => s.facturas.crear(a, nueva({ cliente })));
      expect([e.tipo, e.codigo, e.parametro]).toEqual(['no_encontrado', 'cliente_no_encontrado', 'cliente']);
    }
  });

  it('un cliente de otra organización no se encuentra por su id', async () => {
    const otra = await otraOrganizacion();
    const e = await rechazoSinEscrituras(s.m, () =>
      s.facturas.crear(a, nueva({ organizacion: otra.id, cliente: ids.cli })),
    );
    expect(e.codigo).toBe('cliente_no_encontrado');
  });

  it('un RFC genérico con dos clientes es ambiguo: se pide el id', async () => {
    const generico = {
      organizacion: ids.org,
      rfc: 'XAXX010101000',
      regimen_fiscal: '616',
      domicilio_fiscal: '42501',
      uso_cfdi: 'S01',
    };
    await s.clientes.crear(a, { ...generico, nombre: 'PUBLICO EN GENERAL' });
    const segundo = await s.clientes.crear(a, { ...generico, nombre: 'PUBLICO EN GENERAL' });
    const e = await rechazoSinEscrituras(s.m, () => s.facturas.crear(a, nueva({ cliente: 'xaxx010101000' })));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['regla_de_negocio', 'cliente_ambiguo', 'cliente']);
    // Naming one of them by id is how the integrator resolves it.
    const r = await s.facturas.crear(a, nueva({ cliente: segundo.id, auto_timbrar: false }));
    expect(r.factura.cliente.id).toBe(segundo.id);
  });

  it('producto desconocido → producto_no_encontrado en su concepto', async () => {
    const e = await rechazoSinEscrituras(s.m, () =>
      s.facturas.crear(a, nueva({ conceptos: [CONCEPTO_LIBRE, { producto: 'prod_x', cantidad: 1 }] })),
    );
    expect([e.codigo, e.parametro]).toEqual(['producto_no_encontrado', 'conceptos[1].producto']);
  });

  it('un producto eliminado ya no se factura', async () => {
    await s.productos.eliminar(a, ids.prod);
    const e = await rechazoSinEscrituras(s.m, () => s.facturas.crear(a, nueva()));
    expect(e.codigo).toBe('producto_no_encontrado');
  });

  it('producto de otra organización de la cuenta → producto_de_otra_organizacion', async () => {
    const otra = await otraOrganizacion();
    const ajeno = await s.productos.crear(a, { ...CONCEPTO_LIBRE, organizacion: otra.id });
    const e = await rechazoSinEscrituras(s.m, () =>
      s.facturas.crear(a, nueva({ conceptos: [{ producto: ajeno.id, cantidad: 1 }] })),
    );
    expect([e.tipo, e.codigo, e.parametro]).toEqual([
      'regla_de_negocio',
      'producto_de_otra_organizacion',
      'conceptos[0].producto',
    ]);
  });

  it.each([['0'], ['-1'], ['1.1234567'], ['abc'], [0], [' ']])(
    'cantidad %p no es un decimal positivo → parametro_invalido',
    async (cantidad) => {
      const e = await rechazoSinEscrituras(s.m, () =>
        s.facturas.crear(a, nueva({ conceptos: [{ producto: ids.prod, cantidad }] })),
      );
      expect([e.tipo, e.codigo, e.parametro]).toEqual([
        'solicitud_invalida',
        'parametro_invalido',
        'conceptos[0].cantidad',
      ]);
    },
  );

  it('un concepto sin producto exige sus campos', async () => {
    const { clave_unidad: _u, ...incompleto } = CONCEPTO_LIBRE;
    const e = await rechazoSinEscrituras(s.m, () => s.facturas.crear(a, nueva({ conceptos: [incompleto] })));
    expect([e.codigo, e.parametro]).toEqual(['concepto_incompleto', 'conceptos[0].clave_unidad']);
  });

  it('una clave fuera del catálogo es una violación fiscal de su concepto', async () => {
    const e = await rechazoSinEscrituras(s.m, () =>
      s.facturas.crear(a, nueva({ conceptos: [{ ...CONCEPTO_LIBRE, clave_prod_serv: '99999999' }] })),
    );
    expect([e.tipo, e.codigo, e.parametro]).toEqual([
      'regla_de_negocio',
      'clave_prod_serv_invalida',
      'conceptos[0].clave_prod_serv',
    ]);
  });

  it('las violaciones de todos los conceptos se informan juntas', async () => {
    const e = await errorNegocio(
      s.facturas.crear(
        a,
        nueva({
          conceptos: [
            { ...CONCEPTO_LIBRE, clave_prod_serv: '99999999' },
            { ...CONCEPTO_LIBRE, clave_unidad: 'ZZZ' },
          ],
        }),
      ),
    );
    expect(e.parametro).toBe('conceptos[0].clave_prod_serv');
    expect(e.message).toContain('ZZZ');
  });

  it.each<[string, string, string, Partial<FacturaNueva>]>([
    ['moneda fuera de c_Moneda', 'moneda_invalida', 'moneda', { moneda: 'ABC' }],
    ['moneda extranjera sin tipo de cambio', 'tipo_cambio_requerido', 'tipo_cambio', { moneda: 'USD' }],
    [
      'PPD con forma de pago definida',
      'forma_pago_invalida',
      'forma_pago',
      { metodo_pago: 'PPD', forma_pago: '03' },
    ],
    ['PUE sin forma de pago', 'forma_pago_requerida', 'forma_pago', { forma_pago: undefined }],
    [
      'lugar de expedición inexistente',
      'codigo_postal_invalido',
      'lugar_expedicion',
      { lugar_expedicion: '00000' },
    ],
  ])('%s → %s', async (_caso, codigo, parametro, extra) => {
    const e = await rechazoSinEscrituras(s.m, () => s.facturas.crear(a, nueva(extra)));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['solicitud_invalida', codigo, parametro]);
  });

  it('en modo live sin PAC no se guarda nada y no se pide el timbrado', async () => {
    const live = alcance('cta_a', 'live');
    const l = await sembrar(s, live, { certificado: false });
    sinPac.push('live');
    const e = await rechazoSinEscrituras(s.m, () =>
      s.facturas.crear(live, nueva({ organizacion: l.org, conceptos: [{ producto: l.prod, cantidad: 1 }] })),
    );
    expect([e.tipo, e.codigo]).toEqual(['servicio_no_disponible', 'pac_no_disponible']);
    expect(s.timbrador.llamadas).toHaveLength(0);
    // A draft needs no PAC.
    const r = await s.facturas.crear(
      live,
      nueva({ organizacion: l.org, conceptos: [{ producto: l.prod, cantidad: 1 }], auto_timbrar: false }),
    );
    expect(r.factura.modo).toBe('live');
  });

  it('si el evento no se puede escribir, ni la factura ni el folio quedan', async () => {
    const antes = s.m.almacen.volcado();
    jest.spyOn(s.m.eventos, 'registrar').mockRejectedValueOnce(new Error('disco lleno'));
    await expect(borrador()).rejects.toThrow('disco lleno');
    expect(s.m.almacen.volcado()).toBe(antes);
    expect((await borrador()).folio).toBe('1');
  });
});

describe('facturas.crear: resultados', () => {
  it('auto_timbrar false: un borrador, completo, con su evento factura.creada y sin timbrado', async () => {
    const r = await s.facturas.crear(a, nueva({ auto_timbrar: false }));
    expect(r.pendiente).toBe(false);
    expect(r.factura).toMatchObject({
      estado: 'borrador',
      timbrado: { estado: 'no_solicitado', intentos: 0 },
    });
    expect(await eventos()).toEqual([{ tipo: 'factura.creada', datos: r.factura }]);
    expect(s.timbrador.llamadas).toHaveLength(0);
  });

  it('timbrada dentro de la espera → pendiente false, con UUID y sin evento factura.creada', async () => {
    const r = await s.facturas.crear(a, nueva());
    expect(r.pendiente).toBe(false);
    expect(r.factura.estado).toBe('timbrada');
    expect(r.factura.uuid).toMatch(/^[0-9A-F-]{36}$/);
    expect(s.timbrador.llamadas).toEqual([
      { alcance: a, factura: { id: r.factura.id, organizacionId: ids.org } },
    ]);
    expect(await eventos('factura.creada')).toEqual([]);
  });

  it('el timbrado sigue en curso → pendiente true, borrador con timbrado pendiente', async () => {
    s.timbrador.desenlace('pendiente');
    const r = await s.facturas.crear(a, nueva());
    expect(r.pendiente).toBe(true);
    expect(r.factura).toMatchObject({ estado: 'borrador', timbrado: { estado: 'pendiente' } });
  });

  it('rechazado → timbrado_rechazado con el código del SAT y la factura, que queda como borrador', async () => {
    s.timbrador.desenlace({ rechazo: { codigo: 'CFDI40145', mensaje: 'El RFC del receptor no existe.' } });
    const e = await errorNegocio(s.facturas.crear(a, nueva()));
    expect([e.tipo, e.codigo]).toEqual(['regla_de_negocio', 'timbrado_rechazado']);
    expect(e.message).toContain('CFDI40145');
    const f = await s.facturas.obtener(a, e.detalle.factura!);
    expect(f).toMatchObject({
      estado: 'borrador',
      timbrado: { estado: 'fallido', ultimo_error: { codigo: 'CFDI40145' } },
    });
  });

  it('folio automático consecutivo por organización y serie; un folio explícito se respeta', async () => {
    const folios = [];
    for (const serie of ['A', 'A', 'B', undefined, 'A']) folios.push((await borrador({ serie })).folio);
    expect(folios).toEqual(['1', '2', '1', '1', '3']);
    expect((await borrador({ serie: 'A', folio: 'X-9' })).folio).toBe('X-9');
    expect((await borrador({ serie: 'A' })).folio).toBe('4');
  });

  it('cliente por RFC en minúsculas o por id: la factura guarda su copia', async () => {
    const porRfc = await borrador({ cliente: CLIENTE.rfc.toLowerCase() });
    const porId = await borrador({ cliente: ids.cli });
    expect(porRfc.cliente).toEqual(porId.cliente);
    expect(porRfc.cliente).toMatchObject({ id: ids.cli, rfc: CLIENTE.rfc, nombre: CLIENTE.nombre });
  });

  it('otra cuenta u otro modo no ven la factura', async () => {
    const f = await borrador();
    for (const otro of [alcance('cta_b'), alcance('cta_a', 'live')]) {
      const e = await errorNegocio(s.facturas.obtener(otro, f.id));
      expect(e.codigo).toBe('factura_no_encontrada');
    }
  });
});

describe('facturas.timbrar', () => {
  it('factura inexistente → factura_no_encontrada', async () => {
    const e = await errorNegocio(s.facturas.timbrar(a, 'fac_inexistente'));
    expect([e.tipo, e.codigo]).toEqual(['no_encontrado', 'factura_no_encontrada']);
  });

  it('una factura timbrada no es borrador', async () => {
    const f = await timbrada();
    const e = await rechazoSinEscrituras(s.m, () => s.facturas.timbrar(a, f.id));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'factura_no_es_borrador', 'id']);
  });

  it('un borrador que ya se está timbrando → timbrado_en_curso, sin otro timbrado', async () => {
    s.timbrador.desenlace('pendiente');
    const { factura } = await s.facturas.crear(a, nueva());
    const e = await rechazoSinEscrituras(s.m, () => s.facturas.timbrar(a, factura.id));
    expect([e.tipo, e.codigo]).toEqual(['conflicto', 'timbrado_en_curso']);
    expect(s.timbrador.llamadas).toHaveLength(1);
  });

  it('un borrador se timbra: completo', async () => {
    const f = await borrador();
    const r = await s.facturas.timbrar(a, f.id);
    expect(r.pendiente).toBe(false);
    expect(r.factura.estado).toBe('timbrada');
  });

  it('sin PAC en el modo no se toca el borrador', async () => {
    const f = await borrador();
    sinPac.push('test');
    const e = await rechazoSinEscrituras(s.m, () => s.facturas.timbrar(a, f.id));
    expect(e.codigo).toBe('pac_no_disponible');
  });

  it('tras un rechazo, se timbra de nuevo con los datos actuales del cliente y del emisor', async () => {
    s.timbrador.desenlace({ rechazo: { codigo: 'CFDI40145', mensaje: 'Nombre del receptor.' } });
    const id = (await errorNegocio(s.facturas.crear(a, nueva()))).detalle.factura!;
    await s.clientes.actualizar(a, ids.cli, { nombre: 'MARIA OLIVIA MARTINEZ' });
    await s.organizaciones.actualizar(a, ids.org, { nombre: 'ESCUELA KEMPER URGATE SA' });
    s.timbrador.desenlace('pendiente');
    const r = await s.facturas.timbrar(a, id);
    expect(r.pendiente).toBe(true);
    expect(r.factura.timbrado).toEqual({ estado: 'pendiente', intentos: 0, ultimo_error: null });
    expect(r.factura.cliente.nombre).toBe('MARIA OLIVIA MARTINEZ');
    const doc = (await s.m.facturas.obtener(a, id))!.documento;
    expect(doc.entrada.receptor.nombre).toBe('MARIA OLIVIA MARTINEZ');
    expect(doc.entrada.emisor.nombre).toBe('ESCUELA KEMPER URGATE SA');
  });

  it('un cliente eliminado deja su copia en el borrador', async () => {
    const f = await borrador();
    await s.clientes.eliminar(a, ids.cli);
    const r = await s.facturas.timbrar(a, f.id);
    expect(r.factura.cliente).toEqual(f.cliente);
  });
});

describe('facturas.reintentarTimbrado', () => {
  it('un timbrado pendiente se reintenta ahora: el resultado como en timbrar', async () => {
    s.timbrador.desenlace('pendiente');
    const { factura } = await s.facturas.crear(a, nueva());
    const r = await s.facturas.reintentarTimbrado(a, factura.id);
    expect(r.pendiente).toBe(false);
    expect(r.factura).toMatchObject({ estado: 'timbrada', timbrado: { estado: 'timbrada' } });
    expect(s.timbrador.reintentos.map((l) => l.factura)).toEqual([
      { id: factura.id, organizacionId: ids.org, pagoId: undefined },
    ]);
  });

  it('sigue sin respuesta → pendiente, otra vez 202', async () => {
    s.timbrador.desenlace('pendiente');
    const { factura } = await s.facturas.crear(a, nueva());
    s.timbrador.desenlace('pendiente');
    const r = await s.facturas.reintentarTimbrado(a, factura.id);
    expect(r.pendiente).toBe(true);
    expect(r.factura.timbrado.estado).toBe('pendiente');
  });

  it('nada pendiente (borrador sin pedir, timbrada, fallida) → timbrado_no_pendiente, sin reintento', async () => {
    const sinPedir = await borrador();
    const hecha = await timbrada();
    s.timbrador.desenlace({ rechazo: { codigo: 'CFDI40161', mensaje: 'uso incompatible' } });
    const fallida = (await errorNegocio(s.facturas.crear(a, nueva()))).detalle.factura as string;
    for (const id of [sinPedir.id, hecha.id, fallida]) {
      const e = await rechazoSinEscrituras(s.m, () => s.facturas.reintentarTimbrado(a, id));
      expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'timbrado_no_pendiente', 'id']);
    }
    expect(s.timbrador.reintentos).toEqual([]);
  });

  it('la factura de otra cuenta u otro modo no existe', async () => {
    s.timbrador.desenlace('pendiente');
    const { factura } = await s.facturas.crear(a, nueva());
    for (const otro of [alcance('cta_b'), alcance('cta_a', 'live')]) {
      const e = await errorNegocio(s.facturas.reintentarTimbrado(otro, factura.id));
      expect(e.codigo).toBe('factura_no_encontrada');
    }
    expect(s.timbrador.reintentos).toEqual([]);
  });
});

describe('facturas.abandonarTimbrado', () => {
  it('un timbrado pendiente se abandona: fallido timbrado_abandonado, respondido como final', async () => {
    s.timbrador.desenlace('pendiente');
    const { factura } = await s.facturas.crear(a, nueva());
    const r = await s.facturas.abandonarTimbrado(a, factura.id);
    expect(r.pendiente).toBe(false);
    expect(r.factura).toMatchObject({
      estado: 'borrador',
      timbrado: { estado: 'fallido', ultimo_error: { codigo: 'timbrado_abandonado' } },
    });
    expect(s.timbrador.abandonos.map((l) => l.factura)).toEqual([
      { id: factura.id, organizacionId: ids.org },
    ]);
  });

  it('si el PAC ya lo había timbrado, responde la factura timbrada; si el abandono no termina, pendiente', async () => {
    s.timbrador.desenlace('pendiente', 'pendiente');
    const uno = (await s.facturas.crear(a, nueva())).factura;
    const dos = (await s.facturas.crear(a, nueva())).factura;
    s.timbrador.desenlaceAbandono('timbrada', 'pendiente');
    expect(await s.facturas.abandonarTimbrado(a, uno.id)).toMatchObject({
      pendiente: false,
      factura: { estado: 'timbrada' },
    });
    expect(await s.facturas.abandonarTimbrado(a, dos.id)).toMatchObject({
      pendiente: true,
      factura: { timbrado: { estado: 'pendiente' } },
    });
  });

  it('nada pendiente → 409 timbrado_no_pendiente; un CFDI de pago → 409 timbrado_no_abandonable; ajena → 404', async () => {
    const hecha = await timbrada();
    const e = await rechazoSinEscrituras(s.m, () => s.facturas.abandonarTimbrado(a, hecha.id));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'timbrado_no_pendiente', 'id']);
    s.timbrador.desenlace('pendiente');
    const { factura } = await s.facturas.crear(a, nueva());
    const f = tablaFacturas(s.m.almacen).buscar(factura.id)!;
    tablaFacturas(s.m.almacen).cambiar(factura.id, {
      documento: { ...f.documento, pago: { id: 'pago_1', complemento: {} as never } },
    });
    const p = await rechazoSinEscrituras(s.m, () => s.facturas.abandonarTimbrado(a, factura.id));
    expect([p.tipo, p.codigo]).toEqual(['conflicto', 'timbrado_no_abandonable']);
    expect(p.message).toContain(`POST /v1/facturas/${factura.id}/timbrado/reintentar`);
    for (const otro of [alcance('cta_b'), alcance('cta_a', 'live')]) {
      expect((await errorNegocio(s.facturas.abandonarTimbrado(otro, factura.id))).codigo).toBe(
        'factura_no_encontrada',
      );
    }
    expect(s.timbrador.abandonos).toEqual([]);
  });
});

describe('facturas.reintentarCancelacion', () => {
  it('una cancelación en curso se reintenta ahora y se responde como cancelar: cancelada o aún en curso', async () => {
    const f = await timbrada();
    s.cancelador.desenlace('sin_respuesta');
    expect((await s.facturas.cancelar(a, f.id, { motivo: '02' })).pendiente).toBe(true);
    s.cancelador.desenlace('en_proceso');
    const r1 = await s.facturas.reintentarCancelacion(a, f.id);
    expect([r1.pendiente, r1.factura.cancelacion?.estado]).toEqual([true, 'en_proceso']);
    const r2 = await s.facturas.reintentarCancelacion(a, f.id);
    expect([r2.pendiente, r2.factura.estado]).toEqual([false, 'cancelada']);
    expect(s.cancelador.reintentos.map((l) => l.factura)).toEqual([
      { id: f.id, organizacionId: ids.org },
      { id: f.id, organizacionId: ids.org },
    ]);
  });

  it('sin cancelación en curso → 409 cancelacion_no_pendiente; ajena → 404; nada se pide', async () => {
    const f = await timbrada();
    const e = await rechazoSinEscrituras(s.m, () => s.facturas.reintentarCancelacion(a, f.id));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'cancelacion_no_pendiente', 'id']);
    await s.facturas.cancelar(a, f.id, { motivo: '02' });
    const hecha = await rechazoSinEscrituras(s.m, () => s.facturas.reintentarCancelacion(a, f.id));
    expect(hecha.message).toContain('tiene su cancelación aceptada');
    const otro = await errorNegocio(s.facturas.reintentarCancelacion(alcance('cta_b'), f.id));
    expect(otro.codigo).toBe('factura_no_encontrada');
    expect(s.cancelador.reintentos).toEqual([]);
  });
});

describe('facturas.listar: timbrados pendientes y su antigüedad', () => {
  it('filtra por timbrado_estado y por fecha de creación', async () => {
    s.timbrador.desenlace('pendiente');
    const pendiente = (await s.facturas.crear(a, nueva())).factura;
    await timbrada();
    await borrador();
    const ids = async (f: Record<string, string>) =>
      (await s.facturas.listar(a, f, { limite: 100 })).datos.map((x) => x.id);
    expect(await ids({ timbrado_estado: 'pendiente' })).toEqual([pendiente.id]);
    const despues = new Date(Date.now() + 60_000).toISOString();
    const antes = new Date(Date.now() - 60_000).toISOString();
    expect(await ids({ timbrado_estado: 'pendiente', creada_antes: despues })).toEqual([pendiente.id]);
    expect(await ids({ timbrado_estado: 'pendiente', creada_antes: antes })).toEqual([]);
    expect(await ids({ timbrado_estado: 'pendiente', creada_desde: antes })).toEqual([pendiente.id]);
    expect(await ids({ creada_desde: despues })).toEqual([]);
  });
});

describe('facturas.cancelar', () => {
  it('motivo 01 sin uuid_sustitucion → solicitud inválida, antes de buscar la factura', async () => {
    const e = await rechazoSinEscrituras(s.m, () =>
      s.facturas.cancelar(a, 'fac_inexistente', { motivo: '01' }),
    );
    expect([e.tipo, e.codigo, e.parametro]).toEqual([
      'solicitud_invalida',
      'uuid_sustitucion_requerido',
      'uuid_sustitucion',
    ]);
  });

  it('uuid_sustitucion con un motivo que no sustituye → uuid_sustitucion_no_permitido', async () => {
    const f = await timbrada();
    const e = await rechazoSinEscrituras(s.m, () =>
      s.facturas.cancelar(a, f.id, { motivo: '02', uuid_sustitucion: f.uuid! }),
    );
    expect([e.tipo, e.codigo]).toEqual(['solicitud_invalida', 'uuid_sustitucion_no_permitido']);
  });

  it('factura inexistente → factura_no_encontrada', async () => {
    const e = await errorNegocio(s.facturas.cancelar(a, 'fac_inexistente', { motivo: '02' }));
    expect(e.codigo).toBe('factura_no_encontrada');
  });

  it('sin PAC en el modo no se solicita nada', async () => {
    const f = await timbrada();
    sinPac.push('test');
    const e = await rechazoSinEscrituras(s.m, () => s.facturas.cancelar(a, f.id, { motivo: '02' }));
    expect(e.codigo).toBe('pac_no_disponible');
    expect(s.cancelador.llamadas).toHaveLength(0);
  });

  it('un borrador o una factura ya cancelada no se cancelan → factura_no_timbrada', async () => {
    const b = await borrador();
    const c = await timbrada();
    await s.facturas.cancelar(a, c.id, { motivo: '02' });
    for (const id of [b.id, c.id]) {
      const e = await rechazoSinEscrituras(s.m, () => s.facturas.cancelar(a, id, { motivo: '02' }));
      expect([e.tipo, e.codigo]).toEqual(['conflicto', 'factura_no_timbrada']);
    }
  });

  it.each(['sin_respuesta', 'en_proceso'] as const)(
    'una cancelación %s está en curso: la segunda solicitud espera',
    async (desenlace) => {
      const f = await timbrada();
      s.cancelador.desenlace(desenlace);
      expect((await s.facturas.cancelar(a, f.id, { motivo: '02' })).pendiente).toBe(true);
      const e = await rechazoSinEscrituras(s.m, () => s.facturas.cancelar(a, f.id, { motivo: '03' }));
      expect([e.tipo, e.codigo]).toEqual(['conflicto', 'cancelacion_en_curso']);
      expect(s.cancelador.llamadas).toHaveLength(1);
    },
  );

  it('aceptada → pendiente false, factura cancelada con su motivo', async () => {
    const f = await timbrada();
    const r = await s.facturas.cancelar(a, f.id, { motivo: '02' });
    expect(r.pendiente).toBe(false);
    expect(r.factura.estado).toBe('cancelada');
    expect(r.factura.cancelacion).toMatchObject({ estado: 'aceptada', motivo: '02', uuid_sustitucion: null });
    expect(s.cancelador.llamadas).toEqual([{ alcance: a, factura: { id: f.id, organizacionId: ids.org } }]);
  });

  it('en proceso (espera al receptor) → pendiente true, factura aún timbrada', async () => {
    const f = await timbrada();
    s.cancelador.desenlace('en_proceso');
    const r = await s.facturas.cancelar(a, f.id, { motivo: '02' });
    expect(r.pendiente).toBe(true);
    expect(r.factura).toMatchObject({ estado: 'timbrada', cancelacion: { estado: 'en_proceso' } });
  });

  it('rechazada de inmediato → cancelacion_rechazada con el código y la factura; se puede pedir otra', async () => {
    const f = await timbrada();
    s.cancelador.desenlace({ rechazo: { codigo: '205', mensaje: 'UUID no encontrado.' } });
    const e = await errorNegocio(s.facturas.cancelar(a, f.id, { motivo: '02' }));
    expect([e.tipo, e.codigo, e.detalle.factura]).toEqual([
      'regla_de_negocio',
      'cancelacion_rechazada',
      f.id,
    ]);
    expect(e.message).toContain('205');
    const r = await s.facturas.cancelar(a, f.id, { motivo: '02' });
    expect(r.factura.estado).toBe('cancelada');
  });

  describe('sustitución (motivo 01)', () => {
    it('una sustituta que no relaciona la factura con tipo 04 no vale', async () => {
      const original = await timbrada();
      const sinRelacion = await timbrada();
      const otraRelacion = await timbrada({ relaciones: [{ tipo_relacion: '01', uuids: [original.uuid!] }] });
      for (const uuid of ['00000000-0000-4000-8000-000000000000', sinRelacion.uuid!, otraRelacion.uuid!]) {
        const e = await rechazoSinEscrituras(s.m, () =>
          s.facturas.cancelar(a, original.id, { motivo: '01', uuid_sustitucion: uuid }),
        );
        expect([e.tipo, e.codigo, e.parametro]).toEqual([
          'regla_de_negocio',
          'sustitucion_invalida',
          'uuid_sustitucion',
        ]);
      }
    });

    it('una sustituta en borrador no vale aunque relacione', async () => {
      const original = await timbrada();
      s.timbrador.desenlace('pendiente');
      await s.facturas.crear(a, nueva({ relaciones: [{ tipo_relacion: '04', uuids: [original.uuid!] }] }));
      const e = await errorNegocio(
        s.facturas.cancelar(a, original.id, { motivo: '01', uuid_sustitucion: original.uuid! }),
      );
      expect(e.codigo).toBe('sustitucion_invalida');
    });

    it('una sustituta timbrada que relaciona con 04 (UUID en cualquier caja) se acepta', async () => {
      const original = await timbrada();
      const sustituta = await timbrada({
        relaciones: [{ tipo_relacion: '04', uuids: [original.uuid!.toLowerCase()] }],
      });
      const r = await s.facturas.cancelar(a, original.id, {
        motivo: '01',
        uuid_sustitucion: sustituta.uuid!.toLowerCase(),
      });
      expect(r.factura.cancelacion).toMatchObject({ motivo: '01', uuid_sustitucion: sustituta.uuid });
    });
  });
});

describe('facturas.xml y facturas.pdf', () => {
  it('inexistentes → factura_no_encontrada', async () => {
    for (const leer of [s.facturas.xml, s.facturas.pdf]) {
      expect((await errorNegocio(leer(a, 'fac_inexistente'))).codigo).toBe('factura_no_encontrada');
    }
  });

  it('de un borrador → factura_no_timbrada', async () => {
    const f = await borrador();
    for (const leer of [s.facturas.xml, s.facturas.pdf]) {
      const e = await errorNegocio(leer(a, f.id));
      expect([e.tipo, e.codigo]).toEqual(['conflicto', 'factura_no_timbrada']);
    }
    expect(s.timbrador.pdfsPedidos).toEqual([]);
  });

  it('timbrada sin PDF aún: la lectura lo pide al flujo del PDF y lo contesta en la misma solicitud', async () => {
    const f = await timbrada();
    expect(await s.facturas.xml(a, f.id)).toBe('<cfdi:Comprobante/>');
    const pdf = await s.facturas.pdf(a, f.id);
    expect(pdf.toString()).toBe(`%PDF-1.7 ${f.id}`);
    expect(s.timbrador.pdfsPedidos).toEqual([{ alcance: a, facturaId: f.id }]);
    // Stored: later reads come from storage, no second request.
    expect((await s.facturas.pdf(a, f.id)).equals(pdf)).toBe(true);
    expect(s.timbrador.pdfsPedidos).toHaveLength(1);
  });

  it('timbrada, con el render más lento que la espera → pdf_en_proceso con reintento', async () => {
    const f = await timbrada();
    s.timbrador.pdf.tarda = true;
    const e = await errorNegocio(s.facturas.pdf(a, f.id));
    expect([e.tipo, e.codigo]).toEqual(['conflicto', 'pdf_en_proceso']);
    expect(e.detalle.reintentarEnSegundos).toBeGreaterThan(0);
    await s.m.facturas.guardarPdf(a, f.id, Buffer.from('%PDF'));
    expect((await s.facturas.pdf(a, f.id)).toString()).toBe('%PDF');
  });
});

describe('facturas.acuse', () => {
  it('inexistente o de otra cuenta o modo → 404; sin cancelar (borrador, timbrada, cancelación en curso) → 409', async () => {
    const f = await timbrada();
    for (const [alc, id] of [
      [a, 'fac_inexistente'],
      [alcance('cta_b'), f.id],
      [alcance(a.cuentaId, 'live'), f.id],
    ] as const) {
      const e = await errorNegocio(s.facturas.acuse(alc, id));
      expect([e.tipo, e.codigo, e.parametro]).toEqual(['no_encontrado', 'factura_no_encontrada', 'id']);
    }
    const b = await borrador();
    s.cancelador.desenlace('en_proceso');
    await s.facturas.cancelar(a, f.id, { motivo: '02' });
    for (const id of [b.id, f.id]) {
      const e = await errorNegocio(s.facturas.acuse(a, id));
      expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'factura_no_cancelada', 'id']);
    }
    expect((await errorNegocio(s.facturas.acuse(a, f.id))).message).toContain('en_proceso');
  });
});

describe('facturas.estadoSat', () => {
  const consultar = (id: string) => s.facturas.estadoSat(a, id);

  it('pregunta al PAC con el UUID, los RFC y el total del CFDI, y responde los valores del SAT en snake_case', async () => {
    const f = await timbrada();
    s.pac.alConsultarEstatus({
      estado: 'Vigente',
      esCancelable: 'Cancelable sin aceptación',
      estatusCancelacion: '',
    });
    expect(await consultar(f.id)).toEqual({
      objeto: 'estado_sat',
      modo: 'test',
      factura: f.id,
      uuid: f.uuid,
      estado: 'vigente',
      es_cancelable: 'cancelable_sin_aceptacion',
      estatus_cancelacion: null,
      codigo_estatus: 'S - Comprobante obtenido satisfactoriamente.',
      consultado_en: s.reloj.ahora.toISOString(),
    });
    expect(s.pac.llamadas).toEqual([
      {
        metodo: 'estatusSat',
        consulta: { rfcEmisor: ORGANIZACION.rfc, rfcReceptor: CLIENTE.rfc, total: f.total, uuid: f.uuid },
      },
    ]);
  });

  it.each([
    [
      {
        estado: 'Cancelado',
        esCancelable: 'Cancelable con aceptación',
        estatusCancelacion: 'Cancelado con aceptación',
      },
      {
        estado: 'cancelado',
        es_cancelable: 'cancelable_con_aceptacion',
        estatus_cancelacion: 'cancelado_con_aceptacion',
      },
    ],
    [
      {
        estado: 'Cancelado',
        esCancelable: 'Cancelable sin aceptación',
        estatusCancelacion: 'Cancelado sin aceptación',
      },
      {
        estado: 'cancelado',
        es_cancelable: 'cancelable_sin_aceptacion',
        estatus_cancelacion: 'cancelado_sin_aceptacion',
      },
    ],
    [
      { estado: 'Cancelado', esCancelable: 'Cancelable con aceptación', estatusCancelacion: 'Plazo vencido' },
      {
        estado: 'cancelado',
        es_cancelable: 'cancelable_con_aceptacion',
        estatus_cancelacion: 'plazo_vencido',
      },
    ],
    [
      { estado: 'Vigente', esCancelable: 'Cancelable con aceptación', estatusCancelacion: 'En proceso' },
      { estado: 'vigente', es_cancelable: 'cancelable_con_aceptacion', estatus_cancelacion: 'en_proceso' },
    ],
    [
      { estado: 'Vigente', esCancelable: 'No cancelable', estatusCancelacion: 'Solicitud rechazada' },
      { estado: 'vigente', es_cancelable: 'no_cancelable', estatus_cancelacion: 'solicitud_rechazada' },
    ],
    [
      {
        estado: 'No Encontrado',
        esCancelable: '',
        estatusCancelacion: '',
        codigoEstatus: 'N - 602: Comprobante no encontrado.',
      },
      {
        estado: 'no_encontrado',
        es_cancelable: null,
        estatus_cancelacion: null,
        codigo_estatus: 'N - 602: Comprobante no encontrado.',
      },
    ],
  ] as const)('%j → %j', async (sat, api) => {
    const f = await timbrada();
    s.pac.alConsultarEstatus(sat);
    expect(await consultar(f.id)).toMatchObject(api);
  });

  it('sin UUID (borrador) → 409 factura_no_timbrada sin preguntar al PAC; inexistente o ajena → 404', async () => {
    const b = await borrador();
    const e = await errorNegocio(consultar(b.id));
    expect([e.tipo, e.codigo, e.parametro]).toEqual(['conflicto', 'factura_no_timbrada', 'id']);
    const f = await timbrada();
    for (const [alc, id] of [
      [a, 'fac_inexistente'],
      [alcance('cta_b'), f.id],
      [alcance(a.cuentaId, 'live'), f.id],
    ] as const) {
      expect((await errorNegocio(s.facturas.estadoSat(alc, id))).codigo).toBe('factura_no_encontrada');
    }
    expect(s.pac.llamadas).toEqual([]);
  });

  it('el PAC o el SAT no responden → 503 pac_no_disponible con reintento; sin escribir nada', async () => {
    const f = await timbrada();
    jest
      .spyOn(s.pac, 'estatusSat')
      .mockRejectedValueOnce(new ErrorPacTransitorio('get_sat_status: HTTP 502'));
    const e = await rechazoSinEscrituras(s.m, () => consultar(f.id));
    expect([e.tipo, e.codigo, e.detalle.reintentarEnSegundos]).toEqual([
      'servicio_no_disponible',
      'pac_no_disponible',
      5,
    ]);
    // The PAC's own words (hosts, status lines) stay out of the answer.
    expect(e.message).not.toContain('502');
  });

  it('credenciales del PAC rechazadas o modo sin PAC configurado → 503 pac_no_disponible sin reintento', async () => {
    const f = await timbrada();
    jest.spyOn(s.pac, 'estatusSat').mockRejectedValueOnce(new ErrorPacConfiguracion('usuario inválido'));
    const e = await errorNegocio(consultar(f.id));
    expect([e.tipo, e.codigo, e.detalle.reintentarEnSegundos]).toEqual([
      'servicio_no_disponible',
      'pac_no_disponible',
      undefined,
    ]);
    sinPac.push('test');
    const sin = await errorNegocio(consultar(f.id));
    expect([sin.tipo, sin.codigo, sin.detalle.reintentarEnSegundos]).toEqual([
      'servicio_no_disponible',
      'pac_no_disponible',
      undefined,
    ]);
    expect(sin.message).toContain('no tiene configurado un PAC');
  });

  it('otro error (no del PAC) no se disfraza de 503', async () => {
    const f = await timbrada();
    jest.spyOn(s.pac, 'estatusSat').mockRejectedValueOnce(new TypeError('x is undefined'));
    await expect(consultar(f.id)).rejects.toBeInstanceOf(TypeError);
  });
});

describe('facturas.listar', () => {
  it('filtra por organización (id o RFC), estado y tipo; organización desconocida → 404 del filtro', async () => {
    const b = await borrador();
    const t = await timbrada();
    const eg = await borrador({ tipo: 'egreso' });
    const ids_ = async (f: Parameters<ServiciosEnMemoria['facturas']['listar']>[1]) =>
      (await s.facturas.listar(a, f, { limite: 10 })).datos.map((x) => x.id).sort();
    expect(await ids_({ organizacion: 'EKU9003173C9' })).toEqual([b.id, t.id, eg.id].sort());
    expect(await ids_({ organizacion: ids.org, estado: 'timbrada' })).toEqual([t.id]);
    expect(await ids_({ tipo: 'egreso' })).toEqual([eg.id]);
    const e = await errorNegocio(s.facturas.listar(a, { organizacion: 'AAA010101AAA' }, { limite: 10 }));
    expect([e.codigo, e.parametro]).toEqual(['organizacion_no_encontrada', 'organizacion']);
  });

  it('cliente por id es ese cliente; por RFC, cualquiera con ese RFC en el alcance', async () => {
    const otra = await otraOrganizacion();
    const gemelo = await s.clientes.crear(a, { ...CLIENTE, organizacion: otra.id });
    const mia = await borrador();
    const suya = await borrador({
      organizacion: otra.id,
      cliente: gemelo.id,
      conceptos: [CONCEPTO_LIBRE],
    });
    const lista = async (cliente: string) =>
      (await s.facturas.listar(a, { cliente }, { limite: 10 })).datos.map((x) => x.id).sort();
    expect(await lista(ids.cli)).toEqual([mia.id]);
    expect(await lista(gemelo.id)).toEqual([suya.id]);
    expect(await lista(CLIENTE.rfc.toLowerCase())).toEqual([mia.id, suya.id].sort());
  });

  it('pagina de la más nueva a la más vieja con el cursor, sin repetir ni ver otras cuentas', async () => {
    const creadas = [];
    for (let i = 0; i < 5; i++) creadas.push((await borrador()).id);
    const ajena = await sembrar(s, alcance('cta_b'));
    await s.facturas.crear(
      alcance('cta_b'),
      nueva({
        organizacion: ajena.org,
        conceptos: [{ producto: ajena.prod, cantidad: 1 }],
        auto_timbrar: false,
      }),
    );
    const vistas: string[] = [];
    let despuesDe: string | undefined;
    for (;;) {
      const p = await s.facturas.listar(a, {}, { limite: 2, despuesDe });
      vistas.push(...p.datos.map((f) => f.id));
      if (!p.hayMas) break;
      despuesDe = p.datos.at(-1)!.id;
    }
    expect(vistas).toEqual([...creadas].sort().reverse());
  });
});
