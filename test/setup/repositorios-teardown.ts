import { borrarBase } from '../../db/conexion';

export default async function globalTeardown() {
  if (process.env.TEST_BASE_REPOSITORIOS) await borrarBase(process.env.TEST_BASE_REPOSITORIOS);
}
