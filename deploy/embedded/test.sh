#!/usr/bin/env bash
# The embedded profile (npm start) under test: its system test (the quickstart as a user pastes it, the lock, Ctrl-C,
# restart, --reset), then the stack's system suite (e2e/) against one embedded process, as against the stack behind
# nginx. Jest reports go to reports/embedded.json and reports/e2e-embedded.json.
set -euo pipefail

LX_COMPONENT=embedded
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../local/lib.sh"
cd "$LX_REPO_ROOT"
REPORTS="$LX_REPO_ROOT/reports"
mkdir -p "$REPORTS"

rc=0
npx jest -c deploy/embedded/jest.system.config.js --forceExit --json --outputFile="$REPORTS/embedded.json" || rc=$?

data_dir=$(mktemp -d "${TMPDIR:-/tmp}/lx-embedded-e2e.XXXXXX")
log="$REPORTS/embedded-e2e.log"
node -r ./libs/testing/register-swc.js deploy/embedded/src/main.ts --port 0 --data-dir "$data_dir" >"$log" 2>&1 &
pid=$!
stop() {
  if kill -0 "$pid" 2>/dev/null; then
    kill -INT "$pid"
    wait "$pid" || lx_info "the embedded process exited with $? (log: $log)"
  fi
  rm -rf "$data_dir"
}
trap stop EXIT

deadline=$((SECONDS + 180))
until grep -q 'Stop with Ctrl-C' "$log"; do
  kill -0 "$pid" 2>/dev/null || { tail -n 40 "$log" >&2; lx_die "the embedded process exited during start-up"; }
  ((SECONDS < deadline)) || { tail -n 40 "$log" >&2; lx_die "the embedded process was not ready after 180 s"; }
  sleep 0.5
done
lx_ok "embedded process ready ($(grep -o 'ready in [0-9.]* s' "$log")); system tests against it"
LX_STATE_DIR="$data_dir" npx jest -c e2e/jest.config.js --forceExit --json --outputFile="$REPORTS/e2e-embedded.json" ||
  rc=$?
exit "$rc"
