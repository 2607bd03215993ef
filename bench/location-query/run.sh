#!/usr/bin/env bash
# One command: builds location-query with the repo's tsc (the service runs as in production, from dist/), then runs the
# benchmark from its TypeScript source through the swc hook the service's tests use.
# Usage: bash bench/location-query/run.sh [get-location|deep-pages]   (default get-location; BENCH_ROUNDS=3,
#        BENCH_SECONDS=10, BENCH_ROWS=1000000; get-location: BENCH_KEEP=1 keeps the schema and the topics)
# Needs the local infrastructure (npm run infra:up); endpoints come from .infra/env.
set -euo pipefail
cd "$(dirname "$0")/../.."
npx tsc -p services/location-query/tsconfig.app.json
npx tsc-alias -p services/location-query/tsconfig.app.json
exec node -r ./libs/testing/register-swc.js "bench/location-query/${1:-get-location}-bench.ts"
