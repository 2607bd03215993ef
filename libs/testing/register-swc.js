// Lets a child process run the TypeScript sources directly, compiled the way jest compiles them (swc with decorator
// metadata for NestJS) and with the @lx/* path aliases of tsconfig.base.json. Tests use it to run a real relay or
// service process they can SIGKILL, the import CLI, and the benchmarks. Usage: node -r <this file> <file.ts>
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const root = path.resolve(__dirname, '../..');
const { compilerOptions } = require(path.join(root, 'tsconfig.base.json'));
const aliases = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [alias, path.join(root, target)]),
);

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveAlias(request, ...rest) {
  return resolveFilename.call(this, aliases[request] ?? request, ...rest);
};

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
