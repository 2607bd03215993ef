module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'location-command',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
