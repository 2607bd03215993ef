#!/usr/bin/env bash
# Static checks of the Helm chart helm/location-exchange, without a cluster (run by npm test):
#   helm lint --strict and helm template | kubeconform -strict (Kubernetes 1.34 schemas, offline) for every ci/*.yaml,
#   the failure of an install without the required values (naming each one), negative checks per area (routes,
#   secrets, Kafka topic prefix, security, migrations, PDB guard, schema), the NetworkPolicies against a traffic
#   matrix (network-policies/), and check-routes.js (chart route table = local nginx ingress).
#
# Tools, built or fetched once and cached (the same paths and versions as shared/tools/k8s-offline/build.sh, so either
# one skips what the other built):
#   ${K8S_CACHE:-~/.cache/k8s-offline/v1.34.4}/bin/{helm,kubeconform}   go install from the Go module proxy
#   ${LX_CACHE_DIR:-~/.cache/location-exchange}/venv-kubeconform         kubernetes-validate from PyPI (its schemas)
#   ${LX_CACHE_DIR:-~/.cache/location-exchange}/kubeconform-schemas      those schemas made usable offline
#   ${LX_CACHE_DIR:-~/.cache/location-exchange}/venv-nca                 network-config-analyzer from PyPI
#   ${LX_CACHE_DIR:-~/.cache/location-exchange}/promtool-*, prometheus-operator-crds-*   prometheus/tools.sh (the
#       alerts' checks and unit tests; the PodMonitor's and PrometheusRule's schemas), from the Go module proxy
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CHART="$ROOT/helm/location-exchange"
HERE="$ROOT/.ci/helm"

HELM_VERSION=v3.19.0
KUBECONFORM_VERSION=v0.8.0
KUBERNETES_VALIDATE_VERSION=1.37.0
KUBE_VERSION=1.34.0
K8S_CACHE=${K8S_CACHE:-$HOME/.cache/k8s-offline/v1.34.4}
BIN="$K8S_CACHE/bin"
LX_CACHE_DIR=${LX_CACHE_DIR:-$HOME/.cache/location-exchange}
VENV="$LX_CACHE_DIR/venv-kubeconform"
NCA_VERSION=2.1.0
NCA_VENV="$LX_CACHE_DIR/venv-nca"
SCHEMAS="$LX_CACHE_DIR/kubeconform-schemas"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

info() { printf '[helm-check] %s\n' "$*" >&2; }
die() {
  printf '[helm-check] ERROR: %s\n' "$*" >&2
  exit 1
}

failures=()
pass() { printf '  ok    %s\n' "$1"; }
fail() {
  printf '  FAIL  %s\n' "$1"
  failures+=("$1")
}

ensure_tool() {
  local name=$1 module=$2 start=$SECONDS
  [[ -x "$BIN/$name" ]] && return 0
  command -v go >/dev/null || die "$name is missing in $BIN and there is no go to build it (install Go 1.24+)"
  info "building $name ($module) into $BIN; a few minutes the first time"
  mkdir -p "$BIN"
  GOBIN=$BIN CGO_ENABLED=0 GOFLAGS=-mod=mod go install -ldflags "-s -w" "$module" >&2
  info "$name built in $((SECONDS - start)) s"
}

ensure_schemas() {
  local dir="$SCHEMAS/v$KUBE_VERSION-local-strict" marker
  marker="$dir/.kubernetes-validate-$KUBERNETES_VALIDATE_VERSION"
  [[ -f "$marker" ]] && return 0
  if [[ ! -x "$VENV/bin/python" ]]; then
    info "creating $VENV"
    python3 -m venv "$VENV" || die "python3 -m venv failed (on Debian: apt-get install python3-venv)"
  fi
  if ! "$VENV/bin/python" -c "import kubernetes_validate" 2>/dev/null ||
    [[ "$("$VENV/bin/python" -m pip show kubernetes-validate 2>/dev/null | sed -n 's/^Version: //p')" != "$KUBERNETES_VALIDATE_VERSION" ]]; then
    info "installing kubernetes-validate==$KUBERNETES_VALIDATE_VERSION (its Kubernetes JSON schemas)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION" >&2
  fi
  rm -rf "$dir"
  "$VENV/bin/python" "$HERE/fix-schemas.py" "$KUBE_VERSION" "$SCHEMAS" >&2
  touch "$marker"
}

# network-config-analyzer (np-guard), the NetworkPolicy analyser of the network policy checks, in a venv of its own.
ensure_nca() {
  if [[ ! -x "$NCA_VENV/bin/python" ]]; then
    info "creating $NCA_VENV"
    python3 -m venv "$NCA_VENV" || die "python3 -m venv failed (on Debian: apt-get install python3-venv)"
  fi
  if [[ "$("$NCA_VENV/bin/python" -m pip show network-config-analyzer 2>/dev/null | sed -n 's/^Version: //p')" != "$NCA_VERSION" ]]; then
    info "installing network-config-analyzer==$NCA_VERSION"
    "$NCA_VENV/bin/python" -m pip install --quiet --disable-pip-version-check "network-config-analyzer==$NCA_VERSION" >&2
  fi
}

ensure_tool helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
ensure_tool kubeconform "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
ensure_schemas
HELM="$BIN/helm"
KUBECONFORM="$BIN/kubeconform"
OPERATOR_CRDS=$(bash "$HERE/prometheus/tools.sh" crds) || die "the Prometheus operator's CRDs could not be fetched"
PROMTOOL=$(bash "$HERE/prometheus/tools.sh" promtool) || die "promtool could not be built"

# A helm built with `go install` has no Kubernetes version stamped in and would assume 1.20 (below the chart's
# kubeVersion), so every call names the cluster version the chart is checked against.
helm_template() { "$HELM" template lx "$CHART" --namespace lx --kube-version "$KUBE_VERSION" "$@"; }

# One document per Kubernetes object of a rendering, printed as "<kind> <component label>: <lines matching $2>".
# Uses awk only: good enough for the chart's own, predictable output.
grep_by_object() {
  awk -v pattern="$2" '
    function flush() { if (kind != "") for (i = 1; i <= n; i++) print kind " " component ": " hits[i]; kind = ""; component = "-"; n = 0 }
    /^---/ { flush(); next }
    /^kind: / { kind = $2 }
    /^    app.kubernetes.io\/component: / && component == "-" { component = $2 }
    $0 ~ pattern { hits[++n] = $0; gsub(/^ +/, "", hits[n]) }
    END { flush() }
  ' "$1"
}

summaries=()
info "helm lint and kubeconform (Kubernetes $KUBE_VERSION) for each ci/*.yaml"
for values in "$CHART"/ci/*.yaml; do
  name=$(basename "$values")
  if "$HELM" lint --strict --kube-version "$KUBE_VERSION" "$CHART" -f "$values" >"$WORK/lint.out" 2>&1; then
    pass "helm lint --strict -f ci/$name"
  else
    cat "$WORK/lint.out"
    fail "helm lint --strict -f ci/$name"
  fi
  if ! helm_template -f "$values" >"$WORK/$name" 2>"$WORK/template.err"; then
    cat "$WORK/template.err"
    fail "helm template -f ci/$name"
    continue
  fi
  if "$KUBECONFORM" -strict -summary -kubernetes-version "$KUBE_VERSION" \
    -schema-location "$SCHEMAS/{{ .NormalizedKubernetesVersion }}-local-strict/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
    -schema-location "$OPERATOR_CRDS/schemas/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json" \
    "$WORK/$name" >"$WORK/kubeconform.out" 2>&1; then
    pass "kubeconform -strict ci/$name"
  else
    fail "kubeconform -strict ci/$name"
  fi
  cat "$WORK/kubeconform.out"
  summaries+=("ci/$name: $(sed -n 's/^Summary: \(.*\) found in 1 file - /\1: /p' "$WORK/kubeconform.out")")
done
DEFAULT="$WORK/default-values.yaml"
FULL="$WORK/full-values.yaml"
EXISTING="$WORK/existing-secret-values.yaml"
[[ -s "$DEFAULT" && -s "$FULL" && -s "$EXISTING" ]] || die "ci/default-values.yaml, full-values.yaml and existing-secret-values.yaml must all render"

info "required values: an install without them fails, naming each one"
if helm_template >"$WORK/none.out" 2>&1; then
  fail "helm template without values must fail"
else
  missing=()
  for value in publicBaseUrl kafka.brokers objectStorage.endpoint secrets.databaseUrl secrets.authDatabaseUrl \
    secrets.locationCommandDatabaseUrl secrets.locationQueryDatabaseUrl secrets.statisticsProjectionDatabaseUrl \
    secrets.exportWorkerDatabaseUrl secrets.webhookDispatcherDatabaseUrl secrets.authEncryptionKey \
    secrets.webhookSecretTransportKey secrets.adminClientId secrets.adminClientSecret secrets.serviceClientId \
    secrets.serviceClientSecret secrets.minioAccessKey secrets.minioSecretKey; do
    grep -q -- "- $value is required" "$WORK/none.out" || missing+=("$value")
  done
  if ((${#missing[@]} == 0)); then pass "the failure names all 18 required values"; else
    cat "$WORK/none.out"
    fail "the failure does not name: ${missing[*]}"
  fi
fi
helm_template -f "$CHART/ci/default-values.yaml" --set secrets.adminClientId=not-a-uuid \
  --set secrets.webhookSecretTransportKey=MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY= \
  --set secrets.databaseUrl=mysql://db/lx --set secrets.serviceClientSecret=short \
  --set secrets.exportWorkerDatabaseUrl=postgres://location_command:pw@db/lx --set secrets.authDatabaseUrl=postgres://db/lx \
  --set database.sslCaFromSecret=true \
  --set objectStorage.endpoint=minio:9000 >"$WORK/invalid.out" 2>&1 && die "invalid values were accepted"
unnamed=()
for problem in 'secrets.adminClientId must be a UUID' 'webhookSecretTransportKey must differ' \
  'secrets.databaseUrl must be a postgres' 'secrets.serviceClientSecret must be at least 32 characters' \
  'secrets.exportWorkerDatabaseUrl logs in as the same user as secrets.locationCommandDatabaseUrl' \
  "secrets.authDatabaseUrl must be a postgres:// or postgresql:// URL with the service's own user" \
  'database.sslCaFromSecret needs database.sslMode verify-full' 'secrets.databaseSslCa is required' \
  'objectStorage.endpoint must be an http(s) URL'; do
  grep -qF "$problem" "$WORK/invalid.out" || unnamed+=("$problem")
done
if ((${#unnamed[@]} == 0)); then pass "invalid values (client id, key reuse, URL schemes, shared or missing database users, a CA without verify-full, short secret) are refused by name"; else
  cat "$WORK/invalid.out"
  fail "invalid values not named: ${unnamed[*]}"
fi
if helm_template -f "$CHART/ci/default-values.yaml" --set auth.bogus=1 >"$WORK/schema.out" 2>&1; then
  fail "values.schema.json must refuse an unknown key (auth.bogus)"
else
  pass "values.schema.json refuses an unknown key (auth.bogus)"
fi

info "routes"
for rendering in "$DEFAULT" "$FULL"; do
  if node "$HERE/check-routes.js" --rendered "$rendering"; then
    pass "check-routes.js --rendered $(basename "$rendering")"
  else
    fail "check-routes.js --rendered $(basename "$rendering")"
  fi
done
if grep -Eq 'path: /(internal|admin/keys)' "$DEFAULT" "$FULL" "$EXISTING"; then
  fail "/internal/ and /admin/keys must be in no Ingress"
else
  pass "/internal/ and /admin/keys are in no Ingress"
fi
if [[ $(grep -c '^kind: Ingress$' "$DEFAULT") == 1 && $(grep -c '^kind: Ingress$' "$FULL") == 2 ]]; then
  pass "the operator Ingress is off by default, on in full-values"
else
  fail "the operator Ingress is off by default, on in full-values"
fi
if node "$HERE/check-routes.js"; then pass "check-routes.js: chart table = local nginx ingress"; else fail "check-routes.js"; fi

info "edge errors"
# The error backend (edgeErrors, on by default): its Deployment runs `lx edge-errors` with no Secret and no token, its
# NetworkPolicy lets in the Ingress controller only and lets out nothing, each Ingress routes "/" to its Service; off,
# none of it is rendered.
edge_docs=$(awk 'BEGIN { RS = "\n---\n" } /app\.kubernetes\.io\/component: edge-errors/' "$DEFAULT")
if [[ $(grep -E '^kind: ' <<<"$edge_docs" | sort | tr '\n' ' ') == "kind: Deployment kind: NetworkPolicy kind: Service " ]] &&
  grep -qF 'args: ["edge-errors"]' <<<"$edge_docs" && grep -qF 'automountServiceAccountToken: false' <<<"$edge_docs" &&
  grep -qE '^  egress: \[\]$' <<<"$edge_docs" && ! grep -qE 'secretKeyRef|envFrom|volumeMounts' <<<"$edge_docs" &&
  [[ $(grep -cE '^ +- path: /$' "$DEFAULT") == 1 && $(grep -cE '^ +- path: /$' "$FULL") == 2 ]]; then
  pass "edgeErrors: a Deployment (lx edge-errors, no Secret, no token), its Service, a NetworkPolicy without egress, / on each Ingress"
else
  printf '%s\n' "$edge_docs"
  fail "edgeErrors: a Deployment (lx edge-errors, no Secret, no token), its Service, a NetworkPolicy without egress, / on each Ingress"
fi
helm_template -f "$CHART/ci/full-values.yaml" --set edgeErrors.enabled=false >"$WORK/no-edge.yaml"
if ! grep -q 'edge-errors' "$WORK/no-edge.yaml" && ! grep -Eq '^ +- path: /$' "$WORK/no-edge.yaml" &&
  node "$HERE/check-routes.js" --rendered "$WORK/no-edge.yaml" >/dev/null; then
  pass "edgeErrors.enabled=false renders no error backend and no catch-all path"
else
  fail "edgeErrors.enabled=false renders no error backend and no catch-all path"
fi

info "secrets"
grep_by_object "$DEFAULT" '^ +key: [A-Z_]+$' | grep '^Deployment' | sort -u >"$WORK/keys.txt"
expected_keys=$(
  cat <<'EOF'
Deployment auth: key: ADMIN_CLIENT_ID
Deployment auth: key: ADMIN_CLIENT_SECRET
Deployment auth: key: AUTH_DATABASE_URL
Deployment auth: key: AUTH_ENCRYPTION_KEY
Deployment auth: key: KAFKA_SASL_PASSWORD_AUTH
Deployment auth: key: SERVICE_CLIENT_ID
Deployment auth: key: SERVICE_CLIENT_SECRET
Deployment auth: key: WEBHOOK_SECRET_TRANSPORT_KEY
Deployment export-worker: key: EXPORT_WORKER_DATABASE_URL
Deployment export-worker: key: KAFKA_SASL_PASSWORD_EXPORT_WORKER
Deployment export-worker: key: MINIO_ACCESS_KEY
Deployment export-worker: key: MINIO_SECRET_KEY
Deployment export-worker: key: SERVICE_CLIENT_ID
Deployment export-worker: key: SERVICE_CLIENT_SECRET
Deployment location-command: key: KAFKA_SASL_PASSWORD_LOCATION_COMMAND
Deployment location-command: key: LOCATION_COMMAND_DATABASE_URL
Deployment location-query: key: KAFKA_SASL_PASSWORD_LOCATION_QUERY
Deployment location-query: key: LOCATION_QUERY_DATABASE_URL
Deployment statistics-projection: key: KAFKA_SASL_PASSWORD_STATISTICS_PROJECTION
Deployment statistics-projection: key: STATISTICS_PROJECTION_DATABASE_URL
Deployment webhook-dispatcher: key: KAFKA_SASL_PASSWORD_WEBHOOK_DISPATCHER
Deployment webhook-dispatcher: key: WEBHOOK_DISPATCHER_DATABASE_URL
Deployment webhook-dispatcher: key: WEBHOOK_SECRET_TRANSPORT_KEY
EOF
)
if diff <(echo "$expected_keys") "$WORK/keys.txt" >"$WORK/keys.diff"; then
  pass "each service gets only the Secret keys it needs"
else
  cat "$WORK/keys.diff"
  fail "each service gets only the Secret keys it needs"
fi
# The administrator's login (the key DATABASE_URL) reaches the six migration containers only, as DATABASE_ADMIN_URL.
admin_refs=$(grep -B4 'key: DATABASE_URL$' "$DEFAULT" | grep -c 'name: DATABASE_ADMIN_URL$' || true)
if [[ "$admin_refs" == 6 && $(grep -c 'key: DATABASE_URL$' "$DEFAULT") == 6 ]]; then
  pass "only the migration Job gets the administrator's database login (DATABASE_ADMIN_URL of its 6 containers)"
else
  fail "the administrator's database login must reach the 6 migration containers only (found $admin_refs)"
fi
if [[ $(grep -c '^kind: Secret$' "$EXISTING") == 0 &&
  $(grep -A1 'secretKeyRef:' "$EXISTING" | sed -n 's/^ *name: //p' | sort -u) == location-exchange-credentials ]]; then
  pass "with secrets.existingSecret the chart makes no Secret and every reference names the existing one"
else
  fail "with secrets.existingSecret the chart makes no Secret and every reference names the existing one"
fi
helm_template -f "$CHART/ci/default-values.yaml" --set secrets.minioSecretKey=rotated-minio-secret >"$WORK/rotated.yaml"
changed=$(diff <(grep_by_object "$DEFAULT" 'checksum/secret' | sort) \
  <(grep_by_object "$WORK/rotated.yaml" 'checksum/secret' | sort) | sed -n 's/^> Deployment \([a-z-]*\):.*/\1/p' || true)
if [[ "$changed" == export-worker ]]; then
  pass "changing a Secret value rolls exactly the services that read it (MINIO_SECRET_KEY: export-worker)"
else
  fail "changing MINIO_SECRET_KEY must roll export-worker only, rolled: ${changed:-none}"
fi

# acceptedIssuers (full-values: [location-exchange]) reaches every service, the migration containers too, and no
# service gets it by default.
accepted=$(grep -A1 'name: AUTH_ACCEPTED_ISSUERS$' "$FULL" | grep -c 'value: "\{0,1\}location-exchange"\{0,1\}$' || true)
if ((accepted == 12)) && ! grep -q 'AUTH_ACCEPTED_ISSUERS' "$DEFAULT"; then
  pass "acceptedIssuers reaches the six services and their migrations (12 containers), and is unset by default"
else
  fail "acceptedIssuers must reach the six services and their migrations (12 containers): found $accepted"
fi

info "kafka topic prefix"
# kafka.topicPrefix (full-values: ci.location-exchange) reaches every service and its migration, one value for all;
# nothing is prefixed by default, and a prefix Kafka would refuse is refused by the schema.
prefixed=$(grep -A1 'name: KAFKA_TOPIC_PREFIX$' "$FULL" | grep -c 'value: "\{0,1\}ci.location-exchange"\{0,1\}$' || true)
if ((prefixed == 12)) && ! grep -q 'KAFKA_TOPIC_PREFIX' "$DEFAULT"; then
  pass "kafka.topicPrefix reaches the six services and their migrations (12 containers), and is unset by default"
else
  fail "kafka.topicPrefix must reach the six services and their migrations (12 containers): found $prefixed"
fi
refused=()
for prefix in staging. .staging team/a "$(printf 'p%.0s' {1..65})"; do
  helm_template -f "$CHART/ci/default-values.yaml" --set "kafka.topicPrefix=$prefix" >/dev/null 2>&1 || refused+=("$prefix")
done
if ((${#refused[@]} == 4)); then
  pass "values.schema.json refuses a topic prefix Kafka cannot use (dot at either end, a slash, 65 characters)"
else
  fail "values.schema.json must refuse the topic prefixes staging., .staging, team/a and 65 characters"
fi

info "kafka durability"
# kafka.replicationFactor and kafka.minInsyncReplicas reach every service and its migration: 3 and 2 by default (a
# cluster of three brokers); more in-sync replicas than replicas is refused by name, below 1 by the schema.
durable=0
for pair in 'KAFKA_REPLICATION_FACTOR 3' 'KAFKA_MIN_INSYNC_REPLICAS 2'; do
  read -r name value <<<"$pair"
  durable=$((durable + $(grep -A1 "name: $name\$" "$DEFAULT" | grep -c "value: \"\{0,1\}$value\"\{0,1\}\$" || true)))
done
if ((durable == 24)); then
  pass "kafka.replicationFactor 3 and kafka.minInsyncReplicas 2 reach the six services and their migrations by default"
else
  fail "kafka.replicationFactor and kafka.minInsyncReplicas must reach 12 containers each by default: found $durable of 24"
fi
if helm_template -f "$CHART/ci/default-values.yaml" --set kafka.replicationFactor=1 >"$WORK/durability.out" 2>&1; then
  fail "kafka.minInsyncReplicas 2 above kafka.replicationFactor 1 must be refused"
elif grep -qF 'kafka.minInsyncReplicas (2) must be at most kafka.replicationFactor (1)' "$WORK/durability.out"; then
  pass "more in-sync replicas than replicas is refused by name"
else
  cat "$WORK/durability.out"
  fail "the refusal of kafka.minInsyncReplicas above kafka.replicationFactor must name both"
fi
if helm_template -f "$CHART/ci/default-values.yaml" --set kafka.replicationFactor=0 >/dev/null 2>&1; then
  fail "values.schema.json must refuse kafka.replicationFactor 0"
else
  pass "values.schema.json refuses kafka.replicationFactor 0"
fi

# How many containers of a rendering ($1) set $2 to $3.
count_env() { grep -A1 "name: $2\$" "$1" | grep -c "value: \"\{0,1\}$3\"\{0,1\}\$" || true; }

info "rate limits"
# rateLimits reaches location-query and statistics-projection as RATE_LIMITS (kinds in key order), no other service;
# without it no RATE_LIMITS is set (the services' defaults); a kind or a limit the services would refuse is refused.
limited=""
if helm_template -f "$CHART/ci/default-values.yaml" --set rateLimits.SERVICE=off --set rateLimits.RSP=600/60 \
  >"$WORK/limits.yaml" 2>&1; then
  limited=$(grep_by_object "$WORK/limits.yaml" 'name: RATE_LIMITS$' | awk '$1 == "Deployment" { print $2 }' | sort | xargs)
fi
if [[ $limited == "location-query: statistics-projection:" ]] &&
  (($(count_env "$WORK/limits.yaml" RATE_LIMITS 'RSP=600/60,SERVICE=off') == $(grep -c 'name: RATE_LIMITS$' "$WORK/limits.yaml"))) &&
  ! grep -q 'RATE_LIMITS' "$DEFAULT"; then
  pass "rateLimits becomes RATE_LIMITS of location-query and statistics-projection only; unset by default"
else
  fail "rateLimits must set RATE_LIMITS=RSP=600/60,SERVICE=off on location-query and statistics-projection only"
fi
for wrong in rateLimits.USER=1/1 rateLimits.RSP=10 rateLimits.RSP=0/10; do
  if helm_template -f "$CHART/ci/default-values.yaml" --set-string "$wrong" >/dev/null 2>&1; then
    fail "values.schema.json must refuse $wrong"
  else
    pass "values.schema.json refuses $wrong"
  fi
done

info "kafka TLS and SASL"
# TLS and SASL are on by default: each service and its migration logs in as its own user; the CA is mounted only when
# given; with SASL off no Kafka password is asked for; PLAIN without TLS is refused by name.
users=0
for service in auth location-command location-query statistics-projection export-worker webhook-dispatcher; do
  users=$((users + $(count_env "$DEFAULT" KAFKA_SASL_USERNAME "lx-$service")))
done
if (($(count_env "$DEFAULT" KAFKA_TLS true) == 12 && users == 12)) && ! grep -q 'KAFKA_TLS_CA_FILE\|kafka-ca' "$DEFAULT"; then
  pass "by default the six services and their migrations use TLS (system CAs) and each logs in as lx-<service>"
else
  fail "KAFKA_TLS=true and KAFKA_SASL_USERNAME lx-<service> must reach 12 containers by default, without a CA mount"
fi
if (($(grep -c 'mountPath: /etc/location-exchange/kafka-ca$' "$FULL") == 12 &&
  $(count_env "$FULL" KAFKA_TLS_CA_FILE /etc/location-exchange/kafka-ca/ca.pem) == 12 &&
  $(count_env "$FULL" KAFKA_SASL_MECHANISM scram-sha-256) == 12 &&
  $(grep -c '^  name: lx-\(migrate-\)\?kafka-ca$' "$FULL") == 2)); then
  pass "full-values.yaml: the brokers' CA (a ConfigMap and the hook's copy) is mounted in 12 containers, SCRAM-SHA-256"
else
  fail "full-values.yaml: kafka.tls.ca must be mounted as KAFKA_TLS_CA_FILE in 12 containers from 2 ConfigMaps"
fi
if helm_template -f "$CHART/ci/default-values.yaml" --set kafka.sasl.enabled=false --set kafka.tls.enabled=false \
  --set secrets.kafkaPasswordAuth= >"$WORK/nosasl.yaml" 2>&1 &&
  ! grep -q 'KAFKA_SASL' "$WORK/nosasl.yaml" && (($(count_env "$WORK/nosasl.yaml" KAFKA_TLS false) == 12)); then
  pass "kafka.sasl.enabled=false and kafka.tls.enabled=false: no KAFKA_SASL_* and no Kafka password required"
else
  fail "with kafka.sasl and kafka.tls off, no Kafka login must be rendered or required"
fi
if helm_template -f "$CHART/ci/default-values.yaml" --set secrets.kafkaPasswordLocationQuery= >"$WORK/nopw.out" 2>&1; then
  fail "a missing Kafka password must be refused"
elif grep -qF 'secrets.kafkaPasswordLocationQuery is required (Secret key KAFKA_SASL_PASSWORD_LOCATION_QUERY)' "$WORK/nopw.out"; then
  pass "a missing Kafka password is refused by its value and Secret key"
else
  cat "$WORK/nopw.out"
  fail "the refusal of a missing Kafka password must name secrets.kafkaPasswordLocationQuery"
fi
if helm_template -f "$CHART/ci/default-values.yaml" --set kafka.tls.enabled=false --set kafka.sasl.mechanism=plain \
  >"$WORK/plain.out" 2>&1; then
  fail "SASL PLAIN without TLS must be refused"
elif grep -qF 'kafka.sasl.mechanism plain sends' "$WORK/plain.out"; then
  pass "SASL PLAIN without TLS is refused by name"
else
  cat "$WORK/plain.out"
  fail "the refusal of SASL PLAIN without TLS must name kafka.sasl.mechanism"
fi

info "security and migrations"
for rendering in "$DEFAULT" "$FULL"; do
  containers=$(grep -Ec '^ +(- name: (migrate-[a-z-]+|done|smoke-test|auth|location-command|location-query|statistics-projection|export-worker|webhook-dispatcher|edge-errors))$' "$rendering")
  readonly_fs=$(grep -c 'readOnlyRootFilesystem: true' "$rendering")
  no_escalation=$(grep -c 'allowPrivilegeEscalation: false' "$rendering")
  non_root=$(grep -c 'runAsNonRoot: true' "$rendering")
  pods=$(grep -Ec '^kind: (Deployment|Job|Pod)$' "$rendering")
  if ((containers == 15 && readonly_fs == containers && no_escalation == containers && non_root == pods)); then
    pass "$(basename "$rendering"): all $containers containers read-only, no privilege escalation; all $pods pods non-root"
  else
    fail "$(basename "$rendering"): containers $containers, read-only $readonly_fs, no escalation $no_escalation, pods $pods, non-root $non_root"
  fi
done
boot=$(grep_by_object "$DEFAULT" 'name: DATABASE_MIGRATE_ON_BOOT' | wc -l)
boot_false=$(grep -A1 'name: DATABASE_MIGRATE_ON_BOOT' "$DEFAULT" | grep -c 'value: "false"')
migrate_args=$(grep -c 'args: \["[a-z-]*", "migrate"\]' "$DEFAULT")
if ((boot == 12 && boot_false == 12 && migrate_args == 6)) && grep -q 'helm.sh/hook: pre-install,pre-upgrade' "$DEFAULT"; then
  pass "no service migrates at boot; the pre-install/pre-upgrade hook migrates all six"
else
  fail "DATABASE_MIGRATE_ON_BOOT=false in $boot_false of $boot places (want 12), $migrate_args migrate containers (want 6)"
fi

info "PodDisruptionBudgets"
if helm_template -f "$CHART/ci/default-values.yaml" --set auth.pdb.create=true >"$WORK/pdb.out" 2>&1 ||
  ! grep -q 'auth.pdb.minAvailable 1 with 1 replica(s) would block every node drain' "$WORK/pdb.out"; then
  cat "$WORK/pdb.out"
  fail "a PDB with minAvailable 1 over 1 replica is refused"
else
  pass "a PDB with minAvailable 1 over 1 replica is refused"
fi
if [[ $(grep -c '^kind: PodDisruptionBudget$' "$DEFAULT") == 0 && $(grep -c '^kind: PodDisruptionBudget$' "$FULL") == 6 &&
  $(grep -c '^kind: HorizontalPodAutoscaler$' "$FULL") == 2 ]]; then
  pass "no PDB by default; full-values: 6 PDBs, 2 HPAs"
else
  fail "no PDB by default; full-values: 6 PDBs, 2 HPAs"
fi

info "pods: memory settings, topology spread, priority, extra volumes, sidecars, image digest"
# Each rendering's Deployments as "<component> <what>" facts, compared with what each setting must give.
pod_facts() {
  "$VENV/bin/python" -c '
import sys, yaml
for doc in yaml.safe_load_all(sys.stdin):
    if not doc or doc.get("kind") != "Deployment":
        continue
    pod = doc["spec"]["template"]["spec"]
    component = doc["metadata"]["labels"]["app.kubernetes.io/component"]
    main = pod["containers"][0]
    env = {e["name"]: e.get("value") for e in main.get("env", [])}
    for name in ("NODE_OPTIONS", "MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_"):
        print(component, f"{name}={env.get(name)}")
    print(component, "image=" + main["image"])
    print(component, "containers=" + ",".join(c["name"] for c in pod["containers"]))
    print(component, "priorityClassName=" + str(pod.get("priorityClassName")))
    print(component, "mounts=" + ",".join(m["mountPath"] for m in main.get("volumeMounts", [])))
    print(component, "volumes=" + ",".join(v["name"] for v in pod.get("volumes", [])))
    for c in pod.get("topologySpreadConstraints", []):
        selector = c["labelSelector"]["matchLabels"].get("app.kubernetes.io/component")
        keys = (c["topologyKey"], c["maxSkew"], c["whenUnsatisfiable"], selector, c.get("matchLabelKeys"))
        print(component, "spread=" + "/".join(str(key) for key in keys))
'
}
expect_facts() {
  local label=$1 facts=$2 missing=()
  shift 2
  for fact in "$@"; do grep -qxF -- "$fact" <<<"$facts" || missing+=("$fact"); done
  if ((${#missing[@]} == 0)); then pass "$label"; else
    fail "$label: missing ${missing[*]}"
  fi
}
default_facts=$(pod_facts <"$DEFAULT")
expect_facts "memory settings by default from each container's 512Mi limit (1 MB semi-spaces for location-query and export-worker)" \
  "$default_facts" \
  'auth NODE_OPTIONS=--max-old-space-size=192 --max-semi-space-size=4' \
  'location-command NODE_OPTIONS=--max-old-space-size=192 --max-semi-space-size=4' \
  'location-query NODE_OPTIONS=--max-old-space-size=192 --max-semi-space-size=1' \
  'statistics-projection NODE_OPTIONS=--max-old-space-size=192 --max-semi-space-size=4' \
  'export-worker NODE_OPTIONS=--max-old-space-size=192 --max-semi-space-size=1' \
  'webhook-dispatcher NODE_OPTIONS=--max-old-space-size=192 --max-semi-space-size=4' \
  'auth MALLOC_ARENA_MAX=2' 'webhook-dispatcher MALLOC_MMAP_THRESHOLD_=1048576'
expect_facts "pods spread over nodes and zones by default (ScheduleAnyway, per component and rollout)" "$default_facts" \
  "auth spread=kubernetes.io/hostname/1/ScheduleAnyway/auth/['pod-template-hash']" \
  "export-worker spread=topology.kubernetes.io/zone/1/ScheduleAnyway/export-worker/['pod-template-hash']"
memory_facts=$(helm_template -f "$CHART/ci/default-values.yaml" \
  --set-string auth.resources.limits.memory=1.5Gi --set locationCommand.resources.limits.memory=1000000000 \
  --set locationQuery.env.NODE_OPTIONS=--max-old-space-size=100 --set statisticsProjection.memory.auto=false \
  --set exportWorker.resources.limits.memory=null --set-string webhookDispatcher.resources.limits.memory=1000000k \
  --set topologySpread.enabled=false --set locationQuery.image.tag=hotfix \
  --set global.image.digest=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef | pod_facts)
expect_facts "memory settings follow the limit (Gi with decimals, bytes); env wins; none with auto false or no limit" \
  "$memory_facts" \
  'auth NODE_OPTIONS=--max-old-space-size=576 --max-semi-space-size=4' \
  'location-command NODE_OPTIONS=--max-old-space-size=357 --max-semi-space-size=4' \
  'location-query NODE_OPTIONS=--max-old-space-size=100' 'location-query MALLOC_ARENA_MAX=2' \
  'statistics-projection NODE_OPTIONS=None' 'statistics-projection MALLOC_ARENA_MAX=None' 'export-worker NODE_OPTIONS=None' \
  'webhook-dispatcher NODE_OPTIONS=--max-old-space-size=357 --max-semi-space-size=4'
expect_facts "global.image.digest pulls by digest every service that names no image of its own" "$memory_facts" \
  'auth image=location-exchange@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef' \
  'location-query image=location-exchange:hotfix'
if grep -qE 'NODE_OPTIONS|MALLOC_' <(helm_template -f "$CHART/ci/default-values.yaml" --show-only templates/migrate-job.yaml); then
  fail "the migration containers get no memory settings sized for the services' containers"
else
  pass "the migration containers get no memory settings sized for the services' containers"
fi
if grep -q '^.* spread=' <<<"$memory_facts"; then
  fail "topologySpread.enabled=false renders no topology spread"
else
  pass "topologySpread.enabled=false renders no topology spread"
fi
helm_template -f "$CHART/ci/default-values.yaml" --set-string exportWorker.resources.limits.memory=100Mi >"$WORK/memory.out" 2>&1 || true
helm_template -f "$CHART/ci/default-values.yaml" --set-string auth.resources.limits.memory=lots >>"$WORK/memory.out" 2>&1 || true
if grep -q 'exportWorker.resources.limits.memory 100Mi with memory.heapRatio 0.375 leaves V8 a heap of 37 MiB' "$WORK/memory.out" &&
  grep -q 'auth.resources.limits.memory "lots" is not a memory quantity' "$WORK/memory.out"; then
  pass "a memory limit too small for a heap, or not a quantity, is refused by name"
else
  cat "$WORK/memory.out"
  fail "a memory limit too small for a heap, or not a quantity, is refused by name"
fi
full_facts=$(pod_facts <"$FULL")
expect_facts "full-values: priorityClassName, extra volumes and mounts, a sidecar, a service's own spread and memory ratio, an image by digest" \
  "$full_facts" \
  'location-query priorityClassName=lx-high' 'location-query containers=location-query,log-shipper' \
  "location-query spread=topology.kubernetes.io/zone/2/DoNotSchedule/location-query/None" \
  'location-query NODE_OPTIONS=--max-old-space-size=256 --max-semi-space-size=2' \
  'export-worker NODE_OPTIONS=None' \
  'export-worker image=registry.example.test/lx/location-exchange@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef' \
  'auth priorityClassName=None' 'auth containers=auth'
if grep -q '^location-query mounts=.*/etc/ssl/corporate' <<<"$full_facts" && grep -q '^location-query volumes=.*extra-ca' <<<"$full_facts" &&
  [[ $(grep -c '^location-query spread=' <<<"$full_facts") == 1 ]]; then
  pass "full-values: the extra volume is mounted; a service's own constraints replace the default spread"
else
  fail "full-values: the extra volume is mounted; a service's own constraints replace the default spread"
fi

info "monitoring (promtool of prometheus/tools.sh)"
# The alerts as the chart renders them for release lx in namespace lx: promtool checks them and runs their unit tests
# (prometheus/alerts.test.yaml, each alert firing and not firing).
helm_template -f "$CHART/ci/default-values.yaml" --set monitoring.podMonitor.enabled=true \
  --set monitoring.prometheusRule.enabled=true >"$WORK/monitoring.yaml"
"$VENV/bin/python" - "$WORK/monitoring.yaml" "$WORK/alerts.rendered.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d.get("kind") == "PrometheusRule"]
assert len(docs) == 1, f"{len(docs)} PrometheusRules rendered"
yaml.safe_dump({"groups": docs[0]["spec"]["groups"]}, open(sys.argv[2], "w"), sort_keys=False)
PY
cp "$HERE/prometheus/alerts.test.yaml" "$WORK/"
if "$PROMTOOL" check rules "$WORK/alerts.rendered.yaml" >"$WORK/promtool.out" 2>&1; then
  pass "promtool check rules:$(sed -n 's/^ *SUCCESS: \([0-9]*\) rules found$/ \1 rules/p' "$WORK/promtool.out")"
else
  cat "$WORK/promtool.out"
  fail "promtool check rules"
fi
if (cd "$WORK" && "$PROMTOOL" test rules alerts.test.yaml >"$WORK/promtool-test.out" 2>&1); then
  pass "promtool test rules prometheus/alerts.test.yaml"
else
  cat "$WORK/promtool-test.out"
  fail "promtool test rules prometheus/alerts.test.yaml"
fi
# Every alert: a unit test, and a runbook at docs/runbooks/<alert>.md named by its runbook_url (and no runbook
# without its alert).
mapfile -t alerts < <(sed -n 's/^ *- alert: \(.*\)$/\1/p' "$WORK/alerts.rendered.yaml")
untested=() unbooked=()
for alert in "${alerts[@]}"; do
  grep -q "alertname: $alert\$" "$HERE/prometheus/alerts.test.yaml" || untested+=("$alert")
  [[ -f "$ROOT/docs/runbooks/$alert.md" ]] && grep -q "runbook_url: docs/runbooks/$alert.md\$" "$WORK/alerts.rendered.yaml" ||
    unbooked+=("$alert")
done
for runbook in "$ROOT"/docs/runbooks/Lx*.md; do
  printf '%s\n' "${alerts[@]}" | grep -qx "$(basename "$runbook" .md)" || unbooked+=("$(basename "$runbook") (no alert)")
done
if ((${#alerts[@]} >= 10 && ${#untested[@]} == 0 && ${#unbooked[@]} == 0)); then
  pass "each of the ${#alerts[@]} alerts has unit tests and its runbook docs/runbooks/<alert>.md"
else
  fail "alerts without unit tests: ${untested[*]:-none}; runbooks missing or unlinked: ${unbooked[*]:-none}"
fi
# Every selector of every alert is scoped to the release (e2e/src/monitoring.e2e-spec.ts checks that the services
# expose each metric the alerts read).
if "$VENV/bin/python" - "$WORK/alerts.rendered.yaml" <<'PY'; then
import sys, yaml
rules = [r for g in yaml.safe_load(open(sys.argv[1]))["groups"] for r in g["rules"]]
unscoped = [r["alert"] for r in rules if r["expr"].count("{") != r["expr"].count('{job="lx-location-exchange",namespace="lx"')]
sys.exit(f"selectors without the release's: {unscoped}" if unscoped else 0)
PY
  pass "every selector of the alerts is scoped by job and namespace"
else
  fail "every selector of the alerts is scoped by job and namespace"
fi
helm_template -f "$CHART/ci/default-values.yaml" --set monitoring.prometheusRule.enabled=true \
  --set 'monitoring.selector=service="lx"' --set monitoring.prometheusRule.runbookBaseUrl=https://docs.example.test/runbooks/ \
  --set monitoring.prometheusRule.alertLabels.severity=page --set monitoring.prometheusRule.alertLabels.team=network \
  >"$WORK/monitoring-set.yaml"
if grep -q 'up{service="lx"} == 0' "$WORK/monitoring-set.yaml" && ! grep -q 'job="lx-location-exchange"' "$WORK/monitoring-set.yaml" &&
  grep -q 'runbook_url: https://docs.example.test/runbooks/LxTargetDown.md$' "$WORK/monitoring-set.yaml" &&
  [[ $(grep -c 'team: network$' "$WORK/monitoring-set.yaml") == "${#alerts[@]}" ]] && ! grep -q 'severity: page' "$WORK/monitoring-set.yaml"; then
  pass "monitoring.selector, runbookBaseUrl and alertLabels apply to every alert (a rule's own severity wins)"
else
  fail "monitoring.selector, runbookBaseUrl and alertLabels apply to every alert (a rule's own severity wins)"
fi
# The dashboard: a ConfigMap for Grafana's sidecar by default; every panel query on the release's series only, through
# the dashboard's data source variable (e2e/src/monitoring.e2e-spec.ts checks the metrics exist).
if "$VENV/bin/python" - "$CHART/files/grafana/location-exchange.json" <<'PY'; then
import json, sys
dashboard = json.load(open(sys.argv[1]))
ids = [p["id"] for p in dashboard["panels"]]
targets = [(p["title"], t) for p in dashboard["panels"] for t in p.get("targets", [])]
problems = [f"panel ids repeat: {ids}"] if len(ids) != len(set(ids)) else []
for title, target in targets:
    expr = target["expr"]
    if expr.count("{") != expr.count('{job="$job",namespace="$namespace"'):
        problems.append(f"{title}: a selector without the release's labels")
    if target.get("datasource", {}).get("uid") != "${datasource}":
        problems.append(f"{title}: not on the data source variable")
if len(targets) < 20:
    problems.append(f"{len(targets)} queries")
sys.exit("; ".join(problems) if problems else 0)
PY
  pass "the dashboard's panels query the release's series through its data source variable"
else
  fail "the dashboard's panels query the release's series through its data source variable"
fi
# Rendered to a file first: under pipefail, grep -q leaving early would fail helm's write, and `!` turn that into a pass.
helm_template -f "$CHART/ci/default-values.yaml" --set monitoring.dashboard.enabled=false >"$WORK/no-dashboard.yaml"
if grep -q '^    grafana_dashboard: "1"$' "$DEFAULT" && ! grep -q 'grafana_dashboard' "$WORK/no-dashboard.yaml"; then
  pass "the dashboard ConfigMap is labelled for Grafana's sidecar by default, and can be turned off"
else
  fail "the dashboard ConfigMap is labelled for Grafana's sidecar by default, and can be turned off"
fi
if grep -qE '^kind: (PodMonitor|PrometheusRule)$' "$DEFAULT" || [[ $(grep -cE '^kind: (PodMonitor|PrometheusRule)$' "$FULL") != 2 ]]; then
  fail "no PodMonitor or PrometheusRule by default (they need the operator's CRDs); full-values renders both"
else
  pass "no PodMonitor or PrometheusRule by default (they need the operator's CRDs); full-values renders both"
fi

info "network policies (network-config-analyzer $NCA_VERSION)"
# The default rendering's policies against the cluster around a release (network-policies/world.yaml): the connectivity
# matrix is the committed one (a change of it is a reviewed change of connectivity.csv: regenerate with
# NCA_WRITE=1), the connections of forbidden.yaml are all denied and those of permitted.yaml all allowed.
ensure_nca
NP="$HERE/network-policies"
cp "$NP/world.yaml" "$NP/forbidden.yaml" "$NP/permitted.yaml" "$WORK/"
# Without the Ingress objects: nca models an Ingress as a policy of a controller it invents (a namespace
# ingress-controller-ns that is in no cluster), which has no effect on the NetworkPolicies here, and its path
# automata took 75 s of each of the three runs below (2 s without them).
awk '/^---$/ { if (doc !~ /\nkind: Ingress\n/) printf "%s", doc; doc = "" } { doc = doc $0 "\n" }
  END { if (doc !~ /\nkind: Ingress\n/) printf "%s", doc }' "$DEFAULT" >"$WORK/rendered.yaml"
[[ $(grep -c '^kind: Ingress$' "$WORK/rendered.yaml") == 0 && $(grep -c '^kind: NetworkPolicy$' "$WORK/rendered.yaml") == $(grep -c '^kind: NetworkPolicy$' "$DEFAULT") ]] ||
  die "the rendering for nca must keep every NetworkPolicy and no Ingress"
nca() { (cd "$WORK" && "$NCA_VENV/bin/nca" "$@" -r rendered.yaml -r world.yaml >"$WORK/nca.out" 2>&1); }
if [[ "${NCA_WRITE:-}" == 1 ]]; then
  rm -f "$NP/connectivity.csv" # nca -f appends to an existing file
  nca --connectivity rendered.yaml -o csv -f "$NP/connectivity.csv" || die "nca --connectivity failed: $(cat "$WORK/nca.out")"
  info "wrote $NP/connectivity.csv"
fi
if nca --connectivity rendered.yaml -o csv --expected_output "$NP/connectivity.csv"; then
  pass "the connectivity of the default policies is network-policies/connectivity.csv"
else
  cat "$WORK/nca.out"
  fail "the connectivity of the default policies is network-policies/connectivity.csv (NCA_WRITE=1 rewrites it)"
fi
if nca --forbids forbidden.yaml -b rendered.yaml; then
  pass "the default policies deny every connection of network-policies/forbidden.yaml"
else
  cat "$WORK/nca.out"
  fail "the default policies deny every connection of network-policies/forbidden.yaml"
fi
if nca --permits permitted.yaml -b rendered.yaml; then
  pass "the default policies allow every connection of network-policies/permitted.yaml"
else
  cat "$WORK/nca.out"
  fail "the default policies allow every connection of network-policies/permitted.yaml"
fi
if helm_template -f "$CHART/ci/default-values.yaml" --set 'kafka.brokers[0]=kafka:9093' \
  --set objectStorage.endpoint=http://minio.storage >"$WORK/np-ports.out" 2>&1 ||
  ! grep -q 'networkPolicy.kafka.ports (9092) must include the port of the broker kafka:9093' "$WORK/np-ports.out" ||
  ! grep -q 'networkPolicy.objectStorage.ports (9000, 443) must include the port of objectStorage.endpoint http://minio.storage (80)' "$WORK/np-ports.out"; then
  cat "$WORK/np-ports.out"
  fail "a broker or object storage port the policies do not open is refused by name"
else
  pass "a broker or object storage port the policies do not open is refused by name"
fi
helm_template -f "$CHART/ci/default-values.yaml" --set-json 'networkPolicy.kafka.ports=[]' >"$WORK/np-empty.out" 2>&1 || true
helm_template -f "$CHART/ci/default-values.yaml" --set-json 'networkPolicy.webhooks.exceptCidrs=["fc00::/7"]' \
  >>"$WORK/np-empty.out" 2>&1 || true
if ! grep -q "at '/networkPolicy/kafka/ports': minItems" "$WORK/np-empty.out" ||
  ! grep -q "at '/networkPolicy/webhooks/exceptCidrs/0': 'fc00::/7' does not match pattern" "$WORK/np-empty.out"; then
  cat "$WORK/np-empty.out"
  fail "values.schema.json refuses no Kafka port (which would open every port) and an IPv6 exception"
else
  pass "values.schema.json refuses no Kafka port (which would open every port) and an IPv6 exception"
fi
helm_template -f "$CHART/ci/default-values.yaml" --set networkPolicy.enabled=false >"$WORK/no-policies.yaml"
if grep -q '^kind: NetworkPolicy$' "$WORK/no-policies.yaml"; then
  fail "networkPolicy.enabled=false renders no NetworkPolicy"
else
  pass "networkPolicy.enabled=false renders no NetworkPolicy"
fi

echo
echo "kubeconform (Kubernetes $KUBE_VERSION, strict):"
printf '  %s\n' "${summaries[@]}"
if ((${#failures[@]} > 0)); then
  echo "helm check: ${#failures[@]} check(s) failed:"
  printf '  - %s\n' "${failures[@]}"
  exit 1
fi
echo "helm check: ok (helm $HELM_VERSION and kubeconform $KUBECONFORM_VERSION from $BIN, schemas of kubernetes-validate $KUBERNETES_VALIDATE_VERSION)"
