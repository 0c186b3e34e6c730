import { leerReplicas, procesosDelServicio, type OpcionesProcesos } from '../../scripts/replicas';

const base = (replicas: OpcionesProcesos['replicas']): OpcionesProcesos => ({
  replicas,
  node: '/usr/bin/node',
  host: '0.0.0.0',
  puertoPublico: 3000,
  metricasWorker: '127.0.0.1:9464',
  rutaBalanceador: '/tmp/haproxy.cfg',
});

describe('réplicas de make up (scripts/replicas.ts)', () => {
  it('lee API_REPLICAS, WORKER_REPLICAS y PDF_REPLICAS: 1 por omisión, enteros de 1 a 16', () => {
    expect(leerReplicas({})).toEqual({ api: 1, worker: 1, pdf: 1 });
    expect(leerReplicas({ API_REPLICAS: '2', WORKER_REPLICAS: '3', PDF_REPLICAS: '' })).toEqual({
      api: 2,
      worker: 3,
      pdf: 1,
    });
    for (const malo of ['0', 'dos', '1.5', '17', '-1'])
      expect(() => leerReplicas({ WORKER_REPLICAS: malo })).toThrow(`WORKER_REPLICAS=${malo} no es válido`);
  });

  it('una réplica de cada uno es la disposición de siempre: la API en el puerto público, sin balanceador', () => {
    const { procesos, balanceador } = procesosDelServicio(base({ api: 1, worker: 1, pdf: 1 }));
    expect(balanceador).toBeUndefined();
    expect(procesos.map((p) => [p.nombre, p.argumentos.join(' '), p.entorno, p.puerto])).toEqual([
      ['pac', 'dist/pac/sandbox/main.js', {}, undefined],
      [
        'worker',
        'dist/worker/main.js',
        { WORKER_COLAS: 'principal', WORKER_METRICAS: '127.0.0.1:9464' },
        undefined,
      ],
      ['pdf', 'dist/worker/main.js', { WORKER_COLAS: 'pdf', WORKER_METRICAS: '127.0.0.1:9465' }, undefined],
      ['api', 'dist/api/main.js', {}, 3000],
    ]);
  });

  it('con varias: nombres numerados, puertos de métricas y de API que no chocan, HAProxy en el puerto público', () => {
    const { procesos, balanceador } = procesosDelServicio({
      ...base({ api: 2, worker: 2, pdf: 3 }),
      proxiesConfiables: '10.0.0.0/8',
    });
    expect(procesos.map((p) => p.nombre)).toEqual([
      'pac',
      'worker1',
      'worker2',
      'pdf1',
      'pdf2',
      'pdf3',
      'api1',
      'api2',
      'haproxy',
    ]);
    const metricas = procesos.flatMap((p) => (p.entorno.WORKER_METRICAS ? [p.entorno.WORKER_METRICAS] : []));
    expect(metricas).toEqual([9464, 9465, 9466, 9467, 9468].map((n) => `127.0.0.1:${n}`));
    const apis = procesos.filter((p) => p.tipo === 'api');
    expect(apis.map((p) => p.entorno)).toEqual([
      { PORT: '3001', HOST: '127.0.0.1', PROXIES_CONFIABLES: '10.0.0.0/8,loopback' },
      { PORT: '3002', HOST: '127.0.0.1', PROXIES_CONFIABLES: '10.0.0.0/8,loopback' },
    ]);
    const haproxy = procesos.at(-1)!;
    expect(haproxy).toMatchObject({ puerto: 3000, argumentos: ['-db', '-f', '/tmp/haproxy.cfg'] });
    expect(balanceador).toContain('bind 0.0.0.0:3000');
    expect(balanceador).toContain('server api1 127.0.0.1:3001 check');
    expect(balanceador).toContain('server api2 127.0.0.1:3002 check');
    // Metrics on any free port stay so for every worker.
    const libres = procesosDelServicio({
      ...base({ api: 1, worker: 2, pdf: 2 }),
      metricasWorker: '127.0.0.1:0',
    });
    expect(new Set(libres.procesos.map((p) => p.entorno.WORKER_METRICAS).filter(Boolean))).toEqual(
      new Set(['127.0.0.1:0']),
    );
  });

  it('los puertos de las réplicas pueden darse (la prueba de escala usa puertos libres)', () => {
    const { procesos } = procesosDelServicio({
      ...base({ api: 2, worker: 1, pdf: 1 }),
      puertosApi: [41001, 41777],
    });
    expect(procesos.filter((p) => p.tipo === 'api').map((p) => p.puerto)).toEqual([41001, 41777]);
    expect(() => procesosDelServicio({ ...base({ api: 3, worker: 1, pdf: 1 }), puertosApi: [1, 2] })).toThrow(
      /3 puertos/,
    );
  });
});
