#!/usr/bin/env bash
# One command: builds location-command with the repo's tsc (the service runs as in production, from dist/), then runs
# the write benchmark (see write-bench.ts) from its TypeScript source through the swc hook the service's tests use.
# Usage: bash bench/location-command/run-write.sh   (BENCH_RATES=250,500,1000,2000, BENCH_SECONDS=10,
#        BENCH_CONNECTIONS=64, BENCH_KEEP=1 keeps the schemas and the topics)
# Needs the local infrastructure (npm run infra:up); endpoints come from .infra/env.
set -euo pipefail
cd "$(dirname "$0")/../.."
npx tsc -p services/location-command/tsconfig.app.json
npx tsc-alias -p services/location-command/tsconfig.app.json
exec node -r ./libs/testing/register-swc.js bench/location-command/write-bench.ts
