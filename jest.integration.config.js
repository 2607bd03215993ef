// Integration tests: real Postgres, Kafka and MinIO from deploy/local (endpoints in .infra/env).
const preset = require('./jest.preset.js');

module.exports = {
  ...preset,
  displayName: 'integration',
  rootDir: __dirname,
  // deploy/embedded: the one project that may run several services in one process (a trace across them).
  testMatch: [
    '<rootDir>/{libs,services}/*/test/integration/**/*.int-spec.ts',
    '<rootDir>/deploy/embedded/test/integration/**/*.int-spec.ts',
  ],
  // Each test file runs on Kafka topics of its own, deleted after it (libs/testing/src/integration-environment.ts).
  testEnvironment: '<rootDir>/libs/testing/src/integration-environment.ts',
  globalSetup: '<rootDir>/libs/testing/src/global-setup-integration.ts',
  globalTeardown: '<rootDir>/libs/testing/src/global-teardown-integration.ts',
  setupFiles: ['<rootDir>/libs/testing/src/setup-integration.ts'],
  testTimeout: 180_000,
};
