module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'statistics-projection',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
