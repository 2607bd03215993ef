// The embedded profile's system test: npm start's entry point as a user runs it (deploy/embedded/test.sh).
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'embedded',
  rootDir: __dirname,
  testMatch: ['<rootDir>/test/**/*.system-spec.ts'],
  testTimeout: 120_000,
};
