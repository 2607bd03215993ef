#!/usr/bin/env bash
# MinIO (S3-compatible object store) on loopback, built from source with `go install` and cached.
#
#   deploy/local/minio.sh install|start|stop|status
#
#   LX_MINIO_PORT                 S3 API on LX_BIND_ADDRESS            default 19000
#   LX_MINIO_CONSOLE_PORT         web console on LX_BIND_ADDRESS       default 19001
#   LX_MINIO_ACCESS_KEY           root user                           default lxminio
#   LX_MINIO_SECRET_KEY           root password (8+ characters)       default lxminio-secret
#   LX_MINIO_BUCKET               recorded as MINIO_BUCKET; the application creates it
#                                                                     default location-exports
#   LX_MINIO_PUBLIC_ENDPOINT_URL  recorded as MINIO_PUBLIC_ENDPOINT_URL (host in presigned URLs)
#                                                                     default = MINIO_ENDPOINT_URL
#
# Binary: $LX_CACHE_DIR/minio-<version>/minio   State: $LX_STATE_DIR/minio   Log: $LX_STATE_DIR/logs/minio.log
# MinIO is AGPLv3: it is used here for local work and tests only and is never shipped.
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
MINIO_PORT="${LX_MINIO_PORT:-19000}"
MINIO_CONSOLE_PORT="${LX_MINIO_CONSOLE_PORT:-19001}"
MINIO_ACCESS="${LX_MINIO_ACCESS_KEY:-lxminio}"
MINIO_SECRET="${LX_MINIO_SECRET_KEY:-lxminio-secret}"
MINIO_BUCKET_NAME="${LX_MINIO_BUCKET:-location-exports}"
MINIO_URL="http://$LX_BIND_ADDRESS:$MINIO_PORT"
MINIO_PUBLIC_URL="${LX_MINIO_PUBLIC_ENDPOINT_URL:-$MINIO_URL}"
MINIO_STATE="$LX_STATE_DIR/minio"
MINIO_PID_FILE="$MINIO_STATE/minio.pid"
MINIO_LOG="$LX_LOG_DIR/minio.log"
MINIO_BUILD_LOG="$LX_LOG_DIR/minio-build.log"
START_TIMEOUT=90
BUILD_WAIT_TIMEOUT=2400

binary_ok() { [[ -x "$MINIO_BIN" ]] && "$MINIO_BIN" --version >/dev/null 2>&1; }

go_bin() {
  if command -v go >/dev/null 2>&1; then
    command -v go
  elif [[ -x /usr/local/go/bin/go ]]; then
    printf '%s\n' /usr/local/go/bin/go
  else
    lx_die "go not found (needed once to build MinIO $MINIO_VERSION into $MINIO_BIN_DIR)"
  fi
}

# A `go install` of the same version started outside this script (for example a cache warm-up)
# is waited for instead of racing it with a second build.
wait_for_foreign_build() {
  local pattern="go install $MINIO_MODULE@$MINIO_VERSION"
  pgrep -f -- "$pattern" >/dev/null 2>&1 || return 0
  lx_info "another '$pattern' is running; waiting for it (up to $((BUILD_WAIT_TIMEOUT / 60)) min)"
  local deadline=$((SECONDS + BUILD_WAIT_TIMEOUT))
  while pgrep -f -- "$pattern" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || lx_die "the other MinIO build is still running after $((BUILD_WAIT_TIMEOUT / 60)) min"
    sleep 2
  done
}

cmd_install() {
  if binary_ok; then
    lx_ok "MinIO $MINIO_VERSION cached ($MINIO_BIN)"
    return 0
  fi
  lx_ensure_dirs
  mkdir -p "$MINIO_BIN_DIR"
  (
    flock -w "$BUILD_WAIT_TIMEOUT" 9 || lx_die "timed out waiting for another MinIO install (lock $MINIO_BIN_DIR.lock)"
    wait_for_foreign_build
    if binary_ok; then
      lx_ok "MinIO $MINIO_VERSION cached ($MINIO_BIN, built meanwhile)"
      exit 0
    fi
    local go t0=$SECONDS
    go=$(go_bin)
    lx_info "building MinIO $MINIO_VERSION with go install (several minutes when cold; log $MINIO_BUILD_LOG)"
    if ! GOBIN="$MINIO_BIN_DIR" CGO_ENABLED=0 GOTOOLCHAIN=local \
      "$go" install "$MINIO_MODULE@$MINIO_VERSION" >"$MINIO_BUILD_LOG" 2>&1; then
      rm -f "$MINIO_BIN"
      lx_fail "$MINIO_BUILD_LOG" "go install $MINIO_MODULE@$MINIO_VERSION failed"
    fi
    binary_ok || lx_fail "$MINIO_BUILD_LOG" "built $MINIO_BIN does not run"
    printf 'build time: %ss\n' "$((SECONDS - t0))" >>"$MINIO_BUILD_LOG"
    lx_ok "built MinIO in $(lx_elapsed "$t0")"
  ) 9>"$MINIO_BIN_DIR.lock"
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
    MINIO_ACCESS_KEY "$MINIO_ACCESS" MINIO_SECRET_KEY "$MINIO_SECRET" MINIO_BUCKET "$MINIO_BUCKET_NAME"
  printf 'MINIO_ENDPOINT_URL=%s\nMINIO_PUBLIC_ENDPOINT_URL=%s\nMINIO_ACCESS_KEY=%s\nMINIO_SECRET_KEY=%s\nMINIO_BUCKET=%s\n' \
    "$MINIO_URL" "$MINIO_PUBLIC_URL" "$MINIO_ACCESS" "$MINIO_SECRET" "$MINIO_BUCKET_NAME"
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
  local pid
  if pid=$(running_pid); then
    wait_ready "$pid"
    lx_ok "already running (pid $pid) on $LX_BIND_ADDRESS:$MINIO_PORT"
    report
    return 0
  fi
  # infra.sh runs every install step first and then sets LX_INSTALL_DONE=1 for the start step.
  [[ "${LX_INSTALL_DONE:-}" == 1 ]] || cmd_install
  ((${#MINIO_SECRET} >= 8)) || lx_die "LX_MINIO_SECRET_KEY must have at least 8 characters"
  ((${#MINIO_ACCESS} >= 3)) || lx_die "LX_MINIO_ACCESS_KEY must have at least 3 characters"
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

usage() {
  echo "usage: $0 install|start|stop|status" >&2
  exit 2
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) usage ;;
esac
