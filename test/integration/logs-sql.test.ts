import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { cargarConfig } from '../../config/config';
import { crearKnex, type Knex } from '../../db/conexion';
import { crearTransacciones } from '../../db/transacciones';
import { crearLogger } from '../../log/logger';
import { nuevaCuenta, ORGANIZACION } from '../support/cuentas';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import { iniciarPila, type Pila } from '../support/pila';

describe('un error de la base de datos en una solicitud', () => {
  let pila: Pila;
  const lineas: string[] = [];
  // Unique per run: the trigger lives in the shared test database and fires only for this name.
  const marca = `MARCA${randomBytes(6).toString('hex').toUpperCase()}`;
  const disparador = `prueba_logs_${marca.toLowerCase()}`;

  beforeAll(async () => {
    const destino = new Writable({
      write(chunk, _enc, cb) {
        lineas.push(String(chunk));
        cb();
      },
    });
    pila = await iniciarPila({ worker: false, pac: false, logger: crearLogger('prueba', 'info', destino) });
    await pila.db.raw(
      `create trigger ${disparador} before insert on organizaciones for each row ` +
        `if new.nombre like '%${marca}%' then signal sqlstate '45000' set message_text = 'falla forzada'; end if`,
    );
  });
  afterAll(async () => {
    await pila.db.raw(`drop trigger if exists ${disparador}`);
    await pila.detener();
  });

  it('responde 500 sin detalles y el log no lleva la sentencia ni los valores de la fila', async () => {
    const cuenta = await nuevaCuenta(pila.db, pila.url);
    // Plain fetch: openapi.yaml documents no 500 per operation, which the test client would refuse.
    const r = await fetch(`${pila.url}/v1/organizaciones`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Basic ${Buffer.from(`${cuenta.secreto}:`).toString('base64')}`,
      },
      body: JSON.stringify({ ...ORGANIZACION, nombre: `ESCUELA ${marca}` }),
    });
    const cuerpo = await r.text();
    expect(r.status).toBe(500);
    expect(JSON.parse(cuerpo).error.codigo).toBe('error_interno');
    expect(cuerpo).not.toContain(marca);

    const registrado = lineas.map((l) => JSON.parse(l)).find((l) => l.mensaje === 'error no controlado');
    expect(registrado.err).toMatchObject({
      code: 'ER_SIGNAL_EXCEPTION',
      errno: 1644,
      sqlState: '45000',
      message: 'falla forzada',
    });
    const texto = lineas.join('');
    for (const valor of [marca, ORGANIZACION.rfc, 'insert into']) expect(texto).not.toContain(valor);
  });
});

describe('un error de la base de datos en una actividad', () => {
  let pila: Pila;
  const marca = `MARCA${randomBytes(6).toString('hex').toUpperCase()}`;
  const disparador = `prueba_historia_${marca.toLowerCase()}`;

  beforeAll(async () => {
    pila = await iniciarPila({ timbradoEsperaMs: 500 });
    // The stamp's write fails while the trigger exists: the stamped XML carries the concept's description.
    await pila.db.raw(
      `create trigger ${disparador} before update on facturas for each row ` +
        `if new.xml_timbrado like '%${marca}%' then signal sqlstate '45000' set message_text = 'falla forzada'; end if`,
    );
  });
  afterAll(async () => {
    await pila.db.raw(`drop trigger if exists ${disparador}`);
    await pila.detener();
  });

  it('la falla que guarda Temporal (historia, UI) no lleva la sentencia ni los valores; el reintento timbra', async () => {
    const c = await cuentaLista(pila);
    const r = await c.http.post(
      '/v1/facturas',
      facturaNueva(c, { conceptos: [{ producto: c.prod, cantidad: 1, descripcion: `Servicio ${marca}` }] }),
    );
    expect(r.status).toBe(202);
    const flujo = pila.cliente.workflow.getHandle(`timbrado:${r.body.id}`);
    const falla = await esperar(async () => {
      const d = await flujo.describe();
      return d.raw.pendingActivities?.find((p) => p.lastFailure)?.lastFailure ?? undefined;
    }, 60_000);
    const texto = JSON.stringify(falla);
    expect(texto).toContain('falla forzada');
    expect(falla.applicationFailureInfo?.type).toBe('ER_SIGNAL_EXCEPTION');
    for (const valor of [marca, 'update `facturas`', c.cuentaId]) expect(texto).not.toContain(valor);

    await pila.db.raw(`drop trigger if exists ${disparador}`);
    const f = await esperar(async () => {
      const g = await c.http.get(`/v1/facturas/${r.body.id}`);
      return g.body.estado === 'timbrada' ? g.body : undefined;
    }, 120_000);
    expect(f.uuid).toMatch(/^[0-9A-F-]{36}$/);
    const historia = JSON.stringify(await flujo.fetchHistory());
    for (const valor of [marca, 'update `facturas`']) expect(historia).not.toContain(valor);
  });
});

describe('aislamiento de las transacciones', () => {
  it('toda conexión del pool abre READ COMMITTED, sin un SET por transacción', async () => {
    const db = crearKnex(cargarConfig(process.env).databaseUrl, { min: 0, max: 2 });
    try {
      const nivel = await crearTransacciones(db).ejecutar(async (tx) => {
        const [filas] = await (tx as unknown as Knex.Transaction).raw('SELECT @@tx_isolation AS nivel');
        return (filas as { nivel: string }[])[0]!.nivel;
      });
      expect(nivel).toBe('READ-COMMITTED');
      // A connection opened later (after the pool dropped one, or a database restart) too.
      await db.destroy();
      const otra = crearKnex(cargarConfig(process.env).databaseUrl, { min: 0, max: 1 });
      const [filas] = await otra.raw('SELECT @@tx_isolation AS nivel');
      expect((filas as { nivel: string }[])[0]!.nivel).toBe('READ-COMMITTED');
      await otra.destroy();
    } finally {
      await db.destroy().catch(() => undefined);
    }
  });
});
