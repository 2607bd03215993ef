#!/usr/bin/env bash
# One command: builds statistics-projection with the repo's tsc (the service runs as in production, from dist/), then
# runs the benchmark from its TypeScript source through the swc hook the tests use.
# Usage: bash bench/statistics/run.sh   (BENCH_SECONDS=10 per query and target, BENCH_ROWS=1000000, BENCH_KEEP=1)
# Needs the local infrastructure (npm run infra:up); endpoints come from .infra/env.
set -euo pipefail
cd "$(dirname "$0")/../.."
npx tsc -p services/statistics-projection/tsconfig.app.json
npx tsc-alias -p services/statistics-projection/tsconfig.app.json
exec node -r ./libs/testing/register-swc.js bench/statistics/statistics-bench.ts
