import { writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { crearLogger } from '../../log/logger';
import { archivoSat, CONTRASENA_PRUEBA, CSD_VALIDO, generarCsd } from '../support/certificados';
import { CLIENTE, PRODUCTO } from '../support/cuentas';
import { cuentaLista, esperar, facturaNueva } from '../support/facturas';
import {
  arbitrarioSolicitud,
  cerrarConexiones,
  concretar,
  enviar,
  fueraDeContrato,
  operaciones,
  PESO_OPERACION,
  type Pools,
  type Recibida,
  type Solicitud,
  type SolicitudAbstracta,
} from '../support/fuzz-openapi';
import { iniciarPila, type Pila } from '../support/pila';
import { receptorWebhooks } from '../support/receptor-webhooks';

/**
 * Generated hostile input against every operation of openapi.yaml (issue 13, point 5). Properties: no 5xx, every
 * answer documented for its operation and valid against its schema, and no invoice or payment left pending.
 * FUZZ_SOLICITUDES sets the number of requests (the campaign, `npm run campania:fuzz`, sends 10,000);
 * FUZZ_SEMILLA replays a run; FUZZ_HALLAZGOS names the findings file (/tmp/hallazgos-fuzz.md).
 */

const SOLICITUDES = Number(process.env.FUZZ_SOLICITUDES ?? 800);
const SEMILLA = Number(process.env.FUZZ_SEMILLA ?? Date.now() % 1_000_000_000);
const CONCURRENCIA = Number(process.env.FUZZ_CONCURRENCIA ?? 4);
const ESPERA_FINAL_MS = Number(process.env.FUZZ_ESPERA_FINAL_S ?? (SOLICITUDES > 2000 ? 180 : 40)) * 1000;
const ARCHIVO_HALLAZGOS = process.env.FUZZ_HALLAZGOS ?? '/tmp/hallazgos-fuzz.md';

interface Hallazgo {
  tipo: '5xx' | 'fuera_de_contrato' | 'sin_respuesta';
  clave: string;
  veces: number;
  indice: number;
  solicitud: Solicitud;
  recibida?: Recibida;
  detalle: string;
  registro: string[];
}

const mostrarCuerpo = (b?: Buffer) => {
  if (!b) return '(sin cuerpo)';
  const texto = b.subarray(0, 1500).toString('utf8');
  // JSON.stringify shows control characters, lone surrogates and U+FFFD from invalid bytes.
  return `${JSON.stringify(texto)}${b.length > 1500 ? ` … (${b.length} bytes)` : ''}`;
};

function informe(hallazgos: Hallazgo[], resumen: string, estados: Map<string, Map<number, number>>): string {
  const partes = [`# Hallazgos del fuzz de contrato\n\n\`${resumen}\`\n`];
  const filas = [...estados].map(
    ([op, porStatus]) =>
      `| ${op} | ${[...porStatus]
        .sort(([a], [b]) => a - b)
        .map(([st, n]) => `${st}×${n}`)
        .join(' ')} |`,
  );
  partes.push(['| operación | status recibidos |', '|---|---|', ...filas.sort(), ''].join('\n'));
  partes.push(
    `Repetir: \`FUZZ_SEMILLA=${SEMILLA} FUZZ_SOLICITUDES=${SOLICITUDES} npx jest --selectProjects integration --runTestsByPath test/integration/fuzz-contrato.test.ts\`\n`,
  );
  if (!hallazgos.length) partes.push('Sin hallazgos.\n');
  for (const h of hallazgos) {
    partes.push(
      [
        `## [${h.tipo}] ${h.solicitud.operacion}: ${h.clave}`,
        '',
        `- veces: ${h.veces} (primera: solicitud #${h.indice})`,
        `- mutaciones: ${h.solicitud.mutaciones.join(', ') || 'ninguna'}`,
        `- solicitud: \`${h.solicitud.metodo} ${h.solicitud.ruta.slice(0, 300)}\``,
        `- encabezados: \`${JSON.stringify({ ...h.solicitud.encabezados, authorization: '(llave de prueba)' })}\``,
        `- cuerpo: ${mostrarCuerpo(h.solicitud.cuerpo)}`,
        `- respuesta: ${h.recibida ? `${h.recibida.status} ${mostrarCuerpo(h.recibida.cuerpo)}` : '(ninguna)'}`,
        ...(h.detalle ? ['', '```', h.detalle, '```'] : []),
        ...(h.registro.length
          ? ['', 'Registro:', '```', ...h.registro.map((l) => l.slice(0, 1500)), '```']
          : []),
        '',
      ].join('\n'),
    );
  }
  return partes.join('\n');
}

describe('fuzz de contrato: entradas generadas desde openapi.yaml', () => {
  let pila: Pila;
  let hook: Awaited<ReturnType<typeof receptorWebhooks>>;
  let c: Awaited<ReturnType<typeof cuentaLista>>;
  const pools: Pools = new Map();
  // Warnings and errors of the API and worker, to attach the log line of a 5xx to its finding.
  const registro: string[] = [];
  const agregar = (pool: string, ...valores: unknown[]) => {
    const lista = pools.get(pool) ?? [];
    for (const v of valores) if (v !== undefined && v !== null && !lista.includes(v)) lista.push(v);
    pools.set(pool, lista.slice(-60));
  };

  beforeAll(async () => {
    const destino = new Writable({
      write(chunk, _e, cb) {
        registro.push(String(chunk));
        if (registro.length > 20_000) registro.splice(0, 10_000);
        cb();
      },
    });
    pila = await iniciarPila({
      logger: crearLogger('fuzz', 'warn', destino),
      limite: { porSegundo: 1_000_000, rafaga: 1_000_000 },
      timbradoEsperaMs: 8_000,
      cancelacionSondeoMs: 300,
      programaEntregasS: [0, 2, 4, 6, 8],
      graciaDespachoMs: 0,
    });
    // The run's webhooks: 200, and 500 to every third delivery.
    hook = await receptorWebhooks((n) => (n % 3 === 0 ? 500 : 200));
    c = await cuentaLista(pila);
    const h = c.http;

    // Main pools: the resources valid requests use. Writes (PATCH, DELETE) go to the sacrificial ones.
    agregar('org', c.org);
    agregar('rfc_org', 'EKU9003173C9');
    agregar('cli', c.cli);
    agregar('rfc_cli', CLIENTE.rfc);
    agregar('prod', c.prod);
    agregar('contrasena', CONTRASENA_PRUEBA);
    agregar('url_webhook', hook.url, 'http://127.0.0.1:9/cerrado', 'http://169.254.169.254/latest/meta-data');
    const otro = generarCsd({ rfc: 'AAA010101AAA' });
    agregar('cer_bin', archivoSat(CSD_VALIDO.cer), otro.cer);
    agregar('llave_bin', archivoSat(CSD_VALIDO.key), otro.llave);
    agregar('cert', (await h.get('/v1/certificados')).body.datos[0].id);

    const wh = await h.post('/v1/webhooks', {
      url: hook.url,
      eventos_suscritos: ['factura.creada', 'factura.timbrada', 'pago.creado', 'factura.cancelada'],
    });
    expect(wh.status).toBe(201);
    agregar('wh', wh.body.id);

    for (const extra of [
      {},
      { metodo_pago: 'PPD', forma_pago: undefined },
      { metodo_pago: 'PPD', forma_pago: undefined },
    ]) {
      const f = await h.post('/v1/facturas', facturaNueva(c, extra));
      expect(f.status).toBe(201);
      agregar('fac', f.body.id);
      agregar('uuid', f.body.uuid);
      if (extra.metodo_pago) agregar('fac_ppd', f.body.id);
    }
    const borrador = await h.post('/v1/facturas', facturaNueva(c, { auto_timbrar: false }));
    agregar('fac', borrador.body.id);
    const ppd = pools.get('fac_ppd')![0];
    const pago = await h.post('/v1/pagos', {
      organizacion: c.org,
      fecha_pago: new Date().toISOString(),
      forma_pago: '03',
      monto: '10.00',
      facturas_pagadas: [{ factura: ppd, imp_pagado: '10.00' }],
    });
    expect(pago.status).toBe(201);
    agregar('pago', pago.body.id);
    agregar('fac', pago.body.factura_pago);

    // Sacrificial resources: a second organization with its own CSD, clients, products, webhooks, keys.
    const orgSac = await h.post('/v1/organizaciones', {
      rfc: 'AAA010101AAA',
      nombre: 'ORGANIZACION SACRIFICABLE',
      regimen_fiscal: '601',
      codigo_postal: '06000',
    });
    expect(orgSac.status).toBe(201);
    agregar('org_sac', orgSac.body.id);
    const certSac = await h.post('/v1/certificados', {
      organizacion: orgSac.body.id,
      cer: otro.cer.toString('base64'),
      llave: otro.llave.toString('base64'),
      contrasena: otro.contrasena,
    });
    expect(certSac.status).toBe(201);
    agregar('cert_sac', certSac.body.id);
    for (let i = 0; i < 2; i++) {
      agregar(
        'cli_sac',
        (await h.post('/v1/clientes', { ...CLIENTE, organizacion: orgSac.body.id })).body.id,
      );
      agregar(
        'prod_sac',
        (await h.post('/v1/productos', { ...PRODUCTO, organizacion: orgSac.body.id })).body.id,
      );
      agregar(
        'wh_sac',
        (await h.post('/v1/webhooks', { url: hook.url, eventos_suscritos: ['pago.creado'] })).body.id,
      );
      agregar(
        'llave_sac',
        (await h.post('/v1/llaves_api', { nombre: `sacrificable ${i}`, modo: 'test' })).body.id,
      );
    }
    const eventos = await h.get('/v1/eventos?paginacion.limite=100');
    agregar('evt', ...eventos.body.datos.map((e: { id: string }) => e.id));
    const entregas = await esperar(async () => {
      const r = await h.get(`/v1/webhooks/${wh.body.id}/entregas`);
      return r.body.datos.length ? r.body.datos : undefined;
    });
    agregar('ent', ...entregas.map((e: { id: string }) => e.id));
  }, 180_000);

  afterAll(async () => {
    cerrarConexiones();
    await hook?.cerrar();
    await pila?.detener();
  });

  /** New ids from successful answers join the pools, so later requests reach what earlier ones made. */
  function cosechar(s: Solicitud, r: Recibida) {
    if (r.status >= 300 || !r.tipoContenido.startsWith('application/json')) return;
    let cuerpo: any;
    try {
      cuerpo = JSON.parse(r.cuerpo.toString('utf8'));
    } catch {
      return;
    }
    if (typeof cuerpo?.paginacion?.siguiente_cursor === 'string')
      agregar('cursor', cuerpo.paginacion.siguiente_cursor);
    const elementos = Array.isArray(cuerpo?.datos) ? cuerpo.datos.slice(0, 5) : [cuerpo];
    for (const e of elementos) {
      const id = typeof e?.id === 'string' ? (e.id as string) : '';
      const prefijo = id.split('_')[0];
      if (prefijo === 'fac') {
        agregar('fac', id);
        if (e.uuid) agregar('uuid', e.uuid);
        if (e.metodo_pago === 'PPD' && e.estado === 'timbrada') agregar('fac_ppd', id);
      } else if (prefijo === 'pago' || prefijo === 'evt' || prefijo === 'ent') agregar(prefijo, id);
      else if (s.metodo === 'POST' && ['cli', 'prod', 'wh', 'llave', 'org', 'cert'].includes(prefijo ?? ''))
        agregar(`${prefijo}_sac`, id);
    }
  }

  it(
    'ninguna solicitud generada recibe un 5xx ni una respuesta fuera de openapi.yaml, y nada queda pendiente',
    async () => {
      const inicio = Date.now();
      const ops = operaciones();
      const porId = new Map(ops.map((o) => [o.id, o]));
      // Weighted round robin over the operations, so a short run still covers every one.
      const peso = (id: string) => PESO_OPERACION[id] ?? 1;
      const vueltas = Math.ceil(SOLICITUDES / ops.reduce((t, o) => t + peso(o.id), 0));
      const muestras = ops.map((op, i) =>
        fc.sample(arbitrarioSolicitud(op), { numRuns: vueltas * peso(op.id), seed: SEMILLA + i }),
      );
      const cola: SolicitudAbstracta[] = [];
      for (let k = 0; k < vueltas; k++)
        for (const [i, m] of muestras.entries())
          for (const x of m.slice(k * peso(ops[i]!.id), (k + 1) * peso(ops[i]!.id)))
            if (cola.length < SOLICITUDES) cola.push(x);

      const hallazgos = new Map<string, Hallazgo>();
      const cubiertas = new Set<string>();
      const estados = new Map<string, Map<number, number>>();
      const cuenta = { '5xx': 0, fuera_de_contrato: 0, sin_respuesta: 0 };
      const anotar = (h: Omit<Hallazgo, 'veces' | 'registro'>) => {
        cuenta[h.tipo] += 1;
        const clave = `${h.tipo} ${h.solicitud.operacion} ${h.clave}`;
        const previo = hallazgos.get(clave);
        if (previo) previo.veces += 1;
        else {
          const id = h.solicitud.encabezados['X-Request-Id']!;
          hallazgos.set(clave, {
            ...h,
            veces: 1,
            registro: registro.filter((l) => l.includes(id)).slice(0, 5),
          });
        }
      };

      let siguiente = 0;
      const trabajador = async () => {
        for (;;) {
          const indice = siguiente++;
          const abstracta = cola[indice];
          if (!abstracta) return;
          const op = porId.get(abstracta.operacion)!;
          const s = concretar(abstracta, pools);
          s.encabezados.authorization = `Basic ${Buffer.from(`${c.secreto}:`).toString('base64')}`;
          s.encabezados['X-Request-Id'] = `fuzz${SEMILLA}n${indice}`;
          cubiertas.add(op.id);
          let r: Recibida;
          try {
            r = await enviar(pila.url, s);
          } catch (e) {
            anotar({ tipo: 'sin_respuesta', clave: (e as Error).message, indice, solicitud: s, detalle: '' });
            continue;
          }
          if (r.status >= 500) {
            let codigo = '';
            try {
              codigo = JSON.parse(r.cuerpo.toString('utf8')).error.codigo;
            } catch {
              codigo = 'sin sobre de error';
            }
            const linea = registro.find(
              (l) => l.includes(s.encabezados['X-Request-Id']!) && l.includes('"err"'),
            );
            const causa = linea ? (/"message":"([^"]{0,160})/.exec(linea)?.[1] ?? '') : '';
            anotar({
              tipo: '5xx',
              clave: `${r.status} ${codigo} ${causa}`,
              indice,
              solicitud: s,
              recibida: r,
              detalle: '',
            });
            continue;
          }
          const porStatus = estados.get(op.id) ?? new Map<number, number>();
          porStatus.set(r.status, (porStatus.get(r.status) ?? 0) + 1);
          estados.set(op.id, porStatus);
          const fuera = fueraDeContrato(op, r);
          if (fuera) anotar({ tipo: 'fuera_de_contrato', ...fuera, indice, solicitud: s, recibida: r });
          cosechar(s, r);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCIA }, trabajador));

      // Whatever the run started must end: no invoice stamping or cancelling, no payment registering, forever.
      const pendientes = async () => {
        const fuera: string[] = [];
        for (const ruta of ['/v1/facturas', '/v1/pagos']) {
          let cursor: string | null = null;
          do {
            const r: any = await c.http.get(
              `${ruta}?paginacion.limite=100${cursor ? `&paginacion.cursor_inicio=${encodeURIComponent(cursor)}` : ''}`,
            );
            expect(r.status).toBe(200);
            for (const x of r.body.datos)
              if (
                x.timbrado?.estado === 'pendiente' ||
                x.cancelacion?.estado === 'solicitada' ||
                x.estado === 'registrando'
              )
                fuera.push(
                  `${x.id} timbrado=${x.timbrado?.estado} cancelacion=${x.cancelacion?.estado} intentos=${x.timbrado?.intentos}`,
                );
            cursor = r.body.paginacion.siguiente_cursor;
          } while (cursor);
        }
        return fuera;
      };
      let atascadas = await pendientes();
      const limite = Date.now() + ESPERA_FINAL_MS;
      while (atascadas.length && Date.now() < limite) {
        await new Promise((r) => setTimeout(r, 2_000));
        atascadas = await pendientes();
      }

      const resumen =
        `fuzz solicitudes=${cola.length} operaciones=${cubiertas.size}/${ops.length} 5xx=${cuenta['5xx']} ` +
        `fuera_de_contrato=${cuenta.fuera_de_contrato} sin_respuesta=${cuenta.sin_respuesta} ` +
        `atascadas=${atascadas.length} distintos=${hallazgos.size} semilla=${SEMILLA} ` +
        `duracion_s=${Math.round((Date.now() - inicio) / 1000)}`;
      const lista = [...hallazgos.values()].sort((a, b) => a.tipo.localeCompare(b.tipo) || b.veces - a.veces);
      writeFileSync(
        ARCHIVO_HALLAZGOS,
        informe(lista, resumen, estados) +
          (atascadas.length
            ? `\n## Pendientes tras ${ESPERA_FINAL_MS / 1000} s\n\n${atascadas.join('\n')}\n`
            : ''),
      );
      process.stdout.write(`${resumen}\n`);

      expect([...cubiertas].sort()).toEqual(ops.map((o) => o.id).sort());
      expect({
        resumen,
        hallazgos: lista.map((h) => `[${h.tipo}] ${h.solicitud.operacion}: ${h.clave} (${h.veces}×)`),
        atascadas,
      }).toEqual({ resumen, hallazgos: [], atascadas: [] });
    },
    Math.max(600_000, SOLICITUDES * 300),
  );
});
