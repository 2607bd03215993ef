// The cluster-only system test: a helm upgrade under write load (.ci/cluster/test.sh runs it after the system
// suite of jest.config.js, against the same release).
const base = require('./jest.config.js');

module.exports = {
  ...base,
  displayName: 'cluster',
  testMatch: ['<rootDir>/src/cluster/**/*.cluster-spec.ts'],
  testTimeout: 900_000,
};
