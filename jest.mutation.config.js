// The unit tests that guard the code Stryker mutates (stryker.config.json): the pure libraries only. One flat
// configuration rather than jest `projects`, which Stryker's jest runner does not apply per project.
module.exports = {
  ...require('./jest.preset.js'),
  rootDir: __dirname,
  testMatch: ['<rootDir>/libs/{contracts,domain,platform,messaging}/src/**/*.spec.ts'],
};
