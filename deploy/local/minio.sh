#!/usr/bin/env bash
# MinIO (S3-compatible object store) on loopback, built from source with `go install` and cached, with its client
# `mc` built the same way for the administration at start.
#
#   deploy/local/minio.sh install|start|stop|status
#
#   LX_MINIO_PORT                 S3 API on LX_BIND_ADDRESS            default 19000
#   LX_MINIO_CONSOLE_PORT         web console on LX_BIND_ADDRESS       default 19001
#   LX_MINIO_ACCESS_KEY           root user, for administration only  default lxminio
#   LX_MINIO_SECRET_KEY           root password (8+ characters)       default lxminio-secret
#   LX_MINIO_EXPORT_WORKER_ACCESS_KEY  export-worker's user           default lx-export-worker
#   LX_MINIO_EXPORT_WORKER_SECRET_KEY  its password (8+ characters)   default lx-export-worker-secret
#   LX_MINIO_BUCKET               the exports bucket, recorded as MINIO_BUCKET
#                                                                     default location-exports
#   LX_MINIO_PUBLIC_ENDPOINT_URL  recorded as MINIO_PUBLIC_ENDPOINT_URL (host in presigned URLs)
#                                                                     default = MINIO_ENDPOINT_URL
#
# start creates (idempotently, at every start, also of a server already running) the bucket, and export-worker's user
# with the policy deploy/local/minio/export-worker-policy.json.template: objects of that bucket only, no bucket
# creation (docs/security.md). It records that user as MINIO_ACCESS_KEY / MINIO_SECRET_KEY, what export-worker gets,
# and the root user as MINIO_ROOT_USER / MINIO_ROOT_PASSWORD for administration and tests.
#
# Binaries: $LX_CACHE_DIR/minio-<version>/minio, $LX_CACHE_DIR/mc-<version>/mc   State: $LX_STATE_DIR/minio
# Logs: $LX_STATE_DIR/logs/minio.log, minio-build.log, mc-build.log, minio-setup.log
# MinIO and mc are AGPLv3: they are used here for local work and tests only and are never shipped.
# start prints the MINIO_* lines on stdout; messages go to stderr.
set -euo pipefail

LX_COMPONENT=minio
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Pinned pseudo-version (master of 2026-02-12). The older 2025-10-15 one is not on the Go proxy.
MINIO_MODULE=github.com/minio/minio
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
MINIO_BIN_DIR="$LX_CACHE_DIR/minio-$MINIO_VERSION"
MINIO_BIN="$MINIO_BIN_DIR/minio"
# The version of mc that this MinIO's own go.mod requires: its module is in the module cache once MinIO is built, and
# its admin API calls match the server's. Its build, once per cache dir (2 cores): 20 s after MinIO's, 56 s with an empty
# Go build cache.
MC_MODULE=github.com/minio/mc
MC_VERSION=v0.0.0-20250313080218-cf909e1063a9
MC_BIN_DIR="$LX_CACHE_DIR/mc-$MC_VERSION"
MC_BIN="$MC_BIN_DIR/mc"
MINIO_PORT="${LX_MINIO_PORT:-19000}"
MINIO_CONSOLE_PORT="${LX_MINIO_CONSOLE_PORT:-19001}"
MINIO_ACCESS="${LX_MINIO_ACCESS_KEY:-lxminio}"
MINIO_SECRET="${LX_MINIO_SECRET_KEY:-lxminio-secret}"
WORKER_ACCESS="${LX_MINIO_EXPORT_WORKER_ACCESS_KEY:-lx-export-worker}"
WORKER_SECRET="${LX_MINIO_EXPORT_WORKER_SECRET_KEY:-lx-export-worker-secret}"
WORKER_POLICY=lx-export-worker
MINIO_BUCKET_NAME="${LX_MINIO_BUCKET:-location-exports}"
MINIO_URL="http://$LX_BIND_ADDRESS:$MINIO_PORT"
MINIO_PUBLIC_URL="${LX_MINIO_PUBLIC_ENDPOINT_URL:-$MINIO_URL}"
MINIO_STATE="$LX_STATE_DIR/minio"
MINIO_PID_FILE="$MINIO_STATE/minio.pid"
MINIO_LOG="$LX_LOG_DIR/minio.log"
MINIO_SETUP_LOG="$LX_LOG_DIR/minio-setup.log"
START_TIMEOUT=90
BUILD_WAIT_TIMEOUT=2400

# binary_ok BIN: it is there and runs.
binary_ok() { [[ -x "$1" ]] && "$1" --version >/dev/null 2>&1; }

go_bin() {
  if command -v go >/dev/null 2>&1; then
    command -v go
  elif [[ -x /usr/local/go/bin/go ]]; then
    printf '%s\n' /usr/local/go/bin/go
  else
    lx_die "go not found (needed once to build MinIO $MINIO_VERSION and mc $MC_VERSION into $LX_CACHE_DIR)"
  fi
}

# A `go install` of the same module version started outside this script (for example a cache warm-up)
# is waited for instead of racing it with a second build.
wait_for_foreign_build() {
  local pattern="go install $1"
  pgrep -f -- "$pattern" >/dev/null 2>&1 || return 0
  lx_info "another '$pattern' is running; waiting for it (up to $((BUILD_WAIT_TIMEOUT / 60)) min)"
  local deadline=$((SECONDS + BUILD_WAIT_TIMEOUT))
  while pgrep -f -- "$pattern" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || lx_die "the other build of $1 is still running after $((BUILD_WAIT_TIMEOUT / 60)) min"
    sleep 2
  done
}

# go_install_cached NAME MODULE@VERSION BIN: builds the module version into BIN's folder unless BIN runs already;
# one build at a time per folder (a lock beside it), log $LX_LOG_DIR/NAME-build.log.
go_install_cached() {
  local name=$1 module=$2 bin=$3 dir log
  dir=$(dirname "$bin")
  log="$LX_LOG_DIR/$name-build.log"
  if binary_ok "$bin"; then
    lx_ok "$name ${module#*@} cached ($bin)"
    return 0
  fi
  lx_ensure_dirs
  mkdir -p "$dir"
  (
    flock -w "$BUILD_WAIT_TIMEOUT" 9 || lx_die "timed out waiting for another $name install (lock $dir.lock)"
    wait_for_foreign_build "$module"
    if binary_ok "$bin"; then
      lx_ok "$name ${module#*@} cached ($bin, built meanwhile)"
      exit 0
    fi
    local go t0=$SECONDS
    go=$(go_bin)
    lx_info "building $name ${module#*@} with go install (minutes when cold; log $log)"
    if ! GOBIN="$dir" CGO_ENABLED=0 GOTOOLCHAIN=local "$go" install "$module" >"$log" 2>&1; then
      rm -f "$bin"
      lx_fail "$log" "go install $module failed"
    fi
    binary_ok "$bin" || lx_fail "$log" "built $bin does not run"
    printf 'build time: %ss\n' "$((SECONDS - t0))" >>"$log"
    lx_ok "built $name in $(lx_elapsed "$t0")"
  ) 9>"$dir.lock"
}

cmd_install() {
  go_install_cached minio "$MINIO_MODULE@$MINIO_VERSION" "$MINIO_BIN"
  go_install_cached mc "$MC_MODULE@$MC_VERSION" "$MC_BIN"
}

running_pid() {
  local pid
  pid=$(lx_pid_from_file "$MINIO_PID_FILE") || return 1
  lx_pid_matches "$pid" "minio" || return 1
  printf '%s\n' "$pid"
}

ready() { curl -sf -o /dev/null --max-time 2 "$MINIO_URL/minio/health/ready"; }

report() {
  lx_env_set MINIO_ENDPOINT_URL "$MINIO_URL" MINIO_PUBLIC_ENDPOINT_URL "$MINIO_PUBLIC_URL" \
    MINIO_ACCESS_KEY "$WORKER_ACCESS" MINIO_SECRET_KEY "$WORKER_SECRET" MINIO_BUCKET "$MINIO_BUCKET_NAME" \
    MINIO_ROOT_USER "$MINIO_ACCESS" MINIO_ROOT_PASSWORD "$MINIO_SECRET"
  printf 'MINIO_ENDPOINT_URL=%s\nMINIO_PUBLIC_ENDPOINT_URL=%s\nMINIO_ACCESS_KEY=%s\nMINIO_SECRET_KEY=%s\nMINIO_BUCKET=%s\n' \
    "$MINIO_URL" "$MINIO_PUBLIC_URL" "$WORKER_ACCESS" "$WORKER_SECRET" "$MINIO_BUCKET_NAME"
  printf 'MINIO_ROOT_USER=%s\nMINIO_ROOT_PASSWORD=%s\n' "$MINIO_ACCESS" "$MINIO_SECRET"
}

# url_encode TEXT: TEXT percent-encoded byte by byte, for the user-info part of a URL.
url_encode() {
  local LC_ALL=C text=$1 out='' c i
  for ((i = 0; i < ${#text}; i++)); do
    c=${text:i:1}
    case "$c" in
      [A-Za-z0-9._~-]) out+=$c ;;
      *) out+=$(printf '%%%02X' "'$c") ;;
    esac
  done
  printf '%s' "$out"
}

# mc ARGS...: mc as the root user, on the alias `lx`, given in the environment, so no credentials are written to
# ~/.mc; its output goes to the setup log.
mc_root() {
  MC_CONFIG_DIR="$MINIO_STATE/mc" \
    MC_HOST_lx="http://$(url_encode "$MINIO_ACCESS"):$(url_encode "$MINIO_SECRET")@${MINIO_URL#http://}" \
    "$MC_BIN" --quiet --no-color "$@" >>"$MINIO_SETUP_LOG" 2>&1
}

# The bucket, and export-worker's user with its policy. Each step is idempotent and replaces what an earlier start
# left (a changed password or policy takes effect at the next start), so it runs at every start.
setup_export_worker() {
  local policy="$MINIO_STATE/export-worker-policy.json" t0=$SECONDS
  lx_render "$LX_LOCAL_DIR/minio/export-worker-policy.json.template" "$policy" MINIO_BUCKET_NAME
  : >"$MINIO_SETUP_LOG"
  mc_root mb --ignore-existing "lx/$MINIO_BUCKET_NAME" ||
    lx_fail "$MINIO_SETUP_LOG" "could not create the bucket $MINIO_BUCKET_NAME"
  mc_root admin policy create lx "$WORKER_POLICY" "$policy" ||
    lx_fail "$MINIO_SETUP_LOG" "could not create the policy $WORKER_POLICY"
  mc_root admin user add lx "$WORKER_ACCESS" "$WORKER_SECRET" ||
    lx_fail "$MINIO_SETUP_LOG" "could not create the user $WORKER_ACCESS"
  mc_root admin policy attach lx "$WORKER_POLICY" --user "$WORKER_ACCESS" ||
    lx_fail "$MINIO_SETUP_LOG" "could not attach the policy $WORKER_POLICY to $WORKER_ACCESS"
  lx_ok "bucket $MINIO_BUCKET_NAME and export-worker's user $WORKER_ACCESS set up in $(lx_elapsed "$t0")"
}

wait_ready() {
  local pid=$1 deadline=$((SECONDS + START_TIMEOUT))
  until ready; do
    kill -0 "$pid" 2>/dev/null || lx_fail "$MINIO_LOG" "minio exited during startup"
    ((SECONDS < deadline)) || {
      lx_stop_pid "$pid" minio 10
      lx_fail "$MINIO_LOG" "$MINIO_URL/minio/health/ready not ready within ${START_TIMEOUT}s; stopped it"
    }
    sleep 0.25
  done
}

cmd_start() {
  lx_require_cmd curl
  ((${#MINIO_SECRET} >= 8)) || lx_die "LX_MINIO_SECRET_KEY must have at least 8 characters"
  ((${#MINIO_ACCESS} >= 3)) || lx_die "LX_MINIO_ACCESS_KEY must have at least 3 characters"
  ((${#WORKER_SECRET} >= 8)) || lx_die "LX_MINIO_EXPORT_WORKER_SECRET_KEY must have at least 8 characters"
  ((${#WORKER_ACCESS} >= 3)) || lx_die "LX_MINIO_EXPORT_WORKER_ACCESS_KEY must have at least 3 characters"
  [[ "$WORKER_ACCESS" != "$MINIO_ACCESS" ]] || lx_die "LX_MINIO_EXPORT_WORKER_ACCESS_KEY must differ from the root user"
  # infra.sh runs every install step first and then sets LX_INSTALL_DONE=1 for the start step. A server already
  # running needs mc too: one started before mc was part of the set-up gets its export-worker user now.
  [[ "${LX_INSTALL_DONE:-}" == 1 ]] || cmd_install
  local pid
  if pid=$(running_pid); then
    wait_ready "$pid"
    lx_ok "already running (pid $pid) on $LX_BIND_ADDRESS:$MINIO_PORT"
    setup_export_worker
    report
    return 0
  fi
  local port
  for port in "$MINIO_PORT" "$MINIO_CONSOLE_PORT"; do
    if lx_port_open "$LX_BIND_ADDRESS" "$port"; then
      lx_die "port $port on $LX_BIND_ADDRESS is taken by another process; set LX_MINIO_PORT / LX_MINIO_CONSOLE_PORT"
    fi
  done
  lx_ensure_dirs
  rm -f "$MINIO_PID_FILE"
  mkdir -p "$MINIO_STATE/data" "$MINIO_STATE/certs" "$MINIO_STATE/tmp"
  lx_rotate_log "$MINIO_LOG"
  touch "$MINIO_LOG"
  local t0=$SECONDS
  lx_info "starting on $LX_BIND_ADDRESS:$MINIO_PORT (console $MINIO_CONSOLE_PORT, data $MINIO_STATE/data, log $MINIO_LOG)"
  # Own session, so that Ctrl-C in the calling terminal does not stop the server; the inner shell
  # records its pid and execs minio, so the pid file names the server itself.
  # shellcheck disable=SC2016
  MINIO_ROOT_USER="$MINIO_ACCESS" MINIO_ROOT_PASSWORD="$MINIO_SECRET" MINIO_UPDATE=off TMPDIR="$MINIO_STATE/tmp" \
    setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$MINIO_PID_FILE" \
    "$MINIO_BIN" server --address "$LX_BIND_ADDRESS:$MINIO_PORT" --console-address "$LX_BIND_ADDRESS:$MINIO_CONSOLE_PORT" \
    --certs-dir "$MINIO_STATE/certs" "$MINIO_STATE/data" \
    </dev/null >>"$MINIO_LOG" 2>&1 &
  local deadline=$((SECONDS + 10))
  while [[ ! -s "$MINIO_PID_FILE" ]] && ((SECONDS < deadline)); do sleep 0.1; done
  [[ -s "$MINIO_PID_FILE" ]] || lx_fail "$MINIO_LOG" "the minio process did not start"
  pid=$(tr -dc '0-9' <"$MINIO_PID_FILE")
  wait_ready "$pid"
  lx_ok "started (pid $pid) on $LX_BIND_ADDRESS:$MINIO_PORT in $(lx_elapsed "$t0")"
  setup_export_worker
  report
}

cmd_stop() {
  local pid
  if ! pid=$(running_pid); then
    rm -f "$MINIO_PID_FILE"
    lx_ok "not running"
    return 0
  fi
  lx_info "stopping (pid $pid)"
  lx_stop_pid "$pid" minio 30
  rm -f "$MINIO_PID_FILE"
  lx_ok "stopped"
}

cmd_status() {
  local pid
  if pid=$(running_pid) && ready; then
    lx_ok "up (pid $pid) on $LX_BIND_ADDRESS:$MINIO_PORT"
    printf 'MINIO_ENDPOINT_URL=%s\n' "$MINIO_URL"
    return 0
  fi
  if [[ -n "${pid:-}" ]]; then
    lx_info "process $pid running but $MINIO_URL/minio/health/ready does not answer"
  else
    lx_info "down"
  fi
  return 1
}

lx_dispatch "install start stop status" "$@"
