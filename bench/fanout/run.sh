#!/usr/bin/env bash
# One command: builds webhook-dispatcher with the repo's tsc (it runs as in production, from dist/), then runs the
# fan-out benchmark from its TypeScript source through the swc hook the services' tests use (see fanout-bench.ts).
# Usage: bash bench/fanout/run.sh   (BENCH_EVENTS=10000, BENCH_HEALTHY=90, BENCH_SLOW=5, BENCH_FLAKY=3,
#        BENCH_HANGING=2, BENCH_TIMEOUT=20m, BENCH_NODE_ARGS)
# Needs the local infrastructure (npm run infra:up); endpoints come from .infra/env.
set -euo pipefail
cd "$(dirname "$0")/../.."
npx tsc -p services/webhook-dispatcher/tsconfig.app.json
npx tsc-alias -p services/webhook-dispatcher/tsconfig.app.json
exec node -r ./libs/testing/register-swc.js bench/fanout/fanout-bench.ts
