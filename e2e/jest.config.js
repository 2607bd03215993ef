// System tests: the whole stack through its public base URL (BASE_URL from .infra/env after
// `npm run stack:up`, or any deployment named by BASE_URL and the *_URL variables).
const preset = require('../jest.preset.js');

// The OAuth client libraries the discovery tests use as an RSP would (openid-client, oauth4webapi, and the jose 6
// that openid-client brings) ship only ES modules, and jest runs CommonJS: swc compiles them as it compiles the tests.
const ESM_ONLY_PACKAGES = ['openid-client', 'oauth4webapi', 'jose'];

module.exports = {
  ...preset,
  displayName: 'e2e',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.e2e-spec.ts'],
  setupFiles: ['<rootDir>/../libs/testing/src/setup-integration.ts'],
  testTimeout: 60_000,
  // One file at a time: the suite shares one stack, and some files (lx-sync's mirror of everything, the statistics
  // counts) compare the whole operator's data, which another file's writes would change under them.
  maxWorkers: 1,
  transform: {
    ...preset.transform,
    '^.+\\.js$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY_PACKAGES.join('|')})/)`],
};
