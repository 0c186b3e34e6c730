import { randomBytes } from 'node:crypto';
import { alcanceDe, contrato, escenario, instante } from './soporte';

contrato('limites', (impl) => {
  const t0 = instante('2025-06-01T12:00:00.000Z');
  const mas = (ms: number) => new Date(t0.getTime() + ms);
  const cubeta = { rafaga: 3, porSegundo: 2 };
  const direccion = () => `prueba-${randomBytes(6).toString('hex')}`;

  it('la primera solicitud de una llave encuentra la cubeta llena; se vacía de una en una', async () => {
    const { a } = await escenario(impl());
    const tomas = [];
    for (let i = 0; i < 5; i++) tomas.push(await impl().repos.limites.tomarFicha(a, cubeta, t0));
    expect(tomas).toEqual([
      { concedida: true, milifichas: 2000 },
      { concedida: true, milifichas: 1000 },
      { concedida: true, milifichas: 0 },
      { concedida: false, milifichas: 0 },
      { concedida: false, milifichas: 0 },
    ]);
  });

  it('se rellena a porSegundo por el tiempo transcurrido, en milésimas, hasta la ráfaga', async () => {
    const { a } = await escenario(impl());
    const tomar = (ms: number) => impl().repos.limites.tomarFicha(a, cubeta, mas(ms));
    for (let i = 0; i < 3; i++) await tomar(0);
    // 250 ms at 2 per second: half a token, not enough.
    expect(await tomar(250)).toEqual({ concedida: false, milifichas: 500 });
    expect(await tomar(500)).toEqual({ concedida: true, milifichas: 0 });
    expect(await tomar(500 + 1234)).toEqual({ concedida: true, milifichas: 1468 });
    // An hour later: full, never more than the burst.
    expect(await tomar(3_600_000)).toEqual({ concedida: true, milifichas: 2000 });
  });

  it('un reloj que va atrás (otra réplica) no rellena ni retrocede la cubeta', async () => {
    const { a } = await escenario(impl());
    const tomar = (ms: number) => impl().repos.limites.tomarFicha(a, cubeta, mas(ms));
    for (let i = 0; i < 3; i++) await tomar(1000);
    expect(await tomar(400)).toEqual({ concedida: false, milifichas: 0 });
    // Measured from 1000, not from 400: 200 ms = 400 milli-tokens.
    expect(await tomar(1200)).toEqual({ concedida: false, milifichas: 400 });
  });

  it('cada llave tiene su cubeta, también entre cuentas', async () => {
    const { a, otra } = await escenario(impl());
    const otraLlave = { ...a, llaveId: `${a.llaveId}_2` };
    for (let i = 0; i < 3; i++) await impl().repos.limites.tomarFicha(a, cubeta, t0);
    expect((await impl().repos.limites.tomarFicha(a, cubeta, t0)).concedida).toBe(false);
    expect(await impl().repos.limites.tomarFicha(otraLlave, cubeta, t0)).toEqual({
      concedida: true,
      milifichas: 2000,
    });
    expect((await impl().repos.limites.tomarFicha(otra, cubeta, t0)).concedida).toBe(true);
  });

  it('tomas simultáneas (réplicas a la vez, cubeta nueva y usada): exactamente `rafaga` concedidas', async () => {
    const { cuentaId } = await escenario(impl());
    const rafaga = { rafaga: 10, porSegundo: 1 };
    for (const llave of ['nueva', 'usada']) {
      const a = { ...alcanceDe(cuentaId), llaveId: `llave_${llave}_${cuentaId.slice(4, 20)}` };
      if (llave === 'usada') {
        // A bucket that exists, drained and refilled exactly to the burst.
        await impl().repos.limites.tomarFicha(a, rafaga, t0);
      }
      const cuando = llave === 'usada' ? mas(1000) : t0;
      const tomas = await Promise.all(
        Array.from({ length: 40 }, () => impl().repos.limites.tomarFicha(a, rafaga, cuando)),
      );
      const concedidas = tomas.filter((t) => t.concedida).length;
      expect({ llave, concedidas }).toEqual({ llave, concedidas: 10 });
      expect(
        tomas
          .filter((t) => t.concedida)
          .map((t) => t.milifichas)
          .sort((x, y) => x - y),
      ).toEqual(Array.from({ length: 10 }, (_, i) => i * 1000));
    }
  });

  it('los fallos de una dirección se cuentan en su ventana; vencida, empieza otra', async () => {
    const ip = direccion();
    const fallar = (ms: number) => impl().repos.limites.registrarFallo(ip, 60_000, mas(ms));
    expect(await impl().repos.limites.leerFallos(ip)).toBeUndefined();
    expect([await fallar(0), await fallar(10), await fallar(59_999)]).toEqual([1, 2, 3]);
    expect(await impl().repos.limites.leerFallos(ip)).toEqual({ fallos: 3, inicio: t0 });
    expect(await impl().repos.limites.leerFallos(direccion())).toBeUndefined();
    expect(await fallar(60_000)).toBe(1);
    expect(await impl().repos.limites.leerFallos(ip)).toEqual({ fallos: 1, inicio: mas(60_000) });
  });

  it('fallos simultáneos de una dirección: ninguno se pierde, cada uno ve su propia cuenta', async () => {
    const ip = direccion();
    const cuentas = await Promise.all(
      Array.from({ length: 25 }, () => impl().repos.limites.registrarFallo(ip, 60_000, t0)),
    );
    expect([...cuentas].sort((x, y) => x - y)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(await impl().repos.limites.leerFallos(ip)).toEqual({ fallos: 25, inicio: t0 });
  });

  it('purga las ventanas que empezaron antes del límite', async () => {
    // Instants no other test uses: the count is this test's alone.
    const viejo = instante('2001-02-03T04:05:06.007Z');
    const limite = instante('2001-02-03T04:05:06.009Z');
    const [v1, v2, nueva] = [direccion(), direccion(), direccion()];
    await impl().repos.limites.registrarFallo(v1, 1000, viejo);
    await impl().repos.limites.registrarFallo(v2, 1000, viejo);
    await impl().repos.limites.registrarFallo(nueva, 1000, limite);
    expect(await impl().repos.limites.purgarFallosAnterioresA(limite)).toBe(2);
    expect(await impl().repos.limites.leerFallos(v1)).toBeUndefined();
    expect(await impl().repos.limites.leerFallos(nueva)).toEqual({ fallos: 1, inicio: limite });
  });

  it('purga solo las cubetas inactivas de su cuentaId: la siguiente solicitud la encuentra llena', async () => {
    const ambito = `autofactura-${randomBytes(6).toString('hex')}`;
    const otro = `${ambito}-otro`;
    const vieja = { cuentaId: ambito, llaveId: '10.0.0.1' };
    const reciente = { cuentaId: ambito, llaveId: '10.0.0.2' };
    const ajena = { cuentaId: otro, llaveId: '10.0.0.1' };
    for (const c of [vieja, ajena])
      for (let i = 0; i < 3; i++) await impl().repos.limites.tomarFicha(c, cubeta, t0);
    await impl().repos.limites.tomarFicha(reciente, cubeta, mas(2000));
    expect(await impl().repos.limites.purgarCubetasInactivas(ambito, mas(1000))).toBe(1);
    // The purged one is full again; the other scope's bucket is still empty.
    expect(await impl().repos.limites.tomarFicha(vieja, cubeta, mas(1000))).toEqual({
      concedida: true,
      milifichas: 2000,
    });
    expect(await impl().repos.limites.tomarFicha(ajena, cubeta, t0)).toEqual({
      concedida: false,
      milifichas: 0,
    });
    expect((await impl().repos.limites.tomarFicha(reciente, cubeta, mas(2000))).milifichas).toBe(1000);
  });
});
