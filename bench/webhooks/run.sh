#!/usr/bin/env bash
# One command: builds webhook-dispatcher with the repo's tsc (it runs as in production, from dist/), then runs the
# benchmark from its TypeScript source through the swc hook the services' tests use (see webhooks-bench.ts).
# Usage: bash bench/webhooks/run.sh   (BENCH_EVENTS=20000, BENCH_RECEIVERS=5)
# Needs the local infrastructure (npm run infra:up); endpoints come from .infra/env.
set -euo pipefail
cd "$(dirname "$0")/../.."
npx tsc -p services/webhook-dispatcher/tsconfig.app.json
npx tsc-alias -p services/webhook-dispatcher/tsconfig.app.json
exec node -r ./libs/testing/register-swc.js bench/webhooks/webhooks-bench.ts
