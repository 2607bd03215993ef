// After a mutation run: every mutant that survived (or that no test covers) must be listed in
// docs/mutation-survivors.md as a row `| <file>:<line> | …` with the reason it is equivalent, so a new survivor is
// either killed by a test or explained, never ignored; and every listed place must still hold a survivor, so the list
// stays exact when a test starts killing one or the code moves.
// Usage: node .ci/mutation/survivors-check.js [report.json] [survivors.md]
'use strict';
const fs = require('node:fs');

const [reportPath = 'reports/mutation/mutation.json', listPath = 'docs/mutation-survivors.md'] = process.argv.slice(2);
const report = JSON.parse(fs.readFileSync(reportPath, 'utf8'));
const listed = new Set(
  [...fs.readFileSync(listPath, 'utf8').matchAll(/^\| ([^ |]+:\d+) \|/gm)].map((match) => match[1]),
);

/** Place (`file:line`) → a one-line description of each mutant surviving there. */
const surviving = new Map();
/**
 * Places of a timed-out mutant: a listed survivor whose run took too long on a busy machine counts as detected, not as
 * gone, so its row is not called stale.
 */
const timedOut = new Set();
for (const [file, result] of Object.entries(report.files)) {
  const lines = result.source.split('\n');
  for (const mutant of result.mutants) {
    const line = mutant.location.start.line;
    const place = `${file}:${line}`;
    if (mutant.status === 'Timeout') timedOut.add(place);
    if (mutant.status !== 'Survived' && mutant.status !== 'NoCoverage') continue;
    const what = `${mutant.status}${mutant.static ? ' (static)' : ''} ${mutant.mutatorName} -> ${mutant.replacement ?? ''}`;
    surviving.set(place, [...(surviving.get(place) ?? []), `${what} :: ${lines[line - 1].trim().slice(0, 100)}`]);
  }
}

const missing = [...surviving].filter(([place]) => !listed.has(place));
const stale = [...listed].filter((place) => !surviving.has(place) && !timedOut.has(place));
const count = [...surviving.values()].reduce((sum, mutants) => sum + mutants.length, 0);
if (missing.length > 0) {
  process.stderr.write(
    `mutation: surviving mutants not listed in ${listPath} (kill each with a test, or add a row saying why it is ` +
      `equivalent):\n${missing.map(([place, mutants]) => mutants.map((m) => `  ${place} ${m}`).join('\n')).join('\n')}\n`,
  );
}
if (stale.length > 0) {
  process.stderr.write(
    `mutation: places listed in ${listPath} where no mutant survives any more (remove the row, or move it to the ` +
      `line the code moved to):\n${stale.map((place) => `  ${place}`).join('\n')}\n`,
  );
}
if (missing.length > 0 || stale.length > 0) process.exit(1);
process.stdout.write(`mutation: all ${count} surviving mutant(s) are listed in ${listPath}, and nothing else\n`);
