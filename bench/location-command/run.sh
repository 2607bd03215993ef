#!/usr/bin/env bash
# One command: builds location-command with the repo's tsc (the service runs as in production, from dist/), then runs
# the benchmark from its TypeScript source through the same swc hook the service's tests use.
# Usage: bash bench/location-command/run.sh [rows]   (default 1000000; BENCH_KEEP=1 keeps the schema, the topics and
#        the file)
# Needs the local infrastructure (npm run infra:up); endpoints come from .infra/env.
set -euo pipefail
cd "$(dirname "$0")/../.."
npx tsc -p services/location-command/tsconfig.app.json
npx tsc-alias -p services/location-command/tsconfig.app.json
exec node -r ./libs/testing/register-swc.js bench/location-command/import-bench.ts "${1:-1000000}"
