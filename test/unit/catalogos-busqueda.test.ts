import {
  CatalogosEnMemoria,
  IndiceBusqueda,
  terminosDeBusqueda,
  type FilaBd,
} from '../../db/catalogos/memoria';

const HOY = '2026-11-23';

const prodServ = (id: string, descripcion: string, extra: FilaBd = {}): FilaBd => ({
  id,
  descripcion,
  palabras_similares: null,
  vigencia_desde: '2022-01-01',
  vigencia_hasta: null,
  ...extra,
});

const PROD_SERV: FilaBd[] = [
  prodServ('84111506', 'Servicios de facturación'),
  prodServ('84111500', 'Servicios contables', { palabras_similares: 'Honorarios contables' }),
  prodServ('84111503', 'Servicio de contabilidad fiscal'),
  prodServ('84111502', 'Servicio de contabilidad financiera'),
  prodServ('78141504', 'Refacturación y fletes manejados por proveedores o vendedores'),
  prodServ('50131700', 'Leche y mantequilla y queso'),
  prodServ('50131701', 'Leche de vaca'),
  prodServ('43211507', 'Computadoras de escritorio'),
  prodServ('43211508', 'Computadoras personales'),
  prodServ('56112000', 'Muebles de apoyo de la computadora'),
  prodServ('10101500', 'Animales vivos de granja'),
  prodServ('84110000', 'Servicios de contabilidad y auditoría'),
  prodServ('01010101', 'No existe en el catálogo'),
  prodServ('60105907', 'Materiales de enseñanza sobre el embarazo'),
  // Expired and not yet in force: invisible everywhere.
  prodServ('84111599', 'Facturación vencida', { vigencia_hasta: '2020-01-15' }),
  prodServ('84111598', 'Facturación futura', { vigencia_desde: '2027-01-01' }),
];

const catalogos = CatalogosEnMemoria.desdeFilas(
  {
    cat_clave_prod_serv: PROD_SERV,
    cat_clave_unidad: [
      { id: 'KGM', texto: 'Kilogramo', simbolo: 'kg', vigencia_hasta: null },
      { id: 'KGS', texto: 'Kilogramo por segundo', simbolo: null, vigencia_hasta: null },
      { id: 'H87', texto: 'Pieza', simbolo: null, vigencia_hasta: null },
      { id: 'A01', texto: 'Unidad kgm inicial', simbolo: null, vigencia_hasta: null },
      { id: 'A02', texto: 'Unidad con xkgm dentro', simbolo: null, vigencia_hasta: null },
      { id: 'A00', texto: 'kgm al principio', simbolo: null, vigencia_hasta: null },
      { id: 'KGMA', texto: 'Unidad de prueba', simbolo: null, vigencia_hasta: null },
      { id: 'B00', texto: 'Otra cosa', simbolo: null, vigencia_hasta: null },
    ],
    cat_codigo_postal: [
      { id: '06600', estado: 'DIF', municipio: '015', localidad: '06', huso_horario: 'Tiempo del Centro' },
      { id: '06601', estado: 'DIF', municipio: null, localidad: null, huso_horario: 'Tiempo del Centro' },
      {
        id: '22000',
        estado: 'BCN',
        municipio: '004',
        localidad: '04',
        huso_horario: 'Tiempo del Noroeste en Frontera',
      },
    ],
    cat_estado: [
      { estado: 'CMX', texto: 'Ciudad de México' },
      { estado: 'BCN', texto: 'Baja California' },
    ],
    cat_municipio: [
      { estado: 'CMX', municipio: '015', texto: 'Cuauhtémoc' },
      { estado: 'BCN', municipio: '004', texto: 'Tijuana' },
    ],
    cat_regimen_fiscal: [
      { id: '626', texto: 'Régimen Simplificado de Confianza', aplica_fisica: 1, aplica_moral: 1 },
      { id: '601', texto: 'General de Ley Personas Morales', aplica_fisica: 0, aplica_moral: 1 },
      { id: '999', texto: 'Vencido', aplica_fisica: 1, aplica_moral: 1, vigencia_hasta: '2026-11-22' },
      { id: '998', texto: 'Vence hoy', aplica_fisica: 1, aplica_moral: 1, vigencia_hasta: HOY },
    ],
    cat_uso_cfdi: [
      {
        id: 'G03',
        texto: 'Gastos en general.',
        aplica_fisica: 1,
        aplica_moral: 1,
        regimenes_fiscales_receptores: '601,603,606',
      },
    ],
    cat_forma_pago: [
      { id: '01', texto: 'Efectivo', es_bancarizado: 0 },
      { id: '03', texto: 'Transferencia electrónica de fondos', es_bancarizado: 1 },
    ],
    cat_metodo_pago: [
      { id: 'PUE', texto: 'Pago en una sola exhibición' },
      { id: 'PPD', texto: 'Pago en parcialidades o diferido' },
    ],
    cat_moneda: [
      { id: 'MXN', texto: 'Peso Mexicano', decimales: 2 },
      { id: 'JPY', texto: 'Yen', decimales: 0 },
    ],
    cat_exportacion: [{ id: '01', texto: 'No aplica' }],
    cat_objeto_imp: [{ id: '02', texto: 'Sí objeto de impuesto.' }],
    cat_tipo_relacion: [{ id: '04', texto: 'Sustitución de los CFDI previos' }],
    cat_tasa_o_cuota: [
      {
        id: 2,
        tipo: 'Fijo',
        minimo: null,
        valor: '0.160000',
        impuesto: 'IVA',
        factor: 'Tasa',
        traslado: 1,
        retencion: 0,
      },
      {
        id: 1,
        tipo: 'Rango',
        minimo: '0.000000',
        valor: '0.160000',
        impuesto: 'IVA',
        factor: 'Tasa',
        traslado: 0,
        retencion: 1,
      },
    ],
  },
  { hoy: HOY },
);

const claves = (registros: readonly { clave: string }[]) => registros.map((r) => r.clave);
const buscar = (q: string, limite?: number) => claves(catalogos.buscar('claves_prod_serv', q, limite));

describe('búsqueda en claves_prod_serv', () => {
  it('ignores accents and case on both sides', () => {
    for (const q of ['facturacion', 'FACTURACIÓN', 'Facturación', 'fácturacion']) {
      expect(buscar(q)).toEqual(['84111506', '78141504']);
    }
    // ñ folds to n, as in utf8mb4_unicode_ci.
    expect(buscar('ensenanza')).toEqual(['60105907']);
    expect(buscar('ENSEÑANZA')).toEqual(['60105907']);
  });

  it('requires every word, in any order', () => {
    expect(buscar('contabilidad fiscal')).toEqual(['84111503']);
    expect(buscar('fiscal contabilidad')).toEqual(['84111503']);
    expect(buscar('servicio contabilidad')).toEqual(['84110000', '84111502', '84111503']);
    expect(buscar('leche vaca')).toEqual(['50131701']);
    expect(buscar('leche perro')).toEqual([]);
  });

  it('matches a code by prefix and combines a code prefix with a word', () => {
    expect(buscar('8411150')).toEqual(['84111500', '84111502', '84111503', '84111506']);
    expect(buscar('8411 facturacion')).toEqual(['84111506']);
    // A digit inside a code is no match: codes match by prefix only.
    expect(buscar('1150')).toEqual([]);
  });

  it('orders: exact code, code prefix, word start in the description, the rest; each by code', () => {
    expect(buscar('84111500')).toEqual(['84111500']);
    // No code equals "8411": all five come from the prefix group, by code.
    expect(buscar('8411')).toEqual(['84110000', '84111500', '84111502', '84111503', '84111506']);
    // Inside a word only: the last group, by code.
    expect(buscar('putadora')).toEqual(['43211507', '43211508', '56112000']);
    // Word start (Facturación in 84111506) before substring (Refacturación in 78141504), although 78… < 84….
    expect(buscar('factura')).toEqual(['84111506', '78141504']);
  });

  it('orders the four groups in a unit catalog', () => {
    expect(claves(catalogos.buscar('claves_unidad', 'kgm'))).toEqual(['KGM', 'KGMA', 'A00', 'A01', 'A02']);
    expect(claves(catalogos.buscar('claves_unidad', 'KG'))).toEqual([
      'KGM',
      'KGMA',
      'KGS',
      'A00',
      'A01',
      'A02',
    ]);
  });

  it('applies limite: default 20, at most 100, at least 1', () => {
    expect(buscar('de', 2)).toEqual(['10101500', '43211507']);
    expect(buscar('de')).toHaveLength(10);
    expect(buscar('de', 1000)).toHaveLength(10);
    expect(buscar('de', 0)).toHaveLength(1);
    expect(catalogos.buscar('claves_prod_serv', undefined, 3).map((r) => r.clave)).toEqual([
      '01010101',
      '10101500',
      '43211507',
    ]);
  });

  it('returns nothing when nothing matches', () => {
    expect(buscar('zzz')).toEqual([]);
    expect(buscar('facturacionx')).toEqual([]);
    expect(buscar('9')).toEqual([]);
  });

  it('answers words shorter than 3 characters exactly (1- and 2-grams)', () => {
    expect(buscar('de', 100)).toEqual([
      '10101500',
      '43211507',
      '50131701',
      '56112000',
      '60105907',
      '84110000',
      '84111502',
      '84111503',
      '84111506',
      '78141504', // "vendedores": inside a word, so last
    ]);
    expect(buscar('x')).toEqual(['01010101']);
    expect(buscar('y', 100)).toEqual(['50131700', '78141504', '84110000', '56112000']);
    expect(buscar('fi')).toEqual(['84111502', '84111503']);
  });

  it('ignores surrounding punctuation and repeated words', () => {
    expect(terminosDeBusqueda('  Leche, (vaca)  leche ')).toEqual(['leche', 'vaca']);
    expect(buscar('leche, vaca')).toEqual(['50131701']);
    // Nothing searchable left: like no q at all.
    expect(buscar('¿?', 2)).toEqual(['01010101', '10101500']);
  });

  it('hides expired and not yet valid codes from search and lookups', () => {
    expect(buscar('vencida')).toEqual([]);
    expect(buscar('futura')).toEqual([]);
    expect(catalogos.claveProdServ('84111599')).toBeUndefined();
    expect(catalogos.claveProdServ('84111598')).toBeUndefined();
    expect(catalogos.tamano('claves_prod_serv')).toBe(14);
  });
});

describe('búsqueda en codigos_postales', () => {
  it('names state and municipality, mapping the old DIF code to Ciudad de México', () => {
    expect(catalogos.buscar('codigos_postales', '06600')).toEqual([
      {
        clave: '06600',
        descripcion: 'Ciudad de México, Cuauhtémoc',
        estado: 'DIF',
        municipio: '015',
        localidad: '06',
        huso_horario: 'Tiempo del Centro',
      },
    ]);
    expect(catalogos.codigoPostal('06601')?.descripcion).toBe('Ciudad de México');
    expect(claves(catalogos.buscar('codigos_postales', 'cuauhtemoc'))).toEqual(['06600']);
    expect(claves(catalogos.buscar('codigos_postales', 'mexico'))).toEqual(['06600', '06601']);
    expect(claves(catalogos.buscar('codigos_postales', 'tijuana baja'))).toEqual(['22000']);
  });
});

describe('listas y consultas', () => {
  it('lists the small catalogs by code in the API shapes', () => {
    expect(catalogos.listar('regimenes_fiscales')).toEqual([
      {
        clave: '601',
        descripcion: 'General de Ley Personas Morales',
        aplica_fisica: false,
        aplica_moral: true,
      },
      {
        clave: '626',
        descripcion: 'Régimen Simplificado de Confianza',
        aplica_fisica: true,
        aplica_moral: true,
      },
      { clave: '998', descripcion: 'Vence hoy', aplica_fisica: true, aplica_moral: true },
    ]);
    expect(catalogos.listar('usos_cfdi')).toEqual([
      {
        clave: 'G03',
        descripcion: 'Gastos en general.',
        aplica_fisica: true,
        aplica_moral: true,
        regimenes_receptor: ['601', '603', '606'],
      },
    ]);
    expect(catalogos.listar('formas_pago')[1]).toEqual({
      clave: '03',
      descripcion: 'Transferencia electrónica de fondos',
      bancarizado: true,
    });
    expect(claves(catalogos.listar('metodos_pago'))).toEqual(['PPD', 'PUE']);
    expect(catalogos.listar('monedas')).toEqual([
      { clave: 'JPY', descripcion: 'Yen', decimales: 0 },
      { clave: 'MXN', descripcion: 'Peso Mexicano', decimales: 2 },
    ]);
    expect(catalogos.listar('tipos_relacion')).toEqual([
      { clave: '04', descripcion: 'Sustitución de los CFDI previos' },
    ]);
  });

  it('looks codes up exactly and only among valid rows', () => {
    expect(catalogos.moneda('MXN')?.decimales).toBe(2);
    expect(catalogos.moneda('mxn')).toBeUndefined();
    expect(catalogos.metodoPago('PUE')?.descripcion).toBe('Pago en una sola exhibición');
    expect(catalogos.metodoPago('pue')).toBeUndefined();
    expect(catalogos.regimenFiscal('999')).toBeUndefined();
    expect(catalogos.regimenFiscal('998')?.clave).toBe('998');
    expect(catalogos.usoCfdi('G03')?.regimenes_receptor).toEqual(['601', '603', '606']);
    expect(catalogos.codigoPostal('22000')?.huso_horario).toBe('Tiempo del Noroeste en Frontera');
    expect(catalogos.claveUnidad('H87')).toEqual({ clave: 'H87', descripcion: 'Pieza', simbolo: null });
    expect(catalogos.claveProdServ('84111506')?.descripcion).toBe('Servicios de facturación');
    expect(catalogos.objetoImp('02')?.descripcion).toBe('Sí objeto de impuesto.');
    expect(catalogos.formaPago('01')?.bancarizado).toBe(false);
    expect(catalogos.exportacion('01')?.descripcion).toBe('No aplica');
    expect(catalogos.tipoRelacion('04')?.clave).toBe('04');
    expect(catalogos.reglasTasaOCuota()).toEqual([
      {
        tipo: 'Rango',
        minimo: '0.000000',
        valor: '0.160000',
        impuesto: 'IVA',
        factor: 'Tasa',
        traslado: false,
        retencion: true,
      },
      {
        tipo: 'Fijo',
        minimo: null,
        valor: '0.160000',
        impuesto: 'IVA',
        factor: 'Tasa',
        traslado: true,
        retencion: false,
      },
    ]);
  });

  it('hands out frozen records', () => {
    const moneda = catalogos.moneda('MXN')!;
    expect(Object.isFrozen(moneda)).toBe(true);
    expect(Object.isFrozen(catalogos.usoCfdi('G03')!.regimenes_receptor)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The index against a brute-force reference on a generated catalog large enough to use both posting kinds
// (id lists and bitsets) and several bitset words.

interface Registro {
  clave: string;
  descripcion: string;
}

const sinAcentos = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

function referencia(registros: readonly Registro[], q: string, limite: number): string[] {
  const palabras = [
    ...new Set(
      sinAcentos(q)
        .split(/\s+/)
        .map((p) => p.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
        .filter((p) => p !== ''),
    ),
  ];
  const escapar = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const empieza = (texto: string, p: string) =>
    new RegExp(`(^|[^\\p{L}\\p{N}])${escapar(p)}`, 'u').test(texto);
  const grupo = (r: Registro) => {
    const clave = r.clave.toLowerCase();
    const texto = sinAcentos(r.descripcion);
    if (palabras.some((p) => clave === p)) return 0;
    if (palabras.some((p) => clave.startsWith(p))) return 1;
    return palabras.every((p) => empieza(texto, p)) ? 2 : 3;
  };
  return registros
    .filter((r) =>
      palabras.every((p) => r.clave.toLowerCase().startsWith(p) || sinAcentos(r.descripcion).includes(p)),
    )
    .map((r) => ({ clave: r.clave, grupo: grupo(r) }))
    .sort((a, b) => a.grupo - b.grupo || (a.clave < b.clave ? -1 : a.clave > b.clave ? 1 : 0))
    .slice(0, limite)
    .map((r) => r.clave);
}

/** Deterministic pseudo-random numbers (mulberry32), so a failure always reproduces. */
function aleatorio(semilla: number) {
  return () => {
    semilla = (semilla + 0x6d2b79f5) | 0;
    let t = Math.imul(semilla ^ (semilla >>> 15), 1 | semilla);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('IndiceBusqueda frente a una búsqueda por fuerza bruta', () => {
  const azar = aleatorio(20261123);
  const elegir = <T>(xs: readonly T[]): T => xs[Math.floor(azar() * xs.length)]!;
  const VOCABULARIO = [
    'servicio',
    'servicios',
    'de',
    'facturación',
    'contabilidad',
    'leche',
    'LECHE',
    'computadora',
    'año',
    'niño',
    'pequeño',
    'Árbol',
    'eléctrico',
    'electrónico',
    'y',
    'o',
    'para',
    'refacción',
    'x',
    'c/u',
    '(kit)',
    'equipo',
    'médico',
    'acción',
  ];
  const registros: Registro[] = [];
  const usadas = new Set<string>();
  while (registros.length < 1500) {
    const clave = String(Math.floor(azar() * 1e8)).padStart(8, '0');
    if (usadas.has(clave)) continue;
    usadas.add(clave);
    const largo = 1 + Math.floor(azar() * 6);
    const descripcion = Array.from({ length: largo }, () => elegir(VOCABULARIO)).join(
      azar() < 0.1 ? '  ' : ' ',
    );
    registros.push({ clave, descripcion });
  }
  const indice = new IndiceBusqueda(
    registros.map((r) => ({ clave: r.clave, texto: r.descripcion, registro: r })),
  );

  const consultas: string[] = [];
  for (let i = 0; i < 400; i++) {
    const r = elegir(registros);
    const tipo = i % 5;
    if (tipo === 0) {
      const desde = Math.floor(azar() * r.descripcion.length);
      consultas.push(r.descripcion.slice(desde, desde + 1 + Math.floor(azar() * 8)));
    } else if (tipo === 1) consultas.push(r.clave.slice(0, 1 + Math.floor(azar() * 8)));
    else if (tipo === 2) consultas.push(`${elegir(VOCABULARIO)} ${elegir(VOCABULARIO).slice(0, 3)}`);
    else if (tipo === 3) consultas.push(`${r.clave.slice(0, 2)} ${elegir(VOCABULARIO)}`.toUpperCase());
    else consultas.push(elegir(['zz', 'q', 'lech', 'ectr', 'ion', 'ño', 'nino', 'ELECTRICO', '0', '00 de']));
  }

  it('draws queries that mostly find something', () => {
    const conResultados = consultas.filter((q) => referencia(registros, q, 1).length > 0).length;
    expect(conResultados).toBeGreaterThan(consultas.length * 0.6);
  });

  it.each([1, 7, 100])('gives the reference answer for 400 queries with limite %i', (limite) => {
    for (const q of consultas) {
      expect({ q, claves: claves(indice.buscar(q, limite)) }).toEqual({
        q,
        claves: referencia(registros, q, limite),
      });
    }
  });
});
