module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'embedded',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
