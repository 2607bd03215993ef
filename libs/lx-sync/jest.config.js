module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'lx-sync',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
