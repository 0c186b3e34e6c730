/**
 * Two tiers. `unit` needs no infrastructure (no Temporal, MariaDB or Chromium): pure logic, and services and
 * activities over in-memory fakes. `integration` gets real Temporal, MariaDB and Chromium from its global
 * setup. `npx jest --selectProjects unit` runs the first alone; `make test` runs both.
 */
const swc = [
  '@swc/jest',
  { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
];

const comun = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

module.exports = {
  testTimeout: 60000,
  maxWorkers: 1,
  // Each test file's modules stay reachable after it ends (native handles of the Temporal SDK, Chromium, timers
  // of libraries): in one long-lived process the suite outgrew Node's 4 GB heap. A worker process is replaced
  // once it holds more than this after a file (setting it also makes Jest use a worker instead of running in band).
  workerIdleMemoryLimit: '1536MB',
  projects: [
    { ...comun, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...comun,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
  ],
};
