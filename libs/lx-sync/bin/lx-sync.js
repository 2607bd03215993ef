#!/usr/bin/env node
// The lx-sync command. In the monorepo it runs the TypeScript sources (compiled on the fly like the tests and
// `npm start`), so `npx lx-sync` works right after `npm ci`; a published package holds only the build in dist/.
const fs = require('node:fs');
const path = require('node:path');

const sources = path.join(__dirname, '..', 'src', 'cli.ts');
const register = path.join(__dirname, '..', '..', 'testing', 'register-swc.js');
if (fs.existsSync(sources) && fs.existsSync(register)) {
  require(register);
  require(sources).main(process.argv);
} else {
  require(path.join(__dirname, '..', 'dist', 'libs', 'lx-sync', 'src', 'cli.js')).main(process.argv);
}
