// Removes the surviving static mutants from a Stryker incremental report, so the next run tests them again
// (deploy/local/mutation.sh says why). Usage: node mutation-forget-static-survivors.js <incremental.json>
'use strict';
const fs = require('node:fs');

const file = process.argv[2];
if (!file) throw new Error('usage: mutation-forget-static-survivors.js <incremental.json>');
if (!fs.existsSync(file)) process.exit(0); // no earlier results: Stryker runs everything anyway
const report = JSON.parse(fs.readFileSync(file, 'utf8'));
let forgotten = 0;
for (const result of Object.values(report.files)) {
  const kept = result.mutants.filter((mutant) => !(mutant.static && mutant.status === 'Survived'));
  forgotten += result.mutants.length - kept.length;
  result.mutants = kept;
}
fs.writeFileSync(file, JSON.stringify(report, null, 2));
process.stdout.write(
  `mutation: ${forgotten} surviving static mutant(s) of the incremental results will be tested again\n`,
);
