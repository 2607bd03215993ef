#!/usr/bin/env bash
# Generates clients from the OpenAPI documents the running stack serves, with three mainstream generators, and builds
# each, as an RSP would:
#   - openapi-typescript (npm, a devDependency) from /openapi.json and /openapi-rsp.json, then tsc (strict) over the
#     generated types and the TypeScript call sequence;
#   - openapi-python-client (PyPI) from both, failing on any warning (a schema or an operation it skips), then an
#     import of every module of each generated package;
#   - openapi-generator's `java` client (Maven Central) from /openapi.json (the whole API), failing on a class it
#     would write twice or a name it must rename, then `mvn compile`.
# Then, against the stack, the calls an RSP makes first through the generated TypeScript and Python clients: a token
# (client credentials), a location by id, the statistics, an export polled to COMPLETED, a new link and the file
# (.ci/openapi/clients/). The generator tools are installed once into $LX_CACHE_DIR (pinned versions); Maven
# resolves the generated project's dependencies into its usual local repository. Everything generated lands in
# reports/clients/ (one log per step). Needs the stack (npm run stack:up) and .infra/env (BASE_URL, the admin client).
#
#   LX_CLIENTS_EXPORT_TIMEOUT   seconds the calls may wait for the location to be read and the export to complete
#                               (default 120)
set -euo pipefail
LX_COMPONENT=clients
source "$(dirname "${BASH_SOURCE[0]}")/../../deploy/local/lib.sh"
cd "$LX_REPO_ROOT"
if [[ -z "${BASE_URL:-}" && -f .infra/env ]]; then set -a; . .infra/env; set +a; fi
: "${BASE_URL:?BASE_URL is not set: start the stack (npm run stack:up) or set it}"
lx_require_cmd python3 java mvn

PYTHON_CLIENT_VERSION=0.29.1
GENERATOR_VERSION=7.25.0
SOURCES="$LX_REPO_ROOT/.ci/openapi/clients"
WORK="$LX_REPO_ROOT/reports/clients"
START=$SECONDS

# step NAME COMMAND...: runs COMMAND with its output in $WORK/NAME.log; on failure, the end of that log.
step() {
  local name="$1" t0=$SECONDS
  shift
  "$@" >"$WORK/$name.log" 2>&1 || lx_fail "$WORK/$name.log" "$name failed"
  lx_ok "$name ($(lx_elapsed "$t0"))"
}

# A venv cannot move (its scripts name their interpreter's path), so a marker says the install finished.
PYTHON_CLIENT="$LX_CACHE_DIR/openapi-python-client-$PYTHON_CLIENT_VERSION"
if [[ ! -f "$PYTHON_CLIENT/.installed" ]]; then
  lx_info "installing openapi-python-client $PYTHON_CLIENT_VERSION into $PYTHON_CLIENT (PyPI)"
  rm -rf "$PYTHON_CLIENT"
  python3 -m venv "$PYTHON_CLIENT"
  "$PYTHON_CLIENT/bin/pip" install --quiet --disable-pip-version-check "openapi-python-client==$PYTHON_CLIENT_VERSION"
  touch "$PYTHON_CLIENT/.installed"
fi
GENERATOR_JAR="$LX_CACHE_DIR/openapi-generator-cli-$GENERATOR_VERSION/openapi-generator-cli-$GENERATOR_VERSION.jar"
if [[ ! -f "$GENERATOR_JAR" ]]; then
  lx_info "fetching org.openapitools:openapi-generator-cli:$GENERATOR_VERSION (Maven Central)"
  # Copied to a temporary name and renamed: an interrupted copy is never taken for the jar.
  mkdir -p "$(dirname "$GENERATOR_JAR")"
  mvn -B -q -Dstyle.color=never org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
    -Dartifact="org.openapitools:openapi-generator-cli:$GENERATOR_VERSION" -Dmdep.stripVersion=false \
    -DoutputDirectory="$(dirname "$GENERATOR_JAR")/tmp" >"$(dirname "$GENERATOR_JAR")/fetch.log" 2>&1 ||
    lx_fail "$(dirname "$GENERATOR_JAR")/fetch.log" "Maven could not fetch openapi-generator-cli $GENERATOR_VERSION"
  mv "$(dirname "$GENERATOR_JAR")/tmp/$(basename "$GENERATOR_JAR")" "$GENERATOR_JAR"
  rm -rf "$(dirname "$GENERATOR_JAR")/tmp"
fi

rm -rf "$WORK"
mkdir -p "$WORK/typescript" "$WORK/python"
for name in openapi openapi-rsp; do curl -fsS --max-time 30 "$BASE_URL/$name.json" -o "$WORK/$name.json"; done

# TypeScript: the types of both documents, checked by tsc as strict as the project's own code.
for name in openapi openapi-rsp; do
  step "typescript-generate-$name" npx openapi-typescript "$WORK/$name.json" -o "$WORK/typescript/$name.ts"
done
cat >"$WORK/typescript/tsconfig.json" <<'EOF'
{
  "compilerOptions": {
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "noEmit": true,
    "target": "ES2022",
    "module": "commonjs",
    "moduleResolution": "node",
    "lib": ["ES2022", "DOM"],
    "types": ["node"],
    "skipLibCheck": true
  },
  "include": ["*.ts"]
}
EOF
# The call sequence (run below) is checked with the generated types in the same pass.
cp "$SOURCES/rsp-calls.ts" "$WORK/typescript/"
step typescript-compile npx tsc -p "$WORK/typescript/tsconfig.json"

# Python: a package per document; --fail-on-warning makes a skipped schema or operation a failure. The whole
# document's import takes NDJSON and CSV, media types the generator has no body type for: sent as bytes.
python_generate() { # document, package, config
  "$PYTHON_CLIENT/bin/openapi-python-client" generate --path "$WORK/$1.json" --output-path "$WORK/python/$2" \
    --meta none --config "$SOURCES/$3" --fail-on-warning
}
step python-generate-openapi python_generate openapi location_exchange openapi-python-client.yaml
step python-generate-openapi-rsp python_generate openapi-rsp location_exchange_rsp openapi-python-client-rsp.yaml
# Every module of both packages, and by name the ones an RSP needs first (the export status variants among them).
step python-import env PYTHONPATH="$WORK/python" "$PYTHON_CLIENT/bin/python" -c '
import importlib, pkgutil
for package in ("location_exchange", "location_exchange_rsp"):
    root = importlib.import_module(package)
    for module in pkgutil.walk_packages(root.__path__, package + "."):
        importlib.import_module(module.name)
from location_exchange_rsp.api.exports import get_export, list_exports, renew_export_link, request_export
from location_exchange_rsp.api.locations import get_location
from location_exchange_rsp.api.statistics import get_location_statistics
from location_exchange_rsp.models import ExportCompleted, ExportFailed, ExportPending, JsonExportFile, Location
'

# Java: the whole API; a class written twice (webhooks overwriting LocationsApi) or a schema renamed for a reserved
# word (a `Null` became ModelNull, a schema `ApiClient` would become ModelApiClient) fails, then the compile.
java_generate() {
  java -jar "$GENERATOR_JAR" generate -i "$WORK/openapi.json" -g java -o "$WORK/java" \
    --additional-properties=hideGenerationTimestamp=true \
    --global-property=apiTests=false,modelTests=false,apiDocs=false,modelDocs=false >"$WORK/java-generator.log" 2>&1 ||
    { cat "$WORK/java-generator.log"; return 1; }
  ! grep -E 'Duplicate file path|reserved word|cannot be used as model name' "$WORK/java-generator.log"
}
step java-generate java_generate
step java-compile mvn -B -q -Dstyle.color=never -f "$WORK/java/pom.xml" compile

# The calls: an operator writes a location, then the generated TypeScript and Python clients read it as a new RSP
# would (.ci/openapi/clients/rsp-calls.ts, rsp_calls.py), each with its own token and export.
# shellcheck source=.ci/openapi/admin-clients.sh
source "$(dirname "${BASH_SOURCE[0]}")/admin-clients.sh"
register OPERATOR locations:write
OPERATOR_TOKEN="$(token "$CLIENT_ID" "$CLIENT_SECRET" locations:write)"
LOCATION_ID="$(curl -fsS -H "Authorization: Bearer $OPERATOR_TOKEN" -H 'Content-Type: application/json' -d '{
  "geography": { "country": "US", "region": "CO", "locality": "Generated Client", "postalCode": "80202" },
  "coordinates": { "latitude": 39.7447, "longitude": -104.9903 },
  "fiberAccessDetails": { "serviceability": { "status": "ACTIVE" } }
}' "$BASE_URL/operator/locations" | json_field id)"
export BASE_URL LOCATION_ID EXPORT_TIMEOUT_SECONDS="${LX_CLIENTS_EXPORT_TIMEOUT:-120}"

register RSP locations:read
step typescript-calls env RSP_CLIENT_ID="$CLIENT_ID" RSP_CLIENT_SECRET="$CLIENT_SECRET" \
  node -r "$LX_REPO_ROOT/libs/testing/register-swc.js" "$WORK/typescript/rsp-calls.ts"
register RSP locations:read
step python-calls env RSP_CLIENT_ID="$CLIENT_ID" RSP_CLIENT_SECRET="$CLIENT_SECRET" PYTHONPATH="$WORK/python" \
  "$PYTHON_CLIENT/bin/python" "$SOURCES/rsp_calls.py"

lx_ok "clients generated from $BASE_URL/openapi.json and /openapi-rsp.json, built, and called (TypeScript, Python)" \
  "in $(lx_elapsed "$START")"
