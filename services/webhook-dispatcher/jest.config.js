module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'webhook-dispatcher',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
