module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'location-query',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
