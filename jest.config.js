/** Unit tests need nothing; integration tests get Temporal, MariaDB and Chromium from the global setup. */
const swc = [
  '@swc/jest',
  { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
];

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 1,
  forceExit: true,
};
