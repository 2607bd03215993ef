#!/usr/bin/env bash
# The cluster test on a laptop with Docker: a kind cluster, the image built by docker/Dockerfile and loaded into it,
# the chart installed with PostgreSQL, Kafka and MinIO outside the cluster (deploy/local/infra.sh, listening on the
# kind network's gateway, which the pods reach), helm test, then the system suite of e2e/ through the project's nginx
# ingress on this machine, whose upstreams are `kubectl port-forward`s of the chart's Services.
#
# Written for a machine with a Docker engine, kind, kubectl and helm. It has NOT been run: the machines this project
# is built and tested on cannot run kind (no Docker engine); there, .ci/cluster/test.sh runs the same chart on a
# single-node Kubernetes built offline (npm run test:cluster). See docs/kubernetes.md.
#
#   KIND_CLUSTER        cluster name                         default lx-e2e
#   LX_CLUSTER_KEEP=1   leave the cluster and the infrastructure running at the end
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
export LX_STATE_DIR="${LX_KIND_STATE_DIR:-$HERE/../../.infra-kind}"
CLUSTER="${KIND_CLUSTER:-lx-e2e}"
for tool in docker kind kubectl helm; do
  command -v "$tool" >/dev/null || { echo "[kind] error: $tool is not installed" >&2; exit 1; }
done
docker network inspect kind >/dev/null 2>&1 || docker network create kind >/dev/null
# The IPv4 gateway of the kind network: the pods' way to this machine.
LX_BIND_ADDRESS="$(docker network inspect kind \
  -f '{{range .IPAM.Config}}{{if .Gateway}}{{.Gateway}} {{end}}{{end}}' | tr ' ' '\n' | grep -m1 -E '^[0-9.]+$')"
export LX_BIND_ADDRESS
LX_COMPONENT=kind
# shellcheck source=deploy/local/lib.sh
source "$HERE/../../deploy/local/lib.sh"
# shellcheck source=.ci/cluster/release.sh
source "$HERE/../cluster/release.sh"
cd "$LX_REPO_ROOT"

RELEASE=lx
NAMESPACE=location-exchange
IMAGE=location-exchange:kind
FORWARDS=()

cleanup() {
  local rc=$?
  set +e
  ((${#FORWARDS[@]})) && kill "${FORWARDS[@]}" 2>/dev/null
  bash "$LX_LOCAL_DIR/nginx.sh" stop >/dev/null 2>&1
  if [[ "${LX_CLUSTER_KEEP:-0}" != 1 ]]; then
    kind delete cluster --name "$CLUSTER" >&2
    bash "$LX_LOCAL_DIR/infra.sh" down >&2
  fi
  exit "$rc"
}
trap cleanup EXIT

kind create cluster --name "$CLUSTER" --wait 120s
docker build -f docker/Dockerfile -t "$IMAGE" .
kind load docker-image "$IMAGE" --name "$CLUSTER"
bash "$LX_LOCAL_DIR/infra.sh" up
write_release_values "$LX_STATE_DIR/release-values.yaml"
# .ci/cluster/values.yaml turns on the PodMonitor and PrometheusRule: the Prometheus operator's CRDs first.
monitoring_crds
helm install "$RELEASE" helm/location-exchange -n "$NAMESPACE" --create-namespace \
  -f .ci/cluster/values.yaml -f "$LX_STATE_DIR/release-values.yaml" \
  --set global.image.repository=location-exchange --set global.image.tag=kind --set global.image.pullPolicy=Never \
  --wait --timeout 10m
helm test "$RELEASE" -n "$NAMESPACE" --logs --timeout 5m

for name in "${LX_SERVICES[@]}"; do
  kubectl port-forward -n "$NAMESPACE" "service/$RELEASE-location-exchange-$name" \
    "${LX_DEFAULT_PORT[$name]}:80" >"$LX_LOG_DIR/port-forward-$name.log" 2>&1 &
  FORWARDS+=($!)
  export "$(lx_env_name "$name")_URL=http://127.0.0.1:${LX_DEFAULT_PORT[$name]}"
done
for name in "${LX_SERVICES[@]}"; do
  for _ in $(seq 60); do curl -sf -o /dev/null "http://127.0.0.1:${LX_DEFAULT_PORT[$name]}/health/live" && break; sleep 1; done
done
bash "$LX_LOCAL_DIR/nginx.sh" start >/dev/null
export BASE_URL="$LX_BASE_URL" ADMIN_CLIENT_ID ADMIN_CLIENT_SECRET E2E_RECEIVER_HOST="$LX_BIND_ADDRESS"
npx jest -c e2e/jest.config.js --forceExit
echo "[kind] ok: the chart passed helm test and the system suite on kind cluster $CLUSTER"
