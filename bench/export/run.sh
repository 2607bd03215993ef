#!/usr/bin/env bash
# One command: builds the four services an export involves (location-command, location-query, statistics-projection,
# export-worker) with the repo's tsc, as they run in production, from dist/; then runs the benchmark from its
# TypeScript source through the swc hook the services' tests use (see export-bench.ts).
# Usage: bash bench/export/run.sh   (BENCH_ROWS=1000000, BENCH_SMALL_ROWS=BENCH_ROWS/10,
#                                    BENCH_SERVICE_NODE_OPTIONS="--max-old-space-size=192 --max-semi-space-size=1",
#                                    BENCH_KEEP=1)
# Needs the local infrastructure (npm run infra:up); endpoints come from .infra/env.
set -euo pipefail
cd "$(dirname "$0")/../.."
for service in location-command location-query statistics-projection export-worker; do
  npx tsc -p "services/$service/tsconfig.app.json"
  npx tsc-alias -p "services/$service/tsconfig.app.json"
done
exec node -r ./libs/testing/register-swc.js bench/export/export-bench.ts
