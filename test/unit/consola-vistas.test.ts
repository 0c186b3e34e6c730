import { duracion, importe } from '../../api/consola/diseno';
import { graficaBarras } from '../../api/consola/grafica';
import { consulta, html } from '../../api/consola/html';
import { interpretarBusqueda } from '../../api/consola/paginas/facturas';
import { tokenCsrf, csrfValido } from '../../seguridad/sesiones';
import { hashContrasena, verificarContrasena } from '../../seguridad/contrasenas';

/** The console's pure pieces: escaping, the search box, amounts, durations, the SVG chart, CSRF, password hashes. */
describe('consola: piezas puras', () => {
  it('escapa todo valor interpolado salvo el marcado ya construido', () => {
    const nombre = '<script>alert("x")</script> & \'Co\'';
    const marcado = html`<b>ok</b>`;
    const h = html`<td title="${nombre}">${nombre}</td>
      ${marcado}${[null, undefined, false, 'a<b']}`;
    // Prettier lays the template out as HTML: the line breaks between elements are its own.
    expect(h.texto.replace(/\n\s*/g, '')).toBe(
      '<td title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;</td><b>ok</b>a&lt;b',
    );
    expect(consulta({ q: 'A-1 & b', estado: undefined, vacio: '' })).toBe('?q=A-1+%26+b');
  });

  it('la caja de búsqueda reconoce UUID, cliente (id o RFC) o serie-folio', () => {
    expect(interpretarBusqueda(' 876ec6bf-a804-423f-bf8b-65af73b098d3 ')).toEqual({
      uuid: '876ec6bf-a804-423f-bf8b-65af73b098d3',
    });
    expect(interpretarBusqueda('MASO451221PM4')).toEqual({ cliente: 'MASO451221PM4' });
    expect(interpretarBusqueda('cli_01m8gctsdxy7gxd0b370ca87s8')).toEqual({
      cliente: 'cli_01m8gctsdxy7gxd0b370ca87s8',
    });
    expect(interpretarBusqueda('A-123')).toEqual({ folio: 'A-123' });
    expect(interpretarBusqueda('   ')).toEqual({});
  });

  it('importes con dos decimales y separadores, sin pasar por sumas de punto flotante; esperas legibles', () => {
    expect(importe('1234567.005', 'MXN')).toBe('$1,234,567.01 MXN');
    expect(importe('0.1')).toBe('$0.10 MXN');
    expect(importe(null)).toBe('—');
    expect([duracion(42), duracion(125), duracion(3 * 3600 + 300), duracion(2 * 86400 + 7200)]).toEqual([
      '42 s',
      '2 min',
      '3 h 5 min',
      '2 d 2 h',
    ]);
  });

  it('la gráfica de barras escala a un tope redondo, nombra cada barra y repite sus datos en una tabla', () => {
    const svg = graficaBarras({
      id: 'g',
      titulo: 'Facturado <y> cobrado',
      etiquetas: ['01/11', '02/11'],
      series: [
        { nombre: 'Facturado', color: '#0b5cad', valores: [80, 40] },
        { nombre: 'Cobrado', color: '#1d6b35', valores: [0, 40] },
      ],
      formato: (v) => `$${v}`,
    }).texto;
    expect(svg).toContain('Facturado &lt;y&gt; cobrado');
    expect(svg).toContain('role="img"');
    // Tope 100: the 80 bar is 4/5 of the plot's height (182 px), the 40 bars 2/5.
    const alturas = [...svg.matchAll(/<rect\s[^>]*x="[^"]*"[^>]*height="([\d.]+)"/g)].map((m) =>
      Number(m[1]),
    );
    expect(alturas).toEqual([145.6, 0, 72.8, 72.8]);
    expect(svg).toContain('<title>01/11 · Facturado: $80</title>');
    expect(svg).toContain('$100');
    expect(svg.replace(/\n\s*/g, '')).toContain(
      '<th scope="row">02/11</th><td class="num">$40</td><td class="num">$40</td>',
    );
    expect(svg).not.toContain('style=');
  });

  it('el token CSRF se deriva del de la sesión y solo vale con ella', () => {
    const t = tokenCsrf('sesion-a');
    expect(csrfValido('sesion-a', t)).toBe(true);
    expect(csrfValido('sesion-b', t)).toBe(false);
    expect(csrfValido('sesion-a', undefined)).toBe(false);
    expect(csrfValido('sesion-a', `${t}x`)).toBe(false);
  });

  it('un hash scrypt lleva su costo y su sal: verifica la misma contraseña y ninguna otra', async () => {
    const costo = { N: 1024, r: 8, p: 1 };
    const [a, b] = [
      await hashContrasena('frase secreta', costo),
      await hashContrasena('frase secreta', costo),
    ];
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(a).not.toBe(b);
    expect(await verificarContrasena('frase secreta', a)).toBe(true);
    expect(await verificarContrasena('frase secreta ', a)).toBe(false);
    expect(await verificarContrasena('frase secreta', 'bcrypt$xx')).toBe(false);
  });
});
