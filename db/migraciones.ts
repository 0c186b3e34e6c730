import type { Knex } from 'knex';
import * as m001 from './migrations/001_cuentas_llaves';
import * as m002 from './migrations/002_sondas_salud';
import * as m003 from './migrations/003_catalogos';
import * as m004 from './migrations/004_plataforma';
import * as m005 from './migrations/005_certificados_unicos';
import * as m006 from './migrations/006_facturas_eventos';
import * as m007 from './migrations/007_folios';
import * as m008 from './migrations/008_idempotencia_cifrada';
import * as m009 from './migrations/009_timbres_sandbox';
import * as m010 from './migrations/010_pagos';
import * as m011 from './migrations/011_webhooks';
import * as m012 from './migrations/012_procesos_pendientes';
import * as m013 from './migrations/013_idempotencia_recurso';
import * as m014 from './migrations/014_eventos_actor_recursos';
import * as m015 from './migrations/015_limites_compartidos';
import * as m016 from './migrations/016_acuse_cancelacion';
import * as m017 from './migrations/017_correos';
import * as m018 from './migrations/018_recibos';
import * as m019 from './migrations/019_facturas_globales';
import * as m020 from './migrations/020_logos_organizacion';
import * as m021 from './migrations/021_pendientes';
import * as m022 from './migrations/022_usuarios_consola';
import * as m023 from './migrations/023_consola_consultas';

interface Migracion {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

// An explicit list rather than a folder scan: the same code runs from TypeScript (tests) and from dist.
const MIGRACIONES: Record<string, Migracion> = {
  '001_cuentas_llaves': m001,
  '002_sondas_salud': m002,
  '003_catalogos': m003,
  '004_plataforma': m004,
  '005_certificados_unicos': m005,
  '006_facturas_eventos': m006,
  '007_folios': m007,
  '008_idempotencia_cifrada': m008,
  '009_timbres_sandbox': m009,
  '010_pagos': m010,
  '011_webhooks': m011,
  '012_procesos_pendientes': m012,
  '013_idempotencia_recurso': m013,
  '014_eventos_actor_recursos': m014,
  '015_limites_compartidos': m015,
  '016_acuse_cancelacion': m016,
  '017_correos': m017,
  '018_recibos': m018,
  '019_facturas_globales': m019,
  '020_logos_organizacion': m020,
  '021_pendientes': m021,
  '022_usuarios_consola': m022,
  '023_consola_consultas': m023,
};

const fuente: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRACIONES),
  getMigrationName: (nombre) => nombre,
  getMigration: async (nombre) => MIGRACIONES[nombre]!,
};

export async function migrar(knex: Knex): Promise<string[]> {
  const [, aplicadas] = (await knex.migrate.latest({ migrationSource: fuente })) as [number, string[]];
  return aplicadas;
}
