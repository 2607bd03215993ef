#!/usr/bin/env bash
# Lints the OpenAPI documents the running stack serves at $BASE_URL/openapi.json and $BASE_URL/openapi-rsp.json (what
# RSPs generate clients from) with Redocly CLI, strict; keeps copies in reports/openapi.json and
# reports/openapi-rsp.json. Needs BASE_URL (from .infra/env after stack.sh up).
set -euo pipefail
LX_COMPONENT=openapi
source "$(dirname "${BASH_SOURCE[0]}")/../../deploy/local/lib.sh"
cd "$LX_REPO_ROOT"
if [[ -z "${BASE_URL:-}" && -f .infra/env ]]; then set -a; . .infra/env; set +a; fi
: "${BASE_URL:?BASE_URL is not set: start the stack (npm run stack:up) or set it}"
mkdir -p reports
for name in openapi openapi-rsp; do
  curl -fsS "$BASE_URL/$name.json" -o "reports/$name.json"
  # No telemetry and no update check: the lint talks to nothing but the file.
  REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
    npx redocly lint "reports/$name.json" --config .ci/openapi/redocly.yaml --format=stylish
  lx_ok "reports/$name.json: lint passed"
done
