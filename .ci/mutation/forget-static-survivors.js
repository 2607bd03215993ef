// The surviving static mutants of a Stryker incremental report (.ci/mutation/run.sh says why they need this).
//
//   node .ci/mutation/forget-static-survivors.js <incremental.json> <inputs.sha256>
//     removes them from the report, so the run tests them again, unless <inputs.sha256> holds the digest of the
//     current inputs (below): then nothing they depend on changed since they last survived, and they are kept.
//   node .ci/mutation/forget-static-survivors.js --record <inputs.sha256>
//     writes the digest of the current inputs, after a run that tested them.
//
// The inputs: every file under libs/ (the mutated code, the tests, and the helpers and code the tests run), the jest
// and Stryker configurations and the lockfile. A static mutant's result is a function of these alone.
'use strict';
const { execFileSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const INPUTS = [
  'libs',
  'jest.mutation.config.js',
  'jest.preset.js',
  'stryker.config.json',
  'tsconfig.base.json',
  'package-lock.json',
];

function inputsDigest() {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...INPUTS], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file && fs.existsSync(path.join(ROOT, file)))
    .sort();
  if (files.length === 0) throw new Error('no mutation inputs found (is this a git checkout?)');
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(fs.readFileSync(path.join(ROOT, file)));
    hash.update('\0');
  }
  return `${hash.digest('hex')}  ${files.length} files\n`;
}

function record(inputsFile) {
  fs.writeFileSync(inputsFile, inputsDigest());
}

function forgetUnlessUnchanged(reportFile, inputsFile) {
  if (!fs.existsSync(reportFile)) return; // no earlier results: Stryker runs everything anyway
  if (fs.existsSync(inputsFile) && fs.readFileSync(inputsFile, 'utf8') === inputsDigest()) {
    process.stdout.write(
      `mutation: the surviving static mutants are kept: nothing they depend on changed since they last survived (${inputsFile})\n`,
    );
    return;
  }
  const report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
  let forgotten = 0;
  for (const result of Object.values(report.files)) {
    const kept = result.mutants.filter((mutant) => !(mutant.static && mutant.status === 'Survived'));
    forgotten += result.mutants.length - kept.length;
    result.mutants = kept;
  }
  fs.writeFileSync(reportFile, JSON.stringify(report, null, 2));
  process.stdout.write(
    `mutation: ${forgotten} surviving static mutant(s) of the incremental results will be tested again\n`,
  );
}

const [first, second] = process.argv.slice(2);
if (first === '--record' && second) record(second);
else if (first && second) forgetUnlessUnchanged(first, second);
else {
  throw new Error('usage: forget-static-survivors.js <incremental.json> <inputs.sha256> | --record <inputs.sha256>');
}
