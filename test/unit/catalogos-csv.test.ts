import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { convertirFilas, decodificar, leerBytes } from '../../db/catalogos/cargar';
import { ErrorCsv, parsearCsv, registrosCsv } from '../../db/catalogos/csv';
import { DEFINICIONES, convertirValor, directorioDatos, type Columna } from '../../db/catalogos/definiciones';

describe('parsearCsv', () => {
  it('reads plain fields, with or without a final line end', () => {
    expect(parsearCsv('a,b,c\n1,2,3\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', '2', '3'],
    ]);
    expect(parsearCsv('a,b\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('accepts CRLF line ends', () => {
    expect(parsearCsv('a,b\r\n1,2\r\n')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('keeps commas, line breaks and doubled quotes inside quoted fields', () => {
    expect(parsearCsv('"x, y","di ""hola""","una\ndos","tres\r\ncuatro"\n')).toEqual([
      ['x, y', 'di "hola"', 'una\ndos', 'tres\r\ncuatro'],
    ]);
    expect(parsearCsv('"""",""""""\n')).toEqual([['"', '""']]);
  });

  it('reads empty fields, quoted or not, as empty strings', () => {
    expect(parsearCsv(',"",\n"",,""')).toEqual([
      ['', '', ''],
      ['', '', ''],
    ]);
    expect(parsearCsv('a,')).toEqual([['a', '']]);
  });

  it('keeps spaces and accents as written', () => {
    expect(parsearCsv(' a ,"Nómina ",ñ')).toEqual([[' a ', 'Nómina ', 'ñ']]);
  });

  it('skips a byte order mark and empty lines', () => {
    expect(parsearCsv('\ufeffid,texto\n\n01,SPEI\n\r\n')).toEqual([
      ['id', 'texto'],
      ['01', 'SPEI'],
    ]);
    expect(parsearCsv('')).toEqual([]);
  });

  it('reports the line where each record starts', () => {
    const lineas = Array.from(registrosCsv('h\n"a\nb"\nc\n'), (r) => r.linea);
    expect(lineas).toEqual([1, 2, 4]);
  });

  it.each([
    ['an unterminated quoted field', 'a,b\n"abc,d\n', 2],
    ['a quote inside an unquoted field', 'a,b\nab"c,d\n', 2],
    ['text after a closing quote', 'a,b\n"ab"c,d\n', 2],
    ['a bare carriage return', 'a,b\rc,d\n', 1],
  ])('rejects %s', (_caso, texto, linea) => {
    expect(() => parsearCsv(texto)).toThrow(ErrorCsv);
    try {
      parsearCsv(texto);
    } catch (error) {
      expect((error as ErrorCsv).linea).toBe(linea);
    }
  });
});

describe('convertirValor', () => {
  const col = (tipo: Columna['tipo'], nulo = false): Columna => ({ nombre: 'x', tipo, nulo });

  it('converts each type', () => {
    expect(convertirValor(col('texto'), 'Nómina')).toBe('Nómina');
    expect(convertirValor(col('lista'), '601, 603,605 ')).toBe('601,603,605');
    expect(convertirValor(col('booleano'), '1')).toBe(true);
    expect(convertirValor(col('booleano'), '01')).toBe(true);
    expect(convertirValor(col('booleano'), '')).toBe(false);
    expect(convertirValor(col('booleano'), '00')).toBe(false);
    expect(convertirValor(col('entero'), '2')).toBe(2);
    expect(convertirValor(col('decimal'), '999999999999999999.999999')).toBe('999999999999999999.999999');
    expect(convertirValor(col('fecha'), '2022-01-01')).toBe('2022-01-01');
  });

  it('turns empty fields into NULL only where the column allows it', () => {
    expect(convertirValor(col('texto', true), '')).toBeNull();
    expect(convertirValor(col('fecha', true), '')).toBeNull();
    expect(() => convertirValor(col('texto'), '')).toThrow('vacío');
  });

  it.each([
    ['booleano', '2'],
    ['entero', '1.5'],
    ['decimal', '1,5'],
    ['fecha', '2022-02-30'],
    ['fecha', '01/01/2022'],
    ['lista', '601,,603'],
  ] as const)('rejects %s "%s"', (tipo, valor) => {
    expect(() => convertirValor(col(tipo), valor)).toThrow();
  });
});

describe('DEFINICIONES', () => {
  it('names each table cat_<catalogo>, once', () => {
    for (const def of DEFINICIONES) expect(def.tabla).toBe(`cat_${def.catalogo}`);
    expect(new Set(DEFINICIONES.map((d) => d.catalogo)).size).toBe(DEFINICIONES.length);
  });

  it('covers every data file, and every file exists', () => {
    const archivos = DEFINICIONES.map((d) => d.archivo);
    for (const archivo of archivos) expect(existsSync(join(directorioDatos(), archivo))).toBe(true);
    const presentes = readdirSync(directorioDatos()).filter((f) => /\.csv(\.gz)?$/.test(f));
    expect([...archivos].sort()).toEqual(presentes.sort());
  });

  it.each(DEFINICIONES.map((d) => [d.archivo, d] as const))(
    '%s: maps every header column and converts every row',
    async (_archivo, def) => {
      const texto = await decodificar(def, await leerBytes(def));
      const encabezado = registrosCsv(texto).next().value?.campos ?? [];
      expect([...encabezado].sort()).toEqual(def.columnas.map((c) => c.nombre).sort());
      expect(convertirFilas(def, texto).length).toBeGreaterThan(0);
    },
  );
});

describe('convertirFilas', () => {
  const def = DEFINICIONES.find((d) => d.catalogo === 'regimen_fiscal')!;
  const encabezado = 'id,texto,aplica_fisica,aplica_moral,vigencia_desde,vigencia_hasta';

  it('maps columns by header name, not position', () => {
    const filas = convertirFilas(
      def,
      'vigencia_hasta,vigencia_desde,aplica_moral,aplica_fisica,texto,id\n"",2022-01-01,1,"","General de Ley",601\n',
    );
    expect(filas).toEqual([
      {
        id: '601',
        texto: 'General de Ley',
        aplica_fisica: false,
        aplica_moral: true,
        vigencia_desde: '2022-01-01',
        vigencia_hasta: null,
      },
    ]);
  });

  it('rejects an unmapped or missing header column', () => {
    expect(() => convertirFilas(def, `${encabezado},extra\n`)).toThrow('sin definir: extra');
    expect(() => convertirFilas(def, 'id,texto\n')).toThrow('faltan: aplica_fisica');
  });

  it('names the line and column of a bad value', () => {
    expect(() =>
      convertirFilas(def, `${encabezado}\n601,x,1,1,2022-01-01,\n602,y,si,1,2022-01-01,\n`),
    ).toThrow('c_RegimenFiscal.csv, línea 3, columna aplica_fisica');
    expect(() => convertirFilas(def, `${encabezado}\n601,x,1\n`)).toThrow('línea 2: 3 campos');
  });
});
