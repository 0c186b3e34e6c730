import { ATRIBUTOS, atributosParaCli } from '../../workflows/atributos';
import { argumentosServidorDev } from '../../scripts/temporal/servidor-dev';

describe('servidor de desarrollo de Temporal', () => {
  it('registra cada atributo de búsqueda del proyecto con su tipo', () => {
    expect(atributosParaCli()).toEqual(
      Object.values(ATRIBUTOS).map(
        (k) =>
          `${k.name}=${
            (
              {
                FacturasPagadas: 'KeywordList',
                Referencias: 'KeywordList',
                ErrorTimbrado: 'KeywordList',
                IntentosEntrega: 'Int',
              } as Record<string, string>
            )[k.name] ?? 'Keyword'
          }`,
      ),
    );
    expect(atributosParaCli()).toContain('FacturaId=Keyword');
    // A payment names every invoice it paid: one list attribute finds them all.
    expect(atributosParaCli()).toContain('FacturasPagadas=KeywordList');
  });

  it('persiste en SQLite con la interfaz web para make up', () => {
    const a = argumentosServidorDev({
      ip: '127.0.0.1',
      puerto: 7233,
      namespace: 'default',
      puertoUi: 8233,
      archivoDb: '/x/dev.sqlite',
    });
    expect(a.slice(0, 2)).toEqual(['server', 'start-dev']);
    expect(a.join(' ')).toContain('--ui-port 8233');
    expect(a.join(' ')).toContain('--db-filename /x/dev.sqlite');
    expect(a).not.toContain('--headless');
  });

  it('sin interfaz web ni archivo para las pruebas', () => {
    const a = argumentosServidorDev({ ip: '127.0.0.1', puerto: 1, namespace: 'default', puertoUi: null });
    expect(a).toContain('--headless');
    expect(a).not.toContain('--db-filename');
  });
});
