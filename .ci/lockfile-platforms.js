#!/usr/bin/env node
// Completes package-lock.json with the platform-specific optional packages (other OS/CPU builds of
// @swc/core, @nx/nx-*, resolver bindings, …) that this workplace's npm registry does not serve.
// `npm install` leaves them out when it cannot fetch their metadata, and `npm ci` then refuses the
// lockfile ("Missing: … from lock file"). The entries added carry only version, os and cpu, so npm
// skips them on any platform they do not match, as it would with complete metadata.
//
//   node .ci/lockfile-platforms.js          fix package-lock.json in place
//   node .ci/lockfile-platforms.js --check  exit 1 if entries are missing
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const file = join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'wasm32'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = OS.find((candidate) => parts.includes(candidate));
  const cpu = CPU.find(
    (candidate) => parts.includes(candidate) || (candidate === 'arm' && parts.includes('gnueabihf')),
  );
  const libc =
    parts.includes('musl') || parts.includes('musleabihf')
      ? 'musl'
      : parts.includes('gnu') || parts.includes('gnueabihf')
        ? 'glibc'
        : undefined;
  return { os, cpu, libc };
}

function resolveLocation(fromPath, name) {
  // Node resolution inside the lockfile: nearest node_modules up from the dependent.
  let base = fromPath;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return null;
    const index = base.lastIndexOf('/node_modules/');
    base = index === -1 ? '' : base.slice(0, index);
  }
}

const added = [];
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    if (resolveLocation(path, name)) continue;
    const { os, cpu, libc } = platformOf(name);
    if (!os && !cpu) continue; // not a platform build: leave it to npm
    if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(range)) continue; // only exact pins can be completed safely
    const location = `${path ? `${path}/` : ''}node_modules/${name}`.replace(
      /^node_modules\/node_modules/,
      'node_modules',
    );
    packages[location] = {
      version: range,
      optional: true,
      ...(os ? { os: [os] } : {}),
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(libc ? { libc: [libc] } : {}),
    };
    added.push(`${name}@${range}`);
  }
}

if (process.argv.includes('--check')) {
  if (added.length > 0) {
    console.error(`package-lock.json lacks ${added.length} platform builds; run: node .ci/lockfile-platforms.js`);
    process.exit(1);
  }
  process.exit(0);
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(
  added.length ? `added ${added.length} platform builds:\n  ${added.join('\n  ')}` : 'package-lock.json is complete',
);
