#!/usr/bin/env bash
# One command: builds location-query with the repo's tsc (the service runs as in production, from dist/), then runs the
# benchmark from its TypeScript source through the swc hook the service's tests use (see verify-bench.ts).
# Usage: bash bench/lx-sync/run.sh   (BENCH_ROWS=1000000, BENCH_DRIFTED=10, BENCH_KEEP=1)
# Needs the local infrastructure (npm run infra:up); endpoints come from .infra/env.
set -euo pipefail
cd "$(dirname "$0")/../.."
npx tsc -p services/location-query/tsconfig.app.json
npx tsc-alias -p services/location-query/tsconfig.app.json
exec node -r ./libs/testing/register-swc.js bench/lx-sync/verify-bench.ts
