// Unit tests of every project in one jest run (npm test); `nx test <project>` runs one project.
module.exports = {
  projects: [
    '<rootDir>/libs/*/jest.config.js',
    '<rootDir>/services/*/jest.config.js',
    '<rootDir>/deploy/embedded/jest.config.js',
  ],
};
