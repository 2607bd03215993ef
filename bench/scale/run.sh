#!/usr/bin/env bash
# One command: builds the two services whose `replay` the scale benchmark runs (location-query,
# statistics-projection) with the repo's tsc, as they run in production, from dist/; then runs the orchestration from
# its TypeScript source through the swc hook the tests use. Each step's own run.sh builds what it starts.
# Usage: bash bench/scale/run.sh   (BENCH_SCALE_ROWS=10000000, BENCH_SCALE_SMALL_ROWS=1000000,
#                                   BENCH_SCALE_STEPS=statistics,get-location,export,replay; see scale-bench.ts)
# Needs the local infrastructure (npm run infra:up) and about 40 GB of free disk at 10M; endpoints from .infra/env.
set -euo pipefail
cd "$(dirname "$0")/../.."
for service in location-query statistics-projection; do
  npx tsc -p "services/$service/tsconfig.app.json"
  npx tsc-alias -p "services/$service/tsconfig.app.json"
done
exec node -r ./libs/testing/register-swc.js bench/scale/scale-bench.ts
