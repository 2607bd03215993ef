#!/usr/bin/env bash
# One command: builds location-command, location-query and statistics-projection with the repo's tsc (all three run as
# in production, from dist/), then measures the write-to-read lag (see lag-bench.ts).
# Usage: bash bench/location-query/run-lag.sh   (BENCH_RATE=1000 writes/s, BENCH_SECONDS=30, BENCH_KEEP=1)
# Needs the local infrastructure (npm run infra:up); endpoints come from .infra/env.
set -euo pipefail
cd "$(dirname "$0")/../.."
for service in location-command location-query statistics-projection; do
  npx tsc -p "services/$service/tsconfig.app.json"
  npx tsc-alias -p "services/$service/tsconfig.app.json"
done
exec node -r ./libs/testing/register-swc.js bench/location-query/lag-bench.ts
