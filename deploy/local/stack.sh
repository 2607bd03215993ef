#!/usr/bin/env bash
# The whole system on this machine: real Postgres, Kafka and MinIO (infra.sh), the six services as
# separate processes built from this checkout, and nginx as the ingress in front of them.
#
#   deploy/local/stack.sh up      start everything, wait until every /health/ready is 200
#   deploy/local/stack.sh down    stop the services and the ingress, then the infrastructure
#   deploy/local/stack.sh stop-services   stop the services and the ingress, keep the infrastructure
#   deploy/local/stack.sh status  one line per service
#   deploy/local/stack.sh run     up, then stay in the foreground until Ctrl-C, then down
#
#   <SERVICE>_PORT   e.g. AUTH_PORT=3001 … WEBHOOK_DISPATCHER_PORT=3006 (also read by nginx.sh)
#   LX_SKIP_BUILD=1  start from the existing dist/ without rebuilding
#   AUTH_ISSUER      issuer of the tokens (every service); default the ingress's BASE_URL (LX_BASE_URL of lib.sh)
set -euo pipefail

LX_COMPONENT=stack
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PID_DIR="$LX_STATE_DIR/pids"

port_of() {
  local var
  var="$(lx_env_name "$1")_PORT"
  printf '%s' "${!var:-${LX_DEFAULT_PORT[$1]}}"
}

service_pid() { lx_pid_from_file "$PID_DIR/$1.pid" 2>/dev/null; }

ready() { curl -sf -o /dev/null --max-time 3 "http://127.0.0.1:$(port_of "$1")/health/ready"; }

start_service() {
  local name=$1 port pid
  port=$(port_of "$name")
  if pid=$(service_pid "$name") && lx_pid_matches "$pid" "services/$name/"; then
    lx_info "$name already running (pid $pid, port $port)"
    return 0
  fi
  lx_port_open 127.0.0.1 "$port" && lx_die "port $port for $name is taken by another process"
  (
    set -a
    # shellcheck disable=SC1090
    source "$LX_ENV_FILE"
    set +a
    # The service logs in as its own role, named after its schema, with its own password and over TLS when the
    # cluster has it (deploy/local/postgres.sh); the superuser's URL goes to its migrate step only, which makes that
    # role the owner of the schema first. No service sees another's password.
    local password_var admin_url=$DATABASE_URL other
    password_var="$(lx_env_name "$name")_DATABASE_PASSWORD"
    DATABASE_URL=$(login_url "$admin_url" "$(lx_env_name "$name" | tr '[:upper:]' '[:lower:]')" "${!password_var:?}")
    for other in "${LX_SERVICES[@]}"; do unset "$(lx_env_name "$other")_DATABASE_PASSWORD"; done
    if [[ -n "${LX_PG_CA_FILE:-}" ]]; then export DATABASE_SSL_MODE=verify-full DATABASE_SSL_CA_FILE=$LX_PG_CA_FILE; fi
    unset LX_PG_CA_FILE
    if [[ "$name" == auth ]]; then
      export ADMIN_BOOTSTRAP_CLIENT_ID=${ADMIN_CLIENT_ID:?} ADMIN_BOOTSTRAP_CLIENT_SECRET=${ADMIN_CLIENT_SECRET:?}
      # The export worker's client, created by auth at its first start (as the chart does it).
      export SERVICE_BOOTSTRAP_CLIENT_ID=${EXPORT_WORKER_CLIENT_ID:?} SERVICE_BOOTSTRAP_CLIENT_SECRET=${EXPORT_WORKER_CLIENT_SECRET:?}
    else
      unset AUTH_ENCRYPTION_KEY ADMIN_CLIENT_ID ADMIN_CLIENT_SECRET
    fi
    if [[ "$name" == export-worker ]]; then
      # Its own client for the internal endpoints it reads from (created by auth at start), and where they are.
      export SERVICE_CLIENT_ID=${EXPORT_WORKER_CLIENT_ID:?} SERVICE_CLIENT_SECRET=${EXPORT_WORKER_CLIENT_SECRET:?}
      export AUTH_TOKEN_URL="http://127.0.0.1:$(port_of auth)/oauth/token"
      export LOCATION_QUERY_URL="http://127.0.0.1:$(port_of location-query)"
      export LOCATION_COMMAND_URL="http://127.0.0.1:$(port_of location-command)"
      export STATISTICS_URL="http://127.0.0.1:$(port_of statistics-projection)"
    fi
    unset EXPORT_WORKER_CLIENT_ID EXPORT_WORKER_CLIENT_SECRET
    # Kafka: each service logs in as its own principal, lx-<service> (made by kafka.sh, its ACLs granted by
    # grant_kafka_acls), and knows no other password; with a Kafka of its own (no such passwords) the env's login stays.
    local own_password
    own_password="KAFKA_SASL_PASSWORD_$(lx_env_name "$name")"
    if [[ -n "${!own_password:-}" ]]; then export KAFKA_SASL_USERNAME="lx-$name" KAFKA_SASL_PASSWORD="${!own_password}"; fi
    unset "${!KAFKA_SASL_PASSWORD_@}"
    # MinIO: export-worker's own user (minio.sh) to export-worker only; the root user administers, no service holds it.
    unset MINIO_ROOT_USER MINIO_ROOT_PASSWORD
    if [[ "$name" != export-worker ]]; then unset MINIO_ACCESS_KEY MINIO_SECRET_KEY; fi
    # The webhook secrets' transport key: auth seals with it, the webhook dispatcher opens with it; nobody else.
    if [[ "$name" != auth && "$name" != webhook-dispatcher ]]; then unset WEBHOOK_SECRET_TRANSPORT_KEY; fi
    # RSP receivers of a local stack listen on this machine: the SSRF guard lets webhooks reach loopback here only.
    if [[ "$name" == webhook-dispatcher ]]; then export WEBHOOK_ALLOWED_ADDRESS_KINDS="${WEBHOOK_ALLOWED_ADDRESS_KINDS:-loopback}"; fi
    # The streaming services' memory settings, as the Helm chart runs them (docs/operations.md, Memory).
    if [[ "$name" == export-worker || "$name" == location-query ]]; then
      export NODE_OPTIONS="${NODE_OPTIONS:---max-old-space-size=192 --max-semi-space-size=1}"
    fi
    export HTTP_PORT=$port HTTP_HOST=127.0.0.1
    # Tokens are verified against this stack's auth service, wherever its port was moved.
    export AUTH_JWKS_URL="${AUTH_JWKS_URL:-http://127.0.0.1:$(port_of auth)/.well-known/jwks.json}"
    # The issuer is the API's public base URL, the ingress: auth signs and publishes it, every service checks it.
    export AUTH_ISSUER="${AUTH_ISSUER:-$LX_BASE_URL}"
    cd "$LX_REPO_ROOT"
    DATABASE_ADMIN_URL=$admin_url node "dist/services/$name/services/$name/src/migrate.js"
    exec node "dist/services/$name/services/$name/src/main.js"
  ) >>"$LX_LOG_DIR/$name.log" 2>&1 &
  echo $! >"$PID_DIR/$name.pid"
  lx_info "$name starting (pid $!, port $port, log $LX_LOG_DIR/$name.log)"
}

wait_ready() {
  local name=$1 deadline=$((SECONDS + 120)) pid
  until ready "$name"; do
    if ! pid=$(service_pid "$name"); then lx_fail "$LX_LOG_DIR/$name.log" "$name exited during start-up"; fi
    ((SECONDS < deadline)) || lx_fail "$LX_LOG_DIR/$name.log" "$name not ready after 120 s"
    sleep 0.5
  done
  lx_ok "$name ready on port $(port_of "$name")"
}

# The local stack's auth secrets, generated once and kept in $LX_ENV_FILE: the key that encrypts signing keys and
# webhook secrets at rest, the key that seals webhook secrets into client events (a different one: the webhook
# dispatcher holds it too), the first admin client and the export worker's own API client (kind SERVICE, scopes
# locations:read and locations:internal), both of which auth creates at its first start (in production all of them come from a Kubernetes
# Secret).
# The Kafka ACLs of each service's principal (deploy/local/kafka-acls.ts), granted with the admin's login of the env
# file; only for the Kafka of kafka.sh, which made the principals (KAFKA_SASL_PASSWORD_<SERVICE> in the env file).
grant_kafka_acls() {
  [[ -n "$(lx_env_get KAFKA_SASL_PASSWORD_AUTH)" ]] || return 0
  (
    set -a
    # shellcheck disable=SC1090
    source "$LX_ENV_FILE"
    set +a
    cd "$LX_REPO_ROOT"
    node -r ./libs/testing/register-swc.js deploy/local/kafka-acls.ts
  ) || lx_die "could not grant the services' Kafka ACLs"
}

ensure_auth_secrets() {
  local name value values=()
  local -A generators=(
    [ADMIN_CLIENT_ID]=uuid [ADMIN_CLIENT_SECRET]=secret [AUTH_ENCRYPTION_KEY]=key
    [WEBHOOK_SECRET_TRANSPORT_KEY]=key [EXPORT_WORKER_CLIENT_ID]=uuid [EXPORT_WORKER_CLIENT_SECRET]=secret
  )
  for name in "${!generators[@]}"; do
    value=$(lx_env_get "$name")
    if [[ -z "$value" ]]; then
      case ${generators[$name]} in
        uuid) value=$(node -e 'process.stdout.write(require("crypto").randomUUID())') ;;
        secret) value=$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64url"))') ;;
        key) value=$(node -e 'process.stdout.write(require("crypto").randomBytes(32).toString("base64"))') ;;
      esac
    fi
    values+=("$name" "$value")
  done
  lx_env_set "${values[@]}"
}

# The database passwords of the services' own roles, generated once and kept in $LX_ENV_FILE (in production: the
# users and passwords of the per-service URLs in the Kubernetes Secret).
ensure_database_passwords() {
  local name var values=()
  for name in "${LX_SERVICES[@]}"; do
    var="$(lx_env_name "$name")_DATABASE_PASSWORD"
    [[ -n "$(lx_env_get "$var")" ]] ||
      values+=("$var" "$(node -e 'process.stdout.write(require("crypto").randomBytes(24).toString("base64url"))')")
  done
  if ((${#values[@]} > 0)); then lx_env_set "${values[@]}"; fi
}

# login_url URL ROLE PASSWORD: URL with another user and password (percent-encoded where needed).
login_url() {
  node -e 'const u = new URL(process.argv[1]); u.username = encodeURIComponent(process.argv[2]);
    u.password = encodeURIComponent(process.argv[3]); process.stdout.write(u.href)' "$@"
}

stop_services() {
  local name pid
  for name in "${LX_SERVICES[@]}"; do
    if pid=$(service_pid "$name"); then
      lx_stop_pid "$pid" "$name" 20
      lx_info "$name stopped"
    fi
    rm -f "$PID_DIR/$name.pid"
  done
}

cmd_up() {
  local start=$SECONDS name args=()
  lx_ensure_dirs
  mkdir -p "$PID_DIR"
  bash "$LX_LOCAL_DIR/infra.sh" up
  if [[ "${LX_SKIP_BUILD:-0}" != 1 ]]; then
    lx_info "building the services"
    (cd "$LX_REPO_ROOT" && npx nx run-many -t build --parallel=2 --outputStyle=static >&2)
  fi
  ensure_auth_secrets
  ensure_database_passwords
  grant_kafka_acls
  start_service auth
  wait_ready auth
  for name in "${LX_SERVICES[@]:1}"; do start_service "$name"; done
  for name in "${LX_SERVICES[@]:1}"; do wait_ready "$name"; done
  for name in "${LX_SERVICES[@]}"; do
    export "$(lx_env_name "$name")_PORT=$(port_of "$name")"
    args+=("$(lx_env_name "$name")_URL" "http://127.0.0.1:$(port_of "$name")")
  done
  bash "$LX_LOCAL_DIR/nginx.sh" start
  lx_env_set "${args[@]}"
  lx_ok "stack up in $(lx_elapsed "$start"): BASE_URL=$(lx_env_get BASE_URL) (endpoints in $LX_ENV_FILE)"
}

cmd_stop_services() {
  stop_services
  bash "$LX_LOCAL_DIR/nginx.sh" stop || true
}

cmd_down() {
  cmd_stop_services
  bash "$LX_LOCAL_DIR/infra.sh" down
}

cmd_status() {
  local name pid rc=0
  for name in "${LX_SERVICES[@]}"; do
    if pid=$(service_pid "$name") && ready "$name"; then
      printf '%-22s ready     http://127.0.0.1:%s (pid %s)\n' "$name" "$(port_of "$name")" "$pid"
    elif pid=$(service_pid "$name"); then
      printf '%-22s not ready http://127.0.0.1:%s (pid %s)\n' "$name" "$(port_of "$name")" "$pid"
      rc=1
    else
      printf '%-22s stopped\n' "$name"
      rc=1
    fi
  done
  return $rc
}

cmd_run() {
  trap 'lx_info "stopping"; cmd_down; exit 0' INT TERM
  cmd_up
  lx_info "running; press Ctrl-C to stop everything"
  while true; do sleep 3600 & wait $!; done
}

lx_dispatch "up down stop-services status run" "$@"
