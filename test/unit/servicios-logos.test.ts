import { LOGO_MAXIMO_BYTES, tipoPorFirma } from '../../servicios/logos';
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
let org: string;

beforeEach(async () => {
  s = crearServiciosEnMemoria();
  org = (await sembrar(s, a)).org;
});

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('resto de la imagen')]);
const JPEG = Buffer.concat([Buffer.from('ffd8ffe0', 'hex'), Buffer.from('resto de la imagen')]);

describe('logo de la organización', () => {
  it('reconoce PNG y JPEG por sus primeros bytes, y nada más', () => {
    expect([tipoPorFirma(PNG), tipoPorFirma(JPEG)]).toEqual(['image/png', 'image/jpeg']);
    expect(tipoPorFirma(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
    expect(tipoPorFirma(Buffer.from('GIF89a'))).toBeUndefined();
    expect(tipoPorFirma(Buffer.alloc(0))).toBeUndefined();
  });

  it('se sube (por id o RFC), se lee tal cual, se reemplaza y se elimina', async () => {
    const subido = await s.logos.subir(a, org, 'image/png', PNG);
    expect(subido).toMatchObject({ objeto: 'logo', organizacion: org, modo: 'test', tipo: 'image/png' });
    expect(subido.bytes).toBe(PNG.length);
    expect(subido.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await s.logos.obtener(a, 'EKU9003173C9')).toMatchObject({ tipo: 'image/png', datos: PNG });
    await s.logos.subir(a, 'EKU9003173C9', 'image/jpeg', JPEG);
    expect(await s.logos.obtener(a, org)).toMatchObject({ tipo: 'image/jpeg', datos: JPEG });
    expect(await s.logos.eliminar(a, org)).toEqual({ id: org, objeto: 'logo', eliminado: true });
    for (const f of [() => s.logos.obtener(a, org), () => s.logos.eliminar(a, org)]) {
      const e = await errorNegocio(f());
      expect([e.tipo, e.codigo]).toEqual(['no_encontrado', 'logo_no_encontrado']);
    }
  });

  it('rechaza con 422 y sin escribir: vacío, no imagen, tipo que no coincide, más de 256 KB', async () => {
    const casos: [string, Buffer, string, RegExp][] = [
      ['image/png', Buffer.alloc(0), 'logo_invalido', /vacío/],
      ['image/png', Buffer.from('<svg/>'), 'logo_invalido', /no es una imagen PNG/],
      ['image/png', JPEG, 'logo_invalido', /es una imagen JPEG, pero se declaró image\/png/],
      ['image/jpeg', PNG, 'logo_invalido', /es una imagen PNG/],
      ['image/gif', PNG, 'logo_invalido', /image\/png o image\/jpeg/],
      [
        'image/png',
        Buffer.concat([PNG, Buffer.alloc(LOGO_MAXIMO_BYTES)]),
        'logo_demasiado_grande',
        /máximo es 262144/,
      ],
    ];
    for (const [tipo, datos, codigo, mensaje] of casos) {
      const e = await rechazoSinEscrituras(s.m, () => s.logos.subir(a, org, tipo, datos));
      expect([e.tipo, e.codigo, e.parametro]).toEqual(['regla_de_negocio', codigo, 'cuerpo']);
      expect(e.message).toMatch(mensaje);
    }
    // Exactly 256 KB is accepted.
    const justo = Buffer.concat([PNG, Buffer.alloc(LOGO_MAXIMO_BYTES - PNG.length)]);
    expect((await s.logos.subir(a, org, 'image/png', justo)).bytes).toBe(LOGO_MAXIMO_BYTES);
  });

  it('por cuenta y modo: otra cuenta o el otro modo no lo ven, no lo cambian ni lo borran', async () => {
    await s.logos.subir(a, org, 'image/png', PNG);
    for (const otro of [alcance('cta_otra'), alcance(a.cuentaId, 'live')]) {
      for (const f of [
        () => s.logos.obtener(otro, org),
        () => s.logos.subir(otro, org, 'image/jpeg', JPEG),
        () => s.logos.eliminar(otro, org),
      ]) {
        const e = await rechazoSinEscrituras(s.m, f);
        expect(e.codigo).toBe('organizacion_no_encontrada');
      }
    }
    expect((await s.logos.obtener(a, org)).datos).toEqual(PNG);
  });
});
