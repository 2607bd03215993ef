#!/usr/bin/env bash
# npm test: type check, format check, lint, the chart's static checks, unit tests, integration tests against real
# Postgres, Kafka and MinIO, system tests against the whole stack behind the ingress, API fuzzing, then the embedded
# profile (npm start) and the same system tests against it. What was not running before is started here and stopped
# again at the end.
set -euo pipefail

LX_COMPONENT=test
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/local/lib.sh"
cd "$LX_REPO_ROOT"
export TZ=UTC NX_DAEMON=false

REPORTS="$LX_REPO_ROOT/reports"
mkdir -p "$REPORTS"
rm -f "$REPORTS"/*.json

started_infra=0
started_stack=0
cleanup() {
  if ((started_stack)); then bash deploy/local/stack.sh stop-services || true; fi
  if ((started_infra)); then bash deploy/local/infra.sh down || true; fi
}
trap cleanup EXIT

lx_info "type check"
npx tsc -p tsconfig.json --noEmit

lx_info "format (prettier --check)"
npx prettier --check . --log-level warn

lx_info "lint"
# The module-boundary rule reads Nx's project graph, which a fresh clone has not computed yet.
npx nx show projects >/dev/null
npx eslint . --max-warnings=0

lx_info "chart (helm lint --strict, kubeconform against Kubernetes 1.34, the route table, promtool on the alerts)"
bash .ci/helm/check.sh

lx_info "unit tests"
unit_rc=0
npx jest -c jest.config.js --json --outputFile="$REPORTS/unit.json" || unit_rc=$?

if ! bash deploy/local/infra.sh status >/dev/null 2>&1; then started_infra=1; fi
bash deploy/local/infra.sh up

lx_info "integration tests (real Postgres, Kafka, MinIO)"
integration_rc=0
npx jest -c jest.integration.config.js --maxWorkers=2 --forceExit --json --outputFile="$REPORTS/integration.json" || integration_rc=$?

lx_info "system tests (the whole stack behind the ingress)"
if ! bash deploy/local/stack.sh status >/dev/null 2>&1; then started_stack=1; fi
bash deploy/local/stack.sh up
lx_info "API description (Redocly lint of the served /openapi.json and /openapi-rsp.json)"
bash .ci/openapi/lint.sh
e2e_rc=0
npx jest -c e2e/jest.config.js --forceExit --json --outputFile="$REPORTS/e2e.json" || e2e_rc=$?

# After the system tests, as the fuzzing: its calls write a location (and read it through the generated clients).
lx_info "generated clients (openapi-typescript, openapi-python-client, openapi-generator java) from the served documents, and their calls"
clients_rc=0
bash .ci/openapi/clients.sh || clients_rc=$?

# After the system tests, not beside them: the fuzzer's operator writes (full-replace imports among them) would
# change the data those tests read.
lx_info "API fuzzing (schemathesis over every operation: RSP token, operator token, no token)"
fuzz_rc=0
bash .ci/openapi/fuzz.sh || fuzz_rc=$?

# The stack's services are stopped first: the embedded profile needs neither them nor Kafka, MinIO or the stack's
# PostgreSQL, and two copies of every service would share the machine's two cores.
lx_info "embedded profile (npm start): the quickstart as pasted, then the system tests against the one process"
if ((started_stack)); then bash deploy/local/stack.sh stop-services && started_stack=0; fi
embedded_rc=0
bash deploy/embedded/test.sh || embedded_rc=$?

summary_rc=0
node .ci/test-summary.js "$REPORTS"/{unit,integration,e2e,embedded,e2e-embedded}.json || summary_rc=$?
exit $((unit_rc || integration_rc || e2e_rc || clients_rc || fuzz_rc || embedded_rc || summary_rc))
