import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { directorioSat } from '../../config/rutas';
import {
  caracterNoPermitido,
  mensajeCaracterNoPermitido,
  PATRON_TEXTO_SAT,
  TEXTOS_SAT,
} from '../../cfdi/reglas/textos';

const XSD = join(directorioSat(), 'xml', 'www.sat.gob.mx', 'sitio_internet', 'cfd', '4', 'cfdv40.xsd');
const OPENAPI = parse(readFileSync(join(__dirname, '..', '..', 'openapi.yaml'), 'utf8')) as {
  components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>> }> };
};

/** Every request field of openapi.yaml that ends up in a CFDI free-text attribute. */
const CAMPOS_SAT: [string, string, keyof typeof TEXTOS_SAT][] = [
  ['FacturaNueva', 'serie', 'Serie'],
  ['FacturaNueva', 'folio', 'Folio'],
  ['FacturaNueva', 'condiciones_pago', 'CondicionesDePago'],
  ['PagoNuevo', 'serie', 'Serie'],
  ...['ConceptoNuevo', 'ProductoNuevo', 'ProductoCambios'].flatMap(
    (s): [string, string, 'Descripcion' | 'Unidad' | 'NoIdentificacion'][] => [
      [s, 'descripcion', 'Descripcion'],
      [s, 'unidad', 'Unidad'],
      [s, 'no_identificacion', 'NoIdentificacion'],
    ],
  ),
  ...[
    'OrganizacionNueva',
    'OrganizacionCambios',
    'ClienteNuevo',
    'ClienteCambios',
    'FacturacionRecibo',
    'DatosCompradorAutofactura',
    'FacturacionAutofactura',
  ].map((s): [string, string, 'Nombre'] => [s, 'nombre', 'Nombre']),
];

describe('reglas de texto derivadas del XSD del SAT', () => {
  it('cada atributo de texto libre de la tabla tiene en cfdv40.xsd el patrón [^|]{1,N} con el mismo largo', () => {
    const xsd = readFileSync(XSD, 'utf8');
    for (const [atributo, largo] of Object.entries(TEXTOS_SAT)) {
      const bloques = xsd.split('<xs:attribute ').filter((b) => b.startsWith(`name="${atributo}"`));
      const conPatron = bloques.filter((b) => b.includes(`<xs:pattern value="[^|]{1,${largo}}"/>`));
      expect([atributo, conPatron.length > 0]).toEqual([atributo, true]);
      expect(conPatron.every((b) => b.includes('<xs:whiteSpace value="collapse"/>'))).toBe(true);
    }
  });

  it('openapi.yaml aplica a cada campo de texto del CFDI el patrón y el largo de su atributo', () => {
    for (const [esquema, campo, atributo] of CAMPOS_SAT) {
      const p = OPENAPI.components.schemas[esquema]?.properties?.[campo];
      expect([esquema, campo, p?.['x-atributo-sat'], p?.pattern, p?.maxLength, p?.minLength]).toEqual([
        esquema,
        campo,
        atributo,
        PATRON_TEXTO_SAT,
        TEXTOS_SAT[atributo],
        1,
      ]);
    }
    // And nothing else claims an attribute without the list above knowing it.
    const marcados = Object.entries(OPENAPI.components.schemas).flatMap(([s, def]) =>
      Object.entries(def.properties ?? {})
        .filter(([, p]) => p['x-atributo-sat'])
        .map(([c]) => `${s}.${c}`),
    );
    expect(marcados.sort()).toEqual(CAMPOS_SAT.map(([s, c]) => `${s}.${c}`).sort());
  });

  it('el patrón rechaza | y el texto solo de espacios, y acepta lo demás', () => {
    const r = new RegExp(PATRON_TEXTO_SAT, 'u');
    for (const mal of ['|', 'a|b', ' ', '   ', '']) expect([mal, r.test(mal)]).toEqual([mal, false]);
    for (const bien of ['a', ' a ', 'Pantalla LED 24" & <HDMI>', 'Café ☕ 😀'])
      expect(r.test(bien)).toBe(true);
  });
});

describe('caracterNoPermitido (XML 1.0 sin caracteres de control)', () => {
  it('rechaza todo U+0000–U+001F, tabulador y saltos de línea incluidos, con su posición', () => {
    for (let c = 0; c < 0x20; c++) {
      const x = caracterNoPermitido(`ab${String.fromCharCode(c)}`);
      expect(x).toEqual({ indice: 2, codigo: `U+${c.toString(16).toUpperCase().padStart(4, '0')}` });
    }
  });

  it('rechaza U+FFFE, U+FFFF y los sustitutos sueltos, altos o bajos, en cualquier posición', () => {
    expect(caracterNoPermitido('\ufffe')?.codigo).toBe('U+FFFE');
    expect(caracterNoPermitido('x\uffff')?.codigo).toBe('U+FFFF');
    expect(caracterNoPermitido('\ud800x')).toEqual({ indice: 0, codigo: 'U+D800' });
    expect(caracterNoPermitido('x\ud83d')).toEqual({ indice: 1, codigo: 'U+D83D' });
    expect(caracterNoPermitido('\udc00')?.codigo).toBe('U+DC00');
    expect(caracterNoPermitido('😀\ude00')).toEqual({ indice: 2, codigo: 'U+DE00' });
  });

  it('acepta pares sustitutos, DEL, C1, acentos y los caracteres especiales de XML', () => {
    for (const bien of ['', 'ñÑáü', '😀𝄞', '\u007f\u0085\u00a0', '<&>"\'', '\ufffd', '\ue000']) {
      expect([bien, caracterNoPermitido(bien)]).toEqual([bien, undefined]);
    }
  });

  it('el mensaje nombra el campo, el carácter y la posición contada desde 1', () => {
    const m = mensajeCaracterNoPermitido('conceptos[0].descripcion', caracterNoPermitido('ab\u0001')!);
    expect(m).toContain('conceptos[0].descripcion');
    expect(m).toContain('U+0001');
    expect(m).toContain('posición 3');
  });
});
