module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'domain',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
