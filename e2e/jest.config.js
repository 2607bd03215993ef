// System tests: the whole stack through its public base URL (BASE_URL from .infra/env after
// `npm run stack:up`, or any deployment named by BASE_URL and the *_URL variables).
module.exports = {
  ...require('../jest.preset.js'),
  displayName: 'e2e',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.e2e-spec.ts'],
  setupFiles: ['<rootDir>/../libs/testing/src/setup-integration.ts'],
  testTimeout: 60_000,
};
