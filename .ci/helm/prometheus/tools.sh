#!/usr/bin/env bash
# The Prometheus tools of the chart's checks, from the Go module proxy, cached under LX_CACHE_DIR; prints the path.
#
#   tools.sh promtool   promtool (github.com/prometheus/prometheus, module PROMTOOL_VERSION): `check rules` and
#                       `test rules` of the chart's alerts (.ci/helm/check.sh). Built once: its module graph is
#                       large (about 1.5 GB of modules, removed after the build; about 12 min on two cores).
#   tools.sh crds       a directory with the Prometheus operator's CRDs of PodMonitor and PrometheusRule
#                       (the example/prometheus-operator-crd files of github.com/prometheus-operator/prometheus-operator
#                       at PROMETHEUS_OPERATOR_VERSION) and, under schemas/, their JSON schemas for kubeconform
#                       (monitoring.coreos.com/<kind>_v1.json, strict: no field the CRD does not declare).
set -euo pipefail

# Prometheus v3.x's module version; the operator's newest version the proxy serves whole.
PROMTOOL_VERSION=v0.316.0
PROMETHEUS_OPERATOR_VERSION=v0.94.0
LX_CACHE_DIR=${LX_CACHE_DIR:-$HOME/.cache/location-exchange}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() {
  printf '[prometheus-tools] ERROR: %s\n' "$*" >&2
  exit 1
}

# Runs "$@" with a module cache and GOPATH of its own under $1 (removed afterwards: only the result is kept).
with_scratch_go() {
  local scratch=$1
  shift
  command -v go >/dev/null || die "go is needed to fetch from the Go module proxy (install Go 1.24+)"
  rm -rf "$scratch" && mkdir -p "$scratch"
  GOPATH="$scratch/go" GOMODCACHE="$scratch/go/pkg/mod" GOCACHE="$scratch/go/cache" GOFLAGS=-mod=mod CGO_ENABLED=0 \
    "$@"
}

promtool() {
  local dir="$LX_CACHE_DIR/promtool-$PROMTOOL_VERSION" start=$SECONDS
  if [[ ! -x "$dir/promtool" ]]; then
    mkdir -p "$dir"
    (
      flock -w 1800 9 || die "timed out waiting for another promtool build"
      [[ -x "$dir/promtool" ]] && exit 0
      printf '[prometheus-tools] building promtool %s with go install (log %s)\n' "$PROMTOOL_VERSION" "$dir/build.log" >&2
      if ! with_scratch_go "$dir/scratch" env GOBIN="$dir/scratch/bin" nice -n 10 go install -ldflags "-s -w" \
        "github.com/prometheus/prometheus/cmd/promtool@$PROMTOOL_VERSION" >"$dir/build.log" 2>&1; then
        tail -n 20 "$dir/build.log" >&2
        die "promtool did not build"
      fi
      mv "$dir/scratch/bin/promtool" "$dir/promtool"
      chmod -R u+w "$dir/scratch" && rm -rf "$dir/scratch"
      printf '[prometheus-tools] promtool built in %s s\n' "$((SECONDS - start))" >&2
    ) 9>"$dir.lock"
  fi
  printf '%s\n' "$dir/promtool"
}

# A python3 with PyYAML: the system's when it has it (Debian's python3-yaml), else a venv of its own from PyPI.
python_with_yaml() {
  if python3 -c 'import yaml' 2>/dev/null; then
    printf '%s\n' python3
    return
  fi
  local venv="$LX_CACHE_DIR/venv-pyyaml"
  if ! "$venv/bin/python" -c 'import yaml' 2>/dev/null; then
    python3 -m venv "$venv" >&2 || die "python3 -m venv failed (on Debian: apt-get install python3-venv)"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check pyyaml >&2 || die "pip install pyyaml failed"
  fi
  printf '%s\n' "$venv/bin/python"
}

crds() {
  local dir="$LX_CACHE_DIR/prometheus-operator-crds-$PROMETHEUS_OPERATOR_VERSION"
  if [[ ! -f "$dir/.complete" ]]; then
    mkdir -p "$LX_CACHE_DIR"
    (
      flock -w 600 9 || die "timed out waiting for another fetch of the operator's CRDs"
      [[ -f "$dir/.complete" ]] && exit 0
      local module="github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION" source python
      rm -rf "$dir" && mkdir -p "$dir/schemas"
      source=$(with_scratch_go "$dir/scratch" go mod download -json "$module" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])') || die "go mod download $module failed"
      for kind in podmonitors prometheusrules; do
        cp "$source/example/prometheus-operator-crd/monitoring.coreos.com_$kind.yaml" "$dir/"
      done
      chmod -R u+w "$dir/scratch" && rm -rf "$dir/scratch"
      python=$(python_with_yaml)
      "$python" "$HERE/crd-schemas.py" "$dir/schemas" "$dir"/monitoring.coreos.com_*.yaml
      touch "$dir/.complete"
    ) 9>"$dir.lock"
  fi
  printf '%s\n' "$dir"
}

case "${1:-}" in
  promtool) promtool ;;
  crds) crds ;;
  *) die "usage: tools.sh promtool|crds" ;;
esac
