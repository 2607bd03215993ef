#!/usr/bin/env bash
# npm run test:mutation: StrykerJS over the pure libraries, incremental against .ci/mutation-incremental.json.
#
# Stryker reuses a surviving mutant's result until a test that covers it is added. A *static* mutant (evaluated once
# when its module loads, such as a zod schema) has no per-test coverage, so for Stryker no test ever covers it and a
# surviving static mutant would be reused forever, even after a new test kills it (Stryker 9.6's incremental differ
# compares per-test coverage only). So the surviving static mutants are forgotten before every run and tested again:
# a few seconds each, and a survivor counted in the score is always one the current tests let through. Unless nothing
# they depend on changed since they last survived (.ci/mutation-incremental.inputs, written after each run, holds the
# digest of libs/, the jest and Stryker configurations and the lockfile): then their result would be the same, and
# they are kept (the digest is written after a plain run only: one with arguments may test part of the scope).
# Then every survivor must be listed, with the reason it is equivalent, in docs/mutation-survivors.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
node .ci/mutation/forget-static-survivors.js .ci/mutation-incremental.json .ci/mutation-incremental.inputs
npx stryker run "$@"
if (($# == 0)); then node .ci/mutation/forget-static-survivors.js --record .ci/mutation-incremental.inputs; fi
node .ci/mutation/survivors-check.js reports/mutation/mutation.json docs/mutation-survivors.md
