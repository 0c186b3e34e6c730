/**
 * Four tiers, each a jest project runnable alone (`npx jest --selectProjects <name>`, or the Makefile's targets):
 * - `unit`: no infrastructure (no Temporal, MariaDB or Chromium): pure logic, and services and activities over
 *   the in-memory fakes of test/support/memoria.
 * - `repositorios`: one contract suite per repository, run against its in-memory fake and against MariaDB, so the
 *   fakes the unit tier trusts are proven to behave like the real thing. Its global setup makes a database only.
 * - `flujos`: the workflows on a real Temporal server with their activities faked, and recorded histories
 *   replayed. Its global setup starts a Temporal dev server only.
 * - `integration`: end to end, for what only the whole stack can show (real API, Temporal, MariaDB, Chromium and
 *   sandbox PAC).
 * `make test` runs all four.
 */
const swc = [
  '@swc/jest',
  { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
];

const comun = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  // The SDK's examples import it by its package name, as integrators do.
  moduleNameMapper: { '^@cfdi-api/sdk$': '<rootDir>/sdk/src' },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

module.exports = {
  testTimeout: 60000,
  maxWorkers: 1,
  // Each test file's modules stay reachable after it ends (native handles of the Temporal SDK, Chromium, timers
  // of libraries): in one long-lived process the suite outgrew Node's 4 GB heap. A worker process is replaced
  // once it holds more than this after a file (setting it also makes Jest use a worker instead of running in band).
  workerIdleMemoryLimit: '1536MB',
  testSequencer: '<rootDir>/test/setup/secuenciador.js',
  projects: [
    { ...comun, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...comun,
      displayName: 'repositorios',
      testMatch: ['<rootDir>/test/repositorios/**/*.test.ts'],
      globalSetup: '<rootDir>/test/setup/repositorios-setup.ts',
      globalTeardown: '<rootDir>/test/setup/repositorios-teardown.ts',
    },
    {
      ...comun,
      displayName: 'flujos',
      testMatch: ['<rootDir>/test/flujos/**/*.test.ts'],
      globalSetup: '<rootDir>/test/setup/flujos-setup.ts',
      globalTeardown: '<rootDir>/test/setup/flujos-teardown.ts',
    },
    {
      ...comun,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
  ],
};
