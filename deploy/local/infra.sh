#!/usr/bin/env bash
# Real infrastructure on loopback without Docker: PostgreSQL, Kafka and MinIO.
# (The ingress and the services are stack.sh's job; see nginx.sh for the ingress.)
#
#   deploy/local/infra.sh up|down|status
#
# up      installs what is missing (cached), then starts the three components in parallel and
#         records their endpoints in $LX_STATE_DIR/env (default <repo>/.infra/env). Safe to repeat.
# down    stops the components this script manages.
# status  one line per component (name, up/down, endpoint); exit 0 only when all are up.
#
# A component whose endpoint the caller already names is external: it is neither started nor
# stopped, and the given values are recorded instead:
#   DATABASE_URL         -> postgres (with LX_PG_CA_FILE, the CA of its server certificate, when given)
#   KAFKA_BROKERS        -> kafka (with KAFKA_REPLICATION_FACTOR and KAFKA_MIN_INSYNC_REPLICAS when given; 1 and 1
#                           otherwise, as for the managed single broker; and its login, KAFKA_TLS, KAFKA_TLS_CA_FILE,
#                           KAFKA_SASL_*, when given: a former managed broker's is removed)
#   MINIO_ENDPOINT_URL   -> minio (with MINIO_PUBLIC_ENDPOINT_URL, MINIO_ACCESS_KEY and MINIO_SECRET_KEY of
#                           export-worker's user, MINIO_BUCKET, and MINIO_ROOT_USER and MINIO_ROOT_PASSWORD for
#                           administration and the storage tests, when given)
# A value equal to the endpoint this script itself manages (for example after sourcing .infra/env)
# does not count as external, so `source .infra/env; infra.sh up` still starts what is down.
#
# Use the endpoints with:  set -a; . .infra/env; set +a
# Logs: $LX_STATE_DIR/logs/{postgres,kafka,minio}.log and *-install.log / minio-build.log.
set -euo pipefail

LX_COMPONENT=infra
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

COMPONENTS=(postgres kafka minio)

endpoint_var() {
  case "$1" in
    postgres) echo DATABASE_URL ;;
    kafka) echo KAFKA_BROKERS ;;
    minio) echo MINIO_ENDPOINT_URL ;;
  esac
}

local_endpoint() {
  case "$1" in
    postgres) echo "postgresql://postgres@$LX_BIND_ADDRESS:${LX_PG_PORT:-55432}/${LX_PG_DATABASE:-location_exchange}" ;;
    kafka) echo "$LX_BIND_ADDRESS:${LX_KAFKA_PORT:-19092}" ;;
    minio) echo "http://$LX_BIND_ADDRESS:${LX_MINIO_PORT:-19000}" ;;
  esac
}

component_log() {
  case "$1" in
    postgres) echo "$LX_LOG_DIR/postgres.log" ;;
    kafka) echo "$LX_LOG_DIR/kafka.log" ;;
    minio) echo "$LX_LOG_DIR/minio.log" ;;
  esac
}

# The caller's environment as it was when this script started (before anything is sourced).
is_external() {
  local var value
  var=$(endpoint_var "$1")
  value=${!var:-}
  [[ -n "$value" && "$value" != "$(local_endpoint "$1")" ]]
}

record_external() {
  case "$1" in
    postgres) lx_env_set DATABASE_URL "$DATABASE_URL" LX_PG_CA_FILE "${LX_PG_CA_FILE:-}" ;;
    kafka)
      # The login of a broker kafka.sh managed before is not this one's: only what the caller gives is recorded.
      local login=(KAFKA_TLS KAFKA_TLS_CA_FILE KAFKA_SASL_MECHANISM KAFKA_SASL_USERNAME KAFKA_SASL_PASSWORD) name values=()
      lx_env_unset "${login[@]}" $(printf 'KAFKA_SASL_PASSWORD_%s ' "${LX_SERVICES[@]//-/_}" | tr '[:lower:]' '[:upper:]')
      for name in "${login[@]}"; do
        if [[ -n "${!name:-}" ]]; then values+=("$name" "${!name}"); fi
      done
      lx_env_set KAFKA_BROKERS "$KAFKA_BROKERS" \
        KAFKA_REPLICATION_FACTOR "${KAFKA_REPLICATION_FACTOR:-1}" \
        KAFKA_MIN_INSYNC_REPLICAS "${KAFKA_MIN_INSYNC_REPLICAS:-1}" "${values[@]}"
      ;;
    minio)
      lx_env_set MINIO_ENDPOINT_URL "$MINIO_ENDPOINT_URL" \
        MINIO_PUBLIC_ENDPOINT_URL "${MINIO_PUBLIC_ENDPOINT_URL:-$MINIO_ENDPOINT_URL}" \
        MINIO_ACCESS_KEY "${MINIO_ACCESS_KEY:-${LX_MINIO_ACCESS_KEY:-lxminio}}" \
        MINIO_SECRET_KEY "${MINIO_SECRET_KEY:-${LX_MINIO_SECRET_KEY:-lxminio-secret}}" \
        MINIO_BUCKET "${MINIO_BUCKET:-${LX_MINIO_BUCKET:-location-exports}}"
      if [[ -n "${MINIO_ROOT_USER:-}" ]]; then
        lx_env_set MINIO_ROOT_USER "$MINIO_ROOT_USER" MINIO_ROOT_PASSWORD "${MINIO_ROOT_PASSWORD:-}"
      fi
      ;;
  esac
  local var
  var=$(endpoint_var "$1")
  lx_info "$1: external endpoint $var=${!var} recorded; not started"
}

# Managed components get none of the endpoint variables, so a component script never mistakes
# the caller's values for its own. fd 8 (the infra lock) is closed so that long-running servers
# do not inherit it and hold the lock forever.
run_component() {
  local comp=$1
  shift
  env -u DATABASE_URL -u KAFKA_BROKERS -u MINIO_ENDPOINT_URL bash "$LX_LOCAL_DIR/$comp.sh" "$@" 8>&-
}

# run_parallel ACTION COMP...: runs `<comp>.sh ACTION` for each COMP at once; stdout is dropped
# (the scripts record their endpoints themselves). Leaves "<rc> <seconds>" per component in
# $RESULTS_DIR/<comp>.<action>. Returns 1 when any failed.
run_parallel() {
  local action=$1 comp pids=() failed=0
  shift
  for comp in "$@"; do
    (
      set +e
      t0=$SECONDS
      run_component "$comp" "$action" >/dev/null
      rc=$?
      echo "$rc $((SECONDS - t0))" >"$RESULTS_DIR/$comp.$action"
      exit "$rc"
    ) &
    pids+=($!)
  done
  local pid
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  return "$failed"
}

result_of() { cat "$RESULTS_DIR/$1.$2" 2>/dev/null || echo "1 0"; }

print_endpoints() {
  local key value
  for key in DATABASE_URL KAFKA_BROKERS MINIO_ENDPOINT_URL MINIO_PUBLIC_ENDPOINT_URL MINIO_BUCKET; do
    value=$(lx_env_get "$key")
    printf '  %-26s %s\n' "$key" "${value:-(not set)}"
  done
  printf 'env file: %s   (use: set -a; . %s; set +a)\n' "$LX_ENV_FILE" "$LX_ENV_FILE"
}

with_lock() {
  lx_ensure_dirs
  exec 8>"$LX_STATE_DIR/.infra.lock"
  flock -w 600 8 || lx_die "another infra.sh up/down is still running (lock $LX_STATE_DIR/.infra.lock)"
}

cmd_up() {
  with_lock
  local t0=$SECONDS comp managed=() failed=()
  for comp in "${COMPONENTS[@]}"; do
    if is_external "$comp"; then record_external "$comp"; else managed+=("$comp"); fi
  done
  if ((${#managed[@]} > 0)); then
    lx_info "installing (skipped where cached): ${managed[*]}"
    if ! run_parallel install "${managed[@]}"; then
      for comp in "${managed[@]}"; do
        read -r rc _ < <(result_of "$comp" install)
        [[ "$rc" == 0 ]] || failed+=("$comp")
      done
      lx_die "install failed for: ${failed[*]} (the messages above show the end of each install log; logs in $LX_LOG_DIR)"
    fi
    lx_info "starting: ${managed[*]}"
    LX_INSTALL_DONE=1 run_parallel start "${managed[@]}" || true
    local rc secs
    for comp in "${managed[@]}"; do
      read -r rc secs < <(result_of "$comp" start)
      if [[ "$rc" == 0 ]]; then
        lx_info "$comp ready (start step ${secs}s; install step $(result_of "$comp" install | cut -d' ' -f2)s)"
      else
        failed+=("$comp")
      fi
    done
  fi
  if ((${#failed[@]} > 0)); then
    # Each component script has already printed its error and the end of the relevant log.
    for comp in "${failed[@]}"; do lx_error "$comp did not start; log: $(component_log "$comp")"; done
    exit 1
  fi
  lx_ok "infrastructure up in $(lx_elapsed "$t0")"
  print_endpoints
}

cmd_down() {
  with_lock
  local comp managed=()
  for comp in "${COMPONENTS[@]}"; do
    if is_external "$comp"; then
      lx_info "$comp: external endpoint; not stopped"
    else
      managed+=("$comp")
    fi
  done
  ((${#managed[@]} > 0)) || return 0
  if ! run_parallel stop "${managed[@]}"; then
    lx_die "could not stop everything (see the messages above)"
  fi
  lx_ok "infrastructure down"
}

external_up() {
  local comp=$1 value=$2 hostport host port
  case "$comp" in
    postgres)
      # Host and port only: the URL may carry query parameters that pg_isready does not know.
      hostport=${value#*://}
      hostport=${hostport##*@}
      hostport=${hostport%%[/?]*}
      [[ "$hostport" == *:* ]] || hostport="$hostport:5432"
      if [[ -x /usr/lib/postgresql/15/bin/pg_isready ]]; then
        /usr/lib/postgresql/15/bin/pg_isready -q -t 5 -h "${hostport%:*}" -p "${hostport##*:}"
        return
      fi
      ;;
    kafka) hostport=${value%%,*} ;;
    minio)
      curl -sf -o /dev/null --max-time 5 "$value/minio/health/live"
      return
      ;;
  esac
  host=${hostport%:*}
  port=${hostport##*:}
  [[ "$port" =~ ^[0-9]+$ ]] || port=5432
  lx_port_open "$host" "$port"
}

cmd_status() {
  local comp all=0 state endpoint var out
  for comp in "${COMPONENTS[@]}"; do
    var=$(endpoint_var "$comp")
    if is_external "$comp"; then
      endpoint="${!var} (external)"
      if external_up "$comp" "${!var}"; then state=up; else state=down; fi
    else
      endpoint=$(local_endpoint "$comp")
      if out=$(run_component "$comp" status 2>/dev/null); then
        state=up
        endpoint=$(sed -n "s/^$var=//p" <<<"$out" | head -n1)
        endpoint=${endpoint:-$(local_endpoint "$comp")}
      else
        state=down
      fi
    fi
    [[ "$state" == up ]] || all=1
    printf '%-9s %-5s %s\n' "$comp" "$state" "$endpoint"
  done
  printf 'env file: %s\n' "$LX_ENV_FILE"
  return "$all"
}

RESULTS_DIR=$(mktemp -d)
trap 'rm -rf "$RESULTS_DIR"' EXIT

lx_dispatch "up down status" "$@"
