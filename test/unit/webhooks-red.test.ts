import {
  motivoBloqueo,
  permitida,
  resolverDns,
  resolverSeguro,
  validarUrlWebhook,
  type MotivoBloqueo,
  type Resolver,
} from '../../webhooks/red';

const PUBLICA = '93.184.216.34';
const PUBLICA6 = '2606:4700:4700::1111';

/** Fails the test if the URL passes; returns the refusal. */
function rechazo(texto: string, modo: 'test' | 'live' = 'live', locales = false) {
  const r = validarUrlWebhook(texto, modo, locales);
  if (r.ok) throw new Error(`se esperaba un rechazo de ${texto}`);
  return r;
}

describe('motivoBloqueo: every blocked range and its reason', () => {
  const casos: [string, MotivoBloqueo][] = [
    ['0.0.0.0', 'no_especificada'],
    ['0.255.255.255', 'no_especificada'],
    ['::', 'no_especificada'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'privada'],
    ['10.255.255.255', 'privada'],
    ['172.16.0.1', 'privada'],
    ['172.31.255.254', 'privada'],
    ['192.168.1.10', 'privada'],
    ['fc00::1', 'privada'],
    ['fdff:ffff::1', 'privada'],
    ['fec0::1', 'privada'],
    ['169.254.0.1', 'enlace_local'],
    ['169.254.255.255', 'enlace_local'],
    ['fe80::1', 'enlace_local'],
    ['febf::1', 'enlace_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['169.254.169.254', 'metadatos'],
    ['100.100.100.200', 'metadatos'],
    ['fd00:ec2::254', 'metadatos'],
    ['192.0.0.8', 'reservada'],
    ['240.0.0.1', 'reservada'],
    ['255.255.255.255', 'reservada'],
    ['198.18.0.1', 'reservada'],
    ['198.19.255.255', 'reservada'],
    ['192.0.2.1', 'reservada'],
    ['198.51.100.7', 'reservada'],
    ['203.0.113.200', 'reservada'],
    ['2001:db8::1', 'reservada'],
    ['224.0.0.1', 'multidifusion'],
    ['239.255.255.250', 'multidifusion'],
    ['ff02::1', 'multidifusion'],
  ];
  it.each(casos)('%s → %s', (ip, motivo) => {
    expect(motivoBloqueo(ip)).toBe(motivo);
  });

  it.each([PUBLICA, '8.8.8.8', '172.32.0.1', '172.15.255.255', '100.63.255.255', '100.128.0.0', '11.0.0.1'])(
    'public IPv4 %s → null',
    (ip) => expect(motivoBloqueo(ip)).toBeNull(),
  );

  it.each([PUBLICA6, '2a00:1450:4001:80b::200e', '2001:4860:4860::8888'])('public IPv6 %s → null', (ip) =>
    expect(motivoBloqueo(ip)).toBeNull(),
  );

  it('judges IPv4-mapped IPv6 by its IPv4 address, in dotted and hex form', () => {
    expect(motivoBloqueo('::ffff:127.0.0.1')).toBe('loopback');
    expect(motivoBloqueo('::ffff:7f00:1')).toBe('loopback');
    expect(motivoBloqueo('0:0:0:0:0:ffff:7f00:0001')).toBe('loopback');
    expect(motivoBloqueo('::FFFF:A9FE:A9FE')).toBe('metadatos');
    expect(motivoBloqueo('::ffff:10.1.2.3')).toBe('privada');
    expect(motivoBloqueo('::ffff:0.0.0.0')).toBe('no_especificada');
    expect(motivoBloqueo(`::ffff:${PUBLICA}`)).toBeNull();
  });

  it('judges NAT64 (64:ff9b::/96) and 6to4 (2002::/16) by the embedded IPv4 address', () => {
    expect(motivoBloqueo('64:ff9b::127.0.0.1')).toBe('loopback');
    expect(motivoBloqueo('64:ff9b::a9fe:a9fe')).toBe('metadatos');
    expect(motivoBloqueo('64:ff9b::c0a8:101')).toBe('privada');
    expect(motivoBloqueo('64:ff9b::5db8:d822')).toBeNull(); // 93.184.216.34
    expect(motivoBloqueo('2002:7f00:1::')).toBe('loopback');
    expect(motivoBloqueo('2002:a00:1:1234::1')).toBe('privada');
    expect(motivoBloqueo('2002:a9fe:a9fe::')).toBe('metadatos');
    expect(motivoBloqueo('2002:5db8:d822::1')).toBeNull();
  });

  it('refuses deprecated IPv4-compatible addresses (::a.b.c.d)', () => {
    expect(motivoBloqueo('::127.0.0.1')).toBe('reservada');
    expect(motivoBloqueo('::5db8:d822')).toBe('reservada');
  });

  it('ignores an IPv6 zone', () => {
    expect(motivoBloqueo('fe80::1%eth0')).toBe('enlace_local');
  });

  it.each([
    '',
    'localhost',
    '127.1',
    '2130706433',
    '0x7f.0.0.1',
    '010.0.0.1',
    '1.2.3.4.5',
    '[::1]',
    'gggg::1',
    '::1::',
  ])('throws for %j, which is not an IP', (texto) => expect(() => motivoBloqueo(texto)).toThrow(TypeError));
});

describe('permitida: what each mode allows', () => {
  it('live refuses every blocked reason', () => {
    for (const ip of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '100.64.0.1', '::1', 'fc00::1']) {
      expect(permitida(ip, 'live', true)).toBe(motivoBloqueo(ip));
    }
    expect(permitida(PUBLICA, 'live', false)).toBeNull();
  });

  it('test mode with local addresses allowed lets loopback and private through, and nothing else', () => {
    expect(permitida('127.0.0.1', 'test', true)).toBeNull();
    expect(permitida('::1', 'test', true)).toBeNull();
    expect(permitida('::ffff:127.0.0.1', 'test', true)).toBeNull();
    expect(permitida('192.168.0.5', 'test', true)).toBeNull();
    expect(permitida('fd12::5', 'test', true)).toBeNull();
    expect(permitida('169.254.169.254', 'test', true)).toBe('metadatos');
    expect(permitida('fd00:ec2::254', 'test', true)).toBe('metadatos');
    expect(permitida('100.100.100.200', 'test', true)).toBe('metadatos');
    expect(permitida('169.254.1.1', 'test', true)).toBe('enlace_local');
    expect(permitida('100.64.0.1', 'test', true)).toBe('cgnat');
    expect(permitida('0.0.0.0', 'test', true)).toBe('no_especificada');
    expect(permitida('224.0.0.1', 'test', true)).toBe('multidifusion');
    expect(permitida('192.0.2.1', 'test', true)).toBe('reservada');
  });

  it('test mode without the allowance behaves like live', () => {
    expect(permitida('127.0.0.1', 'test', false)).toBe('loopback');
    expect(permitida('10.0.0.1', 'test', false)).toBe('privada');
    expect(permitida(PUBLICA, 'test', false)).toBeNull();
  });
});

describe('validarUrlWebhook', () => {
  it('accepts a public https URL and returns it parsed', () => {
    const r = validarUrlWebhook('https://receptor.ejemplo.com:8443/hooks?x=1', 'live', false);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.url.hostname).toBe('receptor.ejemplo.com');
      expect(r.url.port).toBe('8443');
    }
    expect(validarUrlWebhook(`https://${PUBLICA}/h`, 'live', false).ok).toBe(true);
    expect(validarUrlWebhook(`https://[${PUBLICA6}]/h`, 'live', false).ok).toBe(true);
  });

  it('names the address and the reason of a literal IP', () => {
    expect(rechazo('https://127.0.0.1/h')).toEqual({
      ok: false,
      codigo: 'url_no_segura',
      mensaje:
        'La URL apunta a 127.0.0.1, una dirección de loopback: en modo live solo se admiten direcciones públicas.',
    });
    expect(rechazo('https://169.254.169.254/latest/meta-data/').mensaje).toContain(
      '169.254.169.254, el servicio de metadatos de la nube',
    );
    expect(rechazo('https://[::1]/').mensaje).toContain('::1, una dirección de loopback');
    expect(rechazo('https://10.1.1.1/').mensaje).toContain('una dirección privada');
  });

  it('catches decimal, hex, octal and short numeric hosts once the parser normalises them', () => {
    for (const u of [
      'https://2130706433/',
      'https://0x7f.1/',
      'https://0x7f000001/',
      'https://0177.0.0.1/',
      'https://127.1/',
    ]) {
      const r = rechazo(u);
      expect(r.codigo).toBe('url_no_segura');
      expect(r.mensaje).toContain('127.0.0.1, una dirección de loopback');
    }
    expect(rechazo('https://0xa9fea9fe/').mensaje).toContain('169.254.169.254');
  });

  it('catches IPv4-mapped IPv6 hosts', () => {
    expect(rechazo('https://[::ffff:127.0.0.1]/').mensaje).toContain('una dirección de loopback');
    expect(rechazo('https://[::ffff:7f00:1]/').mensaje).toContain('una dirección de loopback');
    expect(rechazo('https://[::ffff:169.254.169.254]/').mensaje).toContain('metadatos');
  });

  it('refuses http in live mode, and any other scheme in every mode', () => {
    const r = rechazo('http://receptor.ejemplo.com/');
    expect(r.codigo).toBe('url_no_segura');
    expect(r.mensaje).toBe('En modo live la URL del webhook debe usar https.');
    expect(rechazo('ftp://receptor.ejemplo.com/', 'test', true).codigo).toBe('url_no_segura');
    expect(rechazo('file:///etc/passwd', 'test', true).codigo).toBe('url_no_segura');
    expect(validarUrlWebhook('http://receptor.ejemplo.com/', 'test', false).ok).toBe(true);
  });

  it('refuses credentials in the URL', () => {
    for (const u of [
      'https://usuario:clave@receptor.ejemplo.com/',
      'https://usuario@receptor.ejemplo.com/',
      // An empty userinfo: the parser drops it, so only the text as written shows it.
      'http://:@127.0.0.1:8080/h',
      'http://@receptor.ejemplo.com/',
      'https://:@receptor.ejemplo.com/',
      '  https://@receptor.ejemplo.com/',
      'https:/\t/@receptor.ejemplo.com/',
      'https:\\\\@receptor.ejemplo.com/',
    ]) {
      const r = rechazo(u, 'test', true);
      expect(r.codigo).toBe('url_invalida');
      expect(r.mensaje).toMatch(/credenciales no van en la URL.*firma/);
    }
  });

  it('refuses port 0, which no receiver listens on, however it is written', () => {
    for (const u of [
      'https://receptor.ejemplo.com:0/h',
      'https://receptor.ejemplo.com:000/',
      'http://[::1]:0/',
    ]) {
      const r = rechazo(u, 'test', true);
      expect(r.codigo).toBe('url_invalida');
      expect(r.mensaje).toMatch(/puerto 0/);
    }
    // An @ after the authority is the path's, not credentials.
    expect(validarUrlWebhook('https://receptor.ejemplo.com/a@b?c=@#@', 'live', false).ok).toBe(true);
  });

  it('refuses what does not parse or has no host', () => {
    expect(rechazo('no es una url').codigo).toBe('url_invalida');
    expect(rechazo('https://').codigo).toBe('url_invalida');
    expect(rechazo('').codigo).toBe('url_invalida');
  });

  it('refuses local names in live mode without resolving them', () => {
    for (const host of ['localhost', 'LOCALHOST.', 'api.localhost', 'impresora.local', 'db.internal']) {
      const r = rechazo(`https://${host}/h`);
      expect(r.codigo).toBe('url_no_segura');
      expect(r.mensaje).toContain('un nombre de la red local');
    }
  });

  it('refuses the metadata service by name in every mode', () => {
    const r = rechazo('http://metadata.google.internal/computeMetadata/v1/', 'test', true);
    expect(r.codigo).toBe('url_no_segura');
    expect(r.mensaje).toContain('metadatos');
  });

  it('test mode with local addresses allowed takes loopback, private and local names, never metadata', () => {
    expect(validarUrlWebhook('http://127.0.0.1:3000/h', 'test', true).ok).toBe(true);
    expect(validarUrlWebhook('http://[::1]:3000/h', 'test', true).ok).toBe(true);
    expect(validarUrlWebhook('http://192.168.1.20/h', 'test', true).ok).toBe(true);
    expect(validarUrlWebhook('http://localhost:3000/h', 'test', true).ok).toBe(true);
    expect(validarUrlWebhook('http://host.docker.internal/h', 'test', true).ok).toBe(true);
    const r = rechazo('http://169.254.169.254/', 'test', true);
    expect(r.mensaje).toBe(
      'La URL apunta a 169.254.169.254, el servicio de metadatos de la nube: no se admite en ningún modo.',
    );
    expect(rechazo('http://169.254.3.3/', 'test', true).mensaje).toContain('enlace local');
  });

  it('test mode without the allowance refuses local addresses and names', () => {
    expect(rechazo('http://127.0.0.1:3000/', 'test', false).codigo).toBe('url_no_segura');
    expect(rechazo('http://localhost:3000/', 'test', false).codigo).toBe('url_no_segura');
  });
});

describe('resolverSeguro', () => {
  const fijo =
    (...direcciones: string[]): Resolver =>
    async () =>
      direcciones;

  it('returns the addresses when all are allowed', async () => {
    await expect(
      resolverSeguro('receptor.ejemplo.com', 'live', false, fijo(PUBLICA, PUBLICA6)),
    ).resolves.toEqual({
      ok: true,
      direcciones: [PUBLICA, PUBLICA6],
    });
  });

  it('refuses a name with one public and one private address', async () => {
    const r = await resolverSeguro('receptor.ejemplo.com', 'live', false, fijo(PUBLICA, '10.0.0.7'));
    expect(r).toEqual({
      ok: false,
      codigo: 'url_no_segura',
      mensaje:
        'receptor.ejemplo.com resuelve a 10.0.0.7, una dirección privada: en modo live solo se admiten direcciones públicas.',
    });
  });

  it('checks again at every call (DNS rebinding: public, then private)', async () => {
    const respuestas = [[PUBLICA], ['127.0.0.1']];
    const llamadas: string[] = [];
    const cambiante: Resolver = async (host) => {
      llamadas.push(host);
      return respuestas.shift() ?? [];
    };
    expect((await resolverSeguro('receptor.ejemplo.com', 'live', false, cambiante)).ok).toBe(true);
    const segunda = await resolverSeguro('receptor.ejemplo.com', 'live', false, cambiante);
    expect(segunda.ok).toBe(false);
    if (!segunda.ok) {
      expect(segunda.codigo).toBe('url_no_segura');
      expect(segunda.mensaje).toContain('127.0.0.1, una dirección de loopback');
    }
    expect(llamadas).toEqual(['receptor.ejemplo.com', 'receptor.ejemplo.com']);
  });

  it('refuses mapped and metadata answers even in test mode with local addresses allowed', async () => {
    expect((await resolverSeguro('x.prueba', 'test', true, fijo('::ffff:127.0.0.1'))).ok).toBe(true);
    const r = await resolverSeguro('x.prueba', 'test', true, fijo('127.0.0.1', '::ffff:a9fe:a9fe'));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.mensaje).toContain('metadatos');
  });

  it('answers url_no_resuelve for no address, a failing resolver or a non-IP answer', async () => {
    await expect(resolverSeguro('x.ejemplo.com', 'live', false, fijo())).resolves.toEqual({
      ok: false,
      codigo: 'url_no_resuelve',
      mensaje: 'x.ejemplo.com no tiene direcciones.',
    });
    const falla: Resolver = async () => {
      throw Object.assign(new Error('no existe'), { code: 'ENOTFOUND' });
    };
    await expect(resolverSeguro('x.ejemplo.com', 'live', false, falla)).resolves.toEqual({
      ok: false,
      codigo: 'url_no_resuelve',
      mensaje: 'No se pudo resolver x.ejemplo.com (ENOTFOUND).',
    });
    const r = await resolverSeguro('x.ejemplo.com', 'live', false, fijo('no-es-ip'));
    expect(r.ok === false && r.codigo).toBe('url_no_resuelve');
  });

  it('gives up on a resolver that does not answer within plazoMs (agotado), and waits without one', async () => {
    const mudo: Resolver = () => new Promise<string[]>(() => undefined);
    await expect(resolverSeguro('x.ejemplo.com', 'live', false, mudo, 50)).resolves.toEqual({
      ok: false,
      codigo: 'url_no_resuelve',
      agotado: true,
      mensaje: 'No se resolvió x.ejemplo.com en 0.05 s.',
    });
    const lento: Resolver = () => new Promise((r) => setTimeout(() => r(['201.175.40.12']), 30));
    await expect(resolverSeguro('x.ejemplo.com', 'live', false, lento, 5000)).resolves.toEqual({
      ok: true,
      direcciones: ['201.175.40.12'],
    });
  });

  it('takes a literal IP (bracketed or not) as its own answer without calling the resolver', async () => {
    const nunca: Resolver = async () => {
      throw new Error('no debía resolver');
    };
    await expect(resolverSeguro(PUBLICA, 'live', false, nunca)).resolves.toEqual({
      ok: true,
      direcciones: [PUBLICA],
    });
    await expect(resolverSeguro(`[${PUBLICA6}]`, 'live', false, nunca)).resolves.toEqual({
      ok: true,
      direcciones: [PUBLICA6],
    });
    const r = await resolverSeguro('[::1]', 'live', false, nunca);
    expect(r.ok === false && r.mensaje).toBe(
      'La URL apunta a ::1, una dirección de loopback: en modo live solo se admiten direcciones públicas.',
    );
  });

  it('the default resolver answers literal IPs as they are and resolves localhost to loopback', async () => {
    await expect(resolverDns('10.0.0.1')).resolves.toEqual(['10.0.0.1']);
    const locales = await resolverDns('localhost');
    expect(locales.length).toBeGreaterThan(0);
    for (const ip of locales) expect(motivoBloqueo(ip)).toBe('loopback');
    const r = await resolverSeguro('localhost', 'live', false);
    expect(r.ok === false && r.codigo).toBe('url_no_segura');
  });
});
