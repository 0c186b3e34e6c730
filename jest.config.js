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
