// Shared jest settings: swc compiles TypeScript (with decorator metadata for NestJS) and the
// tsconfig path aliases resolve to the libraries' sources.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias}$`, path.join(__dirname, target)]),
);

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
};
