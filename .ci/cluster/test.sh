#!/usr/bin/env bash
# npm run test:cluster: the image and the Helm chart on a real Kubernetes, end to end.
#
#   1. the toolchain: Kubernetes v1.34, helm and kubeconform built from the Go module proxy (.ci/cluster/k8s-offline,
#      cold 13-20 min, then cached), and a single-node cluster of its own started from it
#   2. the image, assembled offline (docker/build-image.py), and the image of the previous release (the commit
#      PREVIOUS_RELEASE of .ci/cluster/previous-release.sh, built by its own build-image.py, cached), both
#      imported into the node's containerd
#   3. PostgreSQL, Kafka and MinIO outside the cluster (deploy/local/infra.sh), listening on the node address
#      10.244.0.1 that pods reach, with their own state in .infra-cluster/
#   4. every ci/*.yaml of the chart checked by the API server (--dry-run=server; the Prometheus operator's CRDs created
#      first where missing); the previous release installed with its own chart and test values, helm install --wait
#      (the migration hook runs first; every pod must pass its probes; the PodMonitor and PrometheusRule are
#      created), then its helm test
#   5. the project's nginx ingress (the local route table) on this machine, whose upstreams are the chart's
#      Services: no Ingress controller can be built here (docs/kubernetes.md)
#   6. the upgrade to this checkout (its chart, values and image) while the operator keeps writing and an RSP keeps
#      reading and receiving webhooks (e2e/src/cluster/), two replicas of everything: no failed request, no 5xx at
#      the ingress beyond the refusals the writers repeat, no lost event, pods replaced one at a time; the migrations
#      between the two versions (at least one) are applied by it
#   7. the system suite of e2e/ through the ingress, on this checkout's version (one replica of everything); then
#      helm test again, which now reads a location the suite wrote
#   8. helm rollback to the previous release under the same load and checks; its schema stays (migrations are
#      expand-only, docs/kubernetes.md), and the previous release's helm test passes on it
#   9. helm uninstall and everything stopped, also on failure (with the pods' state and logs printed first)
#
#   LX_CLUSTER_KEEP=1   leave the cluster, the release and the infrastructure running at the end (to look around;
#                       stop with: bash .ci/cluster/k8s-offline/down.sh; LX_STATE_DIR=.infra-cluster
#                       LX_BIND_ADDRESS=10.244.0.1 bash deploy/local/infra.sh down)
#
# Where KUBECONFIG names a cluster, the same steps run on that cluster instead of one of its own (nothing of it is
# started or stopped; the test release gets a namespace of its own, removed at the end):
#   KUBECONFIG                  the cluster
#   LX_CLUSTER_HOST_ADDRESS     required: an address of this machine the cluster's pods reach (PostgreSQL, Kafka,
#                               MinIO and the test's webhook receivers listen there)
#   LX_CLUSTER_IMAGE_LOAD       required: a command that makes the image archive (appended as its last argument)
#                               available to the cluster, e.g. "kind load image-archive --name lx" or
#                               "ctr -n k8s.io images import" on a single node
#   LX_CLUSTER_IMAGE_REPOSITORY the image's name in the cluster (default location-exchange)
#   LX_CLUSTER_NAMESPACE        the test release's namespace (default lx-e2e; it must not exist yet)
# This machine must reach the cluster's Service addresses (as a node does), since the ingress's upstreams and the
# upgrade under load go through them; the script checks that before the system suite. On a laptop with Docker,
# .ci/kind/test.sh runs the chart on a kind cluster of its own.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
export LX_STATE_DIR="${LX_CLUSTER_STATE_DIR:-$(cd "$HERE/../.." && pwd -P)/.infra-cluster}"
# A cluster named by the caller, or one of this script's own.
EXISTING_KUBECONFIG="${KUBECONFIG:-}"
if [[ -n "$EXISTING_KUBECONFIG" ]]; then
  export LX_BIND_ADDRESS="${LX_CLUSTER_HOST_ADDRESS:?KUBECONFIG names a cluster: set LX_CLUSTER_HOST_ADDRESS to an address of this machine its pods reach}"
  : "${LX_CLUSTER_IMAGE_LOAD:?KUBECONFIG names a cluster: set LX_CLUSTER_IMAGE_LOAD to a command that loads an image archive into it}"
else
  export LX_BIND_ADDRESS=10.244.0.1
fi
LX_COMPONENT=cluster
# shellcheck source=deploy/local/lib.sh
source "$HERE/../../deploy/local/lib.sh"
# shellcheck source=.ci/cluster/release.sh
source "$HERE/release.sh"
# shellcheck source=.ci/cluster/netpol-enforcer.sh
source "$HERE/netpol-enforcer.sh"
# shellcheck source=.ci/cluster/previous-release.sh
source "$HERE/previous-release.sh"
cd "$LX_REPO_ROOT"
export TZ=UTC NX_DAEMON=false

K8S_TOOLS="$HERE/k8s-offline"
export K8S_CACHE="${K8S_CACHE:-$HOME/.cache/k8s-offline/v1.34.4}"
export K8S_RUN="${K8S_RUN:-/tmp/k8s-e2e}"
BIN="$K8S_CACHE/bin"
RELEASE=lx
NAMESPACE=location-exchange
IMAGE_REPOSITORY=location-exchange
if [[ -n "$EXISTING_KUBECONFIG" ]]; then
  NAMESPACE="${LX_CLUSTER_NAMESPACE:-lx-e2e}"
  IMAGE_REPOSITORY="${LX_CLUSTER_IMAGE_REPOSITORY:-location-exchange}"
fi
CHART="$LX_REPO_ROOT/helm/location-exchange"
REVISION="$(git rev-parse --short HEAD 2>/dev/null || echo local)"
IMAGE_TAG="ci-$REVISION"
# The previous release's chart and test values (previous_release_chart), and its image's tag (set by image).
PREVIOUS_DIR="$LX_STATE_DIR/previous"
PREVIOUS_TAG=""
RELEASE_VALUES="$LX_STATE_DIR/release-values.yaml"

started_cluster=0
started_infra=0
installed=0
declare -A TIMES=()

timed() {
  local name=$1 t0=$SECONDS
  shift
  lx_info "--- $name"
  "$@"
  TIMES[$name]=$((SECONDS - t0))
  lx_ok "$name in ${TIMES[$name]}s"
}

diagnose() {
  lx_warn "the cluster as the failure left it:"
  kubectl get pods,deployments,jobs,services -A -o wide >&2 || true
  kubectl get events -n "$NAMESPACE" --sort-by=.lastTimestamp 2>/dev/null | tail -n 40 >&2 || true
  local pod
  for pod in $(kubectl get pods -n "$NAMESPACE" -o name 2>/dev/null); do
    lx_info "logs of $pod (last 30 lines)"
    kubectl logs -n "$NAMESPACE" "$pod" --all-containers --tail=30 >&2 || true
  done
  if [[ -f "$LX_LOG_DIR/postgres.log" ]]; then
    lx_info "PostgreSQL's errors (last 30)"
    grep -E 'ERROR|FATAL|PANIC' "$LX_LOG_DIR/postgres.log" | tail -n 30 >&2 || true
  fi
}

cleanup() {
  local rc=$?
  set +e
  if ((rc != 0)) && command -v kubectl >/dev/null; then diagnose; fi
  if [[ "${LX_CLUSTER_KEEP:-0}" == 1 ]]; then
    lx_info "LX_CLUSTER_KEEP=1: leaving everything running (KUBECONFIG=$KUBECONFIG)"
    exit "$rc"
  fi
  bash "$LX_LOCAL_DIR/nginx.sh" stop >/dev/null 2>&1
  if ((installed)); then helm uninstall "$RELEASE" -n "$NAMESPACE" --wait --timeout 2m >&2; fi
  if ((installed)) && [[ -n "$EXISTING_KUBECONFIG" ]]; then kubectl delete namespace "$NAMESPACE" --wait=false >&2; fi
  if ((started_cluster)); then
    netpol_enforcer_stop
    bash "$K8S_TOOLS/down.sh" >&2
    netpol_enforcer_cleanup
  fi
  if ((started_infra)); then bash "$LX_LOCAL_DIR/infra.sh" down >&2; fi
  rm -rf "$LX_STATE_DIR"
  exit "$rc"
}
trap cleanup EXIT

# kubectl and helm: the caller's for a cluster of the caller's when both are on PATH, otherwise built offline.
toolchain() {
  if [[ -n "$EXISTING_KUBECONFIG" ]] && command -v kubectl >/dev/null && command -v helm >/dev/null; then return; fi
  bash "$K8S_TOOLS/build.sh" >&2
  if [[ -z "$EXISTING_KUBECONFIG" ]]; then netpol_enforcer_install; fi
}

# This checkout's image, and the previous release's (its image, chart and test values) that the upgrade starts from.
image() {
  npx nx run-many -t build --parallel=2 --outputStyle=static >&2
  python3 docker/build-image.py --tag "$IMAGE_REPOSITORY:$IMAGE_TAG" --out "$LX_STATE_DIR/image.tar" >&2
  local tag
  tag=$(previous_release_image "$IMAGE_REPOSITORY" "$LX_STATE_DIR/previous-image.tar")
  PREVIOUS_TAG=${tag##*:}
  previous_release_chart "$PREVIOUS_DIR"
}

# A cluster of the caller's: it answers, the test namespace is free, and the image is loaded by the caller's command.
existing_cluster() {
  kubectl get --raw /readyz >/dev/null || lx_die "the cluster of KUBECONFIG=$EXISTING_KUBECONFIG does not answer"
  if kubectl get namespace "$NAMESPACE" >/dev/null 2>&1; then
    lx_die "namespace $NAMESPACE exists in that cluster; set LX_CLUSTER_NAMESPACE to one the test may create and delete"
  fi
  # shellcheck disable=SC2086 # the command is given as words
  $LX_CLUSTER_IMAGE_LOAD "$LX_STATE_DIR/image.tar" >&2
  # shellcheck disable=SC2086
  $LX_CLUSTER_IMAGE_LOAD "$LX_STATE_DIR/previous-image.tar" >&2
}

cluster() {
  started_cluster=1
  # A cluster left running (LX_CLUSTER_KEEP=1) is stopped first: every run starts from an empty one.
  if [[ -d "$K8S_RUN" ]]; then bash "$K8S_TOOLS/down.sh" >&2; fi
  bash "$K8S_TOOLS/up.sh" >&2
  # NetworkPolicies enforced from the start, as on a cluster whose network plugin enforces them (netpol-enforcer.sh).
  netpol_enforcer_start
  # This checkout's image and the previous release's.
  ctr -a "$K8S_RUN/containerd.sock" -n k8s.io images import "$LX_STATE_DIR/image.tar" >&2
  ctr -a "$K8S_RUN/containerd.sock" -n k8s.io images import "$LX_STATE_DIR/previous-image.tar" >&2
}

# Every ci/*.yaml of the chart rendered and checked by the API server itself (kubectl apply --dry-run=server), which
# rejects what helm lint and kubeconform let through; nothing is created.
validate() {
  local values version
  monitoring_crds
  version=$(kubectl version -o json | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0)).serverVersion.gitVersion)')
  local namespace="$NAMESPACE-validate"
  kubectl create namespace "$namespace" >&2
  for values in "$CHART"/ci/*.yaml; do
    lx_info "server-side validation of $(basename "$values") (Kubernetes $version)"
    helm template "$RELEASE" "$CHART" -n "$namespace" -f "$values" --kube-version "$version" |
      kubectl apply --dry-run=server -n "$namespace" -f - >/dev/null
  done
  kubectl delete namespace "$namespace" --wait=false >&2
}

infra() {
  started_infra=1
  bash "$LX_LOCAL_DIR/infra.sh" up >&2
}

# The chart's values key of each service.
SERVICE_VALUE_KEYS=(auth locationCommand locationQuery statisticsProjection exportWorker webhookDispatcher)

# helm_args previous|current: the arguments of a helm install or upgrade to that version: its chart, its test
# values, the release values of this run, and its image.
helm_args() {
  local chart=$CHART values=$HERE/values.yaml tag=$IMAGE_TAG
  if [[ $1 == previous ]]; then
    chart=$PREVIOUS_DIR/helm/location-exchange values=$PREVIOUS_DIR/values.yaml tag=$PREVIOUS_TAG
  fi
  printf '%s\n' "$RELEASE" "$chart" -n "$NAMESPACE" -f "$values" -f "$RELEASE_VALUES" \
    --set "global.image.repository=$IMAGE_REPOSITORY" --set "global.image.tag=$tag"
  if [[ $1 == previous ]]; then previous_probes; fi
  # values.yaml says Never (the image is imported into the node); a caller's cluster may pull it from a registry.
  if [[ -n "$EXISTING_KUBECONFIG" ]]; then printf '%s\n' --set global.image.pullPolicy=IfNotPresent; fi
}

# --set arguments that give the previous release the probe timings this chart ships (5 s per answer, 150 startup
# probes), and, for the readiness grace its code lacks (READINESS_GRACE_MS, 20 s), a readiness failureThreshold of 7
# (35 s of 503s instead of 15 s). Without them its pods, whose every replica reads the same dependencies, leave their
# Service together when the node is short of CPU during the rollout (seen: location-query 0 of 2 ready for 10 s, 13
# reads answered 503 by the ingress), which is the defect this version fixed, not what the upgrade test measures.
previous_probes() {
  local key
  for key in "${SERVICE_VALUE_KEYS[@]}"; do
    printf '%s\n' --set "$key.livenessProbe.timeoutSeconds=5" --set "$key.readinessProbe.timeoutSeconds=5" \
      --set "$key.readinessProbe.failureThreshold=7" --set "$key.startupProbe.timeoutSeconds=5" \
      --set "$key.startupProbe.failureThreshold=150"
  done
}

# --set arguments for N replicas of every service.
replicas() {
  local key
  for key in "${SERVICE_VALUE_KEYS[@]}"; do
    printf '%s\n' --set "$key.replicaCount=$1"
  done
}

# The migrations applied in every schema of the database (the names in each schema's `migrations` table), sorted.
applied_migrations() {
  local url schemas schema
  url=$(lx_env_get DATABASE_URL)
  schemas=$(psql "$url" -XAt -v ON_ERROR_STOP=1 -c \
    "SELECT table_schema FROM information_schema.tables WHERE table_name = 'migrations'")
  [[ -n "$schemas" ]] || lx_die "the database has no schema with a migrations table"
  for schema in $schemas; do
    psql "$url" -XAt -v ON_ERROR_STOP=1 -c "SELECT name FROM \"$schema\".migrations"
  done | sort
}

# check_migrations absent|applied: whether the migrations between the previous release and this checkout are in the
# database. There must be at least one: the upgrade is to exercise a schema change.
check_migrations() {
  local expected applied missing present
  expected=$(migrations_since_previous_release)
  [[ -n "$expected" ]] || lx_die "no migration lies between the previous release ${PREVIOUS_RELEASE:0:7} and this checkout; move PREVIOUS_RELEASE (.ci/cluster/previous-release.sh) to a release before the last schema change"
  applied=$(applied_migrations)
  present=$(comm -12 <(printf '%s\n' "$expected") <(printf '%s\n' "$applied"))
  missing=$(comm -23 <(printf '%s\n' "$expected") <(printf '%s\n' "$applied"))
  if [[ $1 == absent && -n "$present" ]]; then lx_die "before the upgrade, the database already has: $present"; fi
  if [[ $1 == applied && -n "$missing" ]]; then lx_die "the database lacks the migrations: $missing"; fi
  lx_ok "the migrations since the previous release are $1: $(printf '%s' "$expected" | paste -sd, | sed 's/,/, /g')"
}

# The previous release, as an operator runs it: its own chart, values and image.
install() {
  write_release_values "$RELEASE_VALUES"
  installed=1
  mapfile -t args < <(helm_args previous)
  helm install "${args[@]}" --create-namespace --wait --timeout 10m >&2
  kubectl get pods -n "$NAMESPACE" -o wide >&2
  [[ $(kubectl get podmonitors,prometheusrules -n "$NAMESPACE" -o name | wc -l) == 2 ]] ||
    lx_die "the release has no PodMonitor and PrometheusRule (.ci/cluster/values.yaml turns both on)"
  helm test "$RELEASE" -n "$NAMESPACE" --logs --timeout 5m >&2
}

service_ip() { kubectl get service -n "$NAMESPACE" "$RELEASE-location-exchange-$1" -o jsonpath='{.spec.clusterIP}'; }

# The project's nginx ingress in front of the chart's Services, one connection per request (nginx.sh explains why).
ingress() {
  local name
  for name in "${LX_SERVICES[@]}"; do
    export "$(lx_env_name "$name")_HOST=$(service_ip "$name")" "$(lx_env_name "$name")_PORT=80"
  done
  LX_UPSTREAM_KEEPALIVE=0 bash "$LX_LOCAL_DIR/nginx.sh" start >/dev/null
  curl -fsS -o /dev/null --max-time 10 "http://$(service_ip auth)/health/live" ||
    lx_die "this machine cannot reach the cluster's Service addresses (auth at $(service_ip auth)); run the test from a node"
  edge_errors
}

# The chart's error backend (edgeErrors) as an Ingress controller reaches it: a path without a route (what each
# Ingress's catch-all "/" sends it) is the API's JSON 404 with the API's security headers, whatever the method.
edge_errors() {
  local edge reply headers
  edge="http://$(service_ip edge-errors)"
  reply=$(curl -sS --max-time 10 -w ' %{http_code}' "$edge/no/such/route")
  [[ "$reply" == $'{"error":{"code":"RESOURCE_NOT_FOUND","message":"No route for this path"}}\n 404' ]] ||
    lx_die "the error backend answered a path without a route with: $reply"
  headers=$(curl -sS --max-time 10 -X POST -d '{}' -D - -o /dev/null "$edge/admin/keys/rotate")
  [[ "$headers" == *"HTTP/1.1 404"* && "$headers" == *$'\nx-content-type-options: nosniff\r'* ]] ||
    lx_die "the error backend answered POST /admin/keys/rotate with: $headers"
  lx_ok "the error backend answers 404 RESOURCE_NOT_FOUND with the API's headers"
}

system_env() {
  local name
  export BASE_URL="$LX_BASE_URL" ADMIN_CLIENT_ID ADMIN_CLIENT_SECRET E2E_RECEIVER_HOST="$LX_BIND_ADDRESS"
  for name in "${LX_SERVICES[@]}"; do export "$(lx_env_name "$name")_URL=http://$(service_ip "$name")"; done
}

system_suite() {
  # One replica of everything (the suite reads each service's /metrics through its Service).
  mapfile -t args < <(helm_args current)
  mapfile -t scale < <(replicas 1)
  helm upgrade "${args[@]}" "${scale[@]}" --wait --timeout 10m >&2
  system_env
  npx jest -c e2e/jest.config.js --forceExit --json --outputFile="$LX_REPO_ROOT/reports/cluster-e2e.json" >&2
  # helm test again, now that the suite has written locations: its read of a real location must run and pass (after
  # the install it could only read a page without one).
  helm test "$RELEASE" -n "$NAMESPACE" --logs --timeout 5m | tee "$LX_STATE_DIR/helm-test-2.log" >&2
  grep -q '^ok   GET /locations/<id>$' "$LX_STATE_DIR/helm-test-2.log" ||
    lx_die "the second helm test did not read a real location (see its log above)"
}

# change_under_load PHASE IMAGE COMMAND...: e2e/src/cluster/ while COMMAND changes the release's version, after
# which every pod must run IMAGE.
change_under_load() {
  local phase=$1 image=$2
  shift 2
  system_env
  KUBECTL="$(command -v kubectl)"
  export KUBECTL LX_NAMESPACE="$NAMESPACE" LX_RELEASE="$RELEASE" LX_UPGRADE_PHASE="$phase" LX_EXPECTED_IMAGE="$image"
  export LX_INGRESS_ACCESS_LOG="$LX_LOG_DIR/nginx-access.log" LX_UPGRADE_COMMAND
  LX_UPGRADE_COMMAND="$(printf '%q ' "$@")"
  npx jest -c e2e/jest.cluster.config.js --forceExit --json --outputFile="$LX_REPO_ROOT/reports/cluster-$phase.json" >&2
}

# Two replicas of every service on the previous release, then the upgrade to this checkout's chart, values and image
# under load; the migrations between the two are applied by it.
upgrade_under_load() {
  mapfile -t args < <(helm_args previous)
  mapfile -t scale < <(replicas 2)
  helm upgrade "${args[@]}" "${scale[@]}" --wait --timeout 10m >&2
  check_migrations absent
  mapfile -t args < <(helm_args current)
  change_under_load upgrade "$IMAGE_REPOSITORY:$IMAGE_TAG" "$(command -v helm)" upgrade "${args[@]}" "${scale[@]}" \
    --wait --timeout 10m
  check_migrations applied
}

# helm rollback to the first revision (the previous release as installed) under load; no migration Job runs, the
# schema stays as this checkout left it, and the previous release works on it, its own helm test included.
rollback_under_load() {
  change_under_load rollback "$IMAGE_REPOSITORY:$PREVIOUS_TAG" "$(command -v helm)" rollback "$RELEASE" 1 \
    -n "$NAMESPACE" --wait --timeout 10m
  check_migrations applied
  helm test "$RELEASE" -n "$NAMESPACE" --logs --timeout 5m >&2
}

main() {
  local t0=$SECONDS
  # Every run starts from empty databases, topics and buckets (a kept run of LX_CLUSTER_KEEP=1 is stopped first).
  bash "$LX_LOCAL_DIR/nginx.sh" stop >/dev/null 2>&1 || true
  bash "$LX_LOCAL_DIR/infra.sh" down >/dev/null 2>&1 || true
  rm -rf "$LX_STATE_DIR"
  mkdir -p "$LX_STATE_DIR" "$LX_REPO_ROOT/reports"
  timed toolchain toolchain
  if [[ -n "$EXISTING_KUBECONFIG" ]]; then
    lx_info "KUBECONFIG names a cluster ($EXISTING_KUBECONFIG): testing in its namespace $NAMESPACE"
    export PATH="$PATH:$BIN" KUBECONFIG="$EXISTING_KUBECONFIG"
    timed image image
    timed cluster existing_cluster
  else
    export PATH="$BIN:$PATH" KUBECONFIG="$K8S_RUN/pki/admin.kubeconfig"
    timed image image
    timed cluster cluster
  fi
  timed validate validate
  timed infrastructure infra
  timed install install
  if [[ -z "$EXISTING_KUBECONFIG" ]]; then
    timed network-policies netpol_probe "$NAMESPACE" "$RELEASE" "$IMAGE_REPOSITORY:$IMAGE_TAG"
  fi
  timed ingress ingress
  timed upgrade-under-load upgrade_under_load
  timed system-suite system_suite
  timed rollback-under-load rollback_under_load
  local step steps=()
  for step in toolchain image cluster validate infrastructure install network-policies ingress upgrade-under-load \
    system-suite rollback-under-load; do
    [[ -n "${TIMES[$step]:-}" ]] && steps+=("$step ${TIMES[$step]}s")
  done
  lx_ok "cluster tests passed in $(lx_elapsed "$t0") ($(IFS=,; printf '%s' "${steps[*]}" | sed 's/,/, /g'))"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then main "$@"; fi
