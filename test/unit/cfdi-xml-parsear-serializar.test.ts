import { nodo } from '../../cfdi/xml/nodo';
import { ErrorXml, parsear } from '../../cfdi/xml/parsear';
import { escaparAtributo, serializar } from '../../cfdi/xml/serializar';

const DECLARACION = '<?xml version="1.0" encoding="UTF-8"?>';

describe('serializar', () => {
  it('escribe la declaración y el árbol en una línea, con los atributos en el orden del nodo', () => {
    const n = nodo(
      'cfdi:Comprobante',
      { 'xmlns:cfdi': 'http://www.sat.gob.mx/cfd/4', Version: '4.0', Serie: 'A' },
      [
        nodo('cfdi:Emisor', { Rfc: 'EKU9003173C9', Nombre: 'ESCUELA KEMPER URGATE', RegimenFiscal: '601' }),
        nodo('cfdi:Conceptos', {}, [nodo('cfdi:Concepto', { Importe: '1.00', Cantidad: '1' })]),
      ],
    );
    expect(serializar(n)).toBe(
      `${DECLARACION}<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Version="4.0" Serie="A">` +
        '<cfdi:Emisor Rfc="EKU9003173C9" Nombre="ESCUELA KEMPER URGATE" RegimenFiscal="601"/>' +
        '<cfdi:Conceptos><cfdi:Concepto Importe="1.00" Cantidad="1"/></cfdi:Conceptos></cfdi:Comprobante>',
    );
  });

  it('escapa & < > " en atributos, también el & de un RFC y lo que ya parece una entidad', () => {
    expect(serializar(nodo('e', { Rfc: 'H&E951128469' }))).toBe(`${DECLARACION}<e Rfc="H&amp;E951128469"/>`);
    expect(escaparAtributo(`a<b>c"d'e&amp;f&#9;`)).toBe(`a&lt;b&gt;c&quot;d'e&amp;amp;f&amp;#9;`);
  });

  it('escribe tabulador, salto de línea y retorno como referencias para que sobrevivan al parser', () => {
    expect(escaparAtributo('a\tb\nc\r\nd')).toBe('a&#9;b&#10;c&#13;&#10;d');
  });

  it('deja intactos los caracteres no ASCII y los emoji', () => {
    expect(escaparAtributo('Año ñandú € 😀 中文')).toBe('Año ñandú € 😀 中文');
  });

  it('rechaza caracteres que XML no puede representar y nombres inválidos', () => {
    for (const malo of ['a\u0001b', 'x\u001f', '\ufffe', 'mitad \ud83d sola', 'sola \ude00']) {
      expect(() => escaparAtributo(malo)).toThrow(/no permitido en XML/);
    }
    expect(() => serializar(nodo('a b'))).toThrow(/Nombre XML inválido/);
    expect(() => serializar(nodo('e', { '1x': 'v' }))).toThrow(/Nombre XML inválido/);
    expect(() => serializar(nodo('e', { 'x"': 'v' }))).toThrow(/Nombre XML inválido/);
  });
});

describe('parsear', () => {
  it('conserva el orden de los atributos y los nombres con prefijo tal como vienen', () => {
    const n = parsear('<p:R xmlns:p="u" Z="1" A="2" m="3"><p:H b="1" a="2"/><q:H xmlns:q="v"/></p:R>');
    expect(n).toEqual({
      nombre: 'p:R',
      atributos: { 'xmlns:p': 'u', Z: '1', A: '2', m: '3' },
      hijos: [
        { nombre: 'p:H', atributos: { b: '1', a: '2' }, hijos: [] },
        { nombre: 'q:H', atributos: { 'xmlns:q': 'v' }, hijos: [] },
      ],
    });
    expect(Object.keys(n.atributos)).toEqual(['xmlns:p', 'Z', 'A', 'm']);
  });

  it('decodifica entidades y referencias numéricas', () => {
    const n = parsear(`<e a="H&amp;E &lt;&gt;&quot;&apos; &#241;&#xF1; &#x1F600;" b='comilla "doble"'/>`);
    expect(n.atributos).toEqual({ a: `H&E <>"' ññ 😀`, b: 'comilla "doble"' });
  });

  it('normaliza los atributos como XML 1.0: tab y salto literales son espacios, las referencias no', () => {
    const n = parsear('<e a="x\ty\nz" b="x&#9;y&#10;z&#13;" c="1\r\n2\r3"/>');
    expect(n.atributos).toEqual({ a: 'x y z', b: 'x\ty\nz\r', c: '1 2 3' });
  });

  it('ignora declaración, BOM, comentarios, instrucciones y texto de solo espacios', () => {
    const xml = `\ufeff<?xml version="1.0"?>\n<!-- c --><?pi x?>\n<r>\n  <!-- dentro --><h/>\n\t<?otra?><![CDATA[  ]]></r>\n<!-- fin -->\n`;
    expect(parsear(xml)).toEqual({
      nombre: 'r',
      atributos: {},
      hijos: [{ nombre: 'h', atributos: {}, hijos: [] }],
    });
  });

  it('acepta espacios alrededor de = y antes del cierre', () => {
    expect(parsear('<e  a = "1"\n b=\'2\' ></e >').atributos).toEqual({ a: '1', b: '2' });
  });

  it.each([
    ['texto dentro de un elemento', '<r>hola</r>', /texto no admitido dentro de <r>/],
    ['CDATA con contenido', '<r><![CDATA[x]]></r>', /texto no admitido/],
    ['DOCTYPE', '<!DOCTYPE r [<!ENTITY x "y">]><r/>', /DOCTYPE no permitido/],
    ['DOCTYPE dentro', '<r><!DOCTYPE x></r>', /DOCTYPE no permitido/],
    ['cierre que no corresponde', '<a><b></a></b>', /cierre <\/a> inesperado/],
    ['documento incompleto', '<a><b/>', /documento incompleto/],
    ['atributo repetido', '<a x="1" x="2"/>', /atributo repetido x/],
    ['entidad desconocida', '<a x="&nbsp;"/>', /entidad desconocida/],
    ['entidad con nombre de Object.prototype', '<a x="&constructor;"/>', /entidad desconocida/],
    ['referencia a un carácter prohibido', '<a x="&#1;"/>', /carácter no permitido/],
    ['carácter de control literal', '<a x="a\u0001b"/>', /carácter no permitido/],
    ['referencia mal formada', '<a x="&#xZZ;"/>', /referencia inválida/],
    ['& suelto', '<a x="a & b"/>', /referencia/],
    ['< en un atributo', '<a x="a<b"/>', /"<" en el valor/],
    ['atributo sin comillas', '<a x=1/>', /comilla/],
    ['atributos pegados', '<a x="1"y="2"/>', /espacio antes del atributo/],
    ['contenido tras la raíz', '<a/><b/>', /después del elemento raíz/],
    ['sin raíz', '<?xml version="1.0"?>', /elemento raíz/],
    ['comentario sin cerrar', '<a><!-- x</a>', /falta "-->"/],
  ])('rechaza %s', (_caso, xml, mensaje) => {
    expect(() => parsear(xml)).toThrow(ErrorXml);
    expect(() => parsear(xml)).toThrow(mensaje);
  });

  it('lee lo que serializar escribe, con cualquier carácter permitido', () => {
    const valores = [
      '  dobles  espacios  ',
      '\ttab\t',
      'línea\nnueva\r\n',
      'H&E',
      '&amp;',
      '<>"\'',
      '😀€ñ',
      '\u00a0',
    ];
    const n = nodo('r', Object.fromEntries(valores.map((v, k) => [`a${k}`, v])), [nodo('h')]);
    expect(parsear(serializar(n))).toEqual(n);
  });

  it('no se cae con anidamiento profundo (sin recursión en el parser)', () => {
    const profundidad = 20000;
    const n = parsear(`${'<a>'.repeat(profundidad)}${'</a>'.repeat(profundidad)}`);
    let nivel = 0;
    for (let actual = n; actual.hijos[0]; actual = actual.hijos[0]) nivel++;
    expect(nivel).toBe(profundidad - 1);
  });
});
