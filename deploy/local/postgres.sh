#!/usr/bin/env bash
# PostgreSQL 15 (Debian package) as a throwaway cluster on loopback, for development and tests only.
#
#   deploy/local/postgres.sh install|start|stop|status
#
#   LX_PG_DIR       cluster directory (data/ inside it)       default $LX_STATE_DIR/postgres
#   LX_PG_PORT      TCP port on LX_BIND_ADDRESS                default 55432
#   LX_PG_DATABASE  database created on start                 default location_exchange
#   LX_PG_LOG       server log        default $LX_STATE_DIR/logs/postgres.log, or $LX_PG_DIR/postgres.log
#                                     for a cluster in a non-default LX_PG_DIR
#   LX_PG_WRITE_ENV 1/0: record DATABASE_URL in $LX_STATE_DIR/env; default 1 only for the default
#                   LX_PG_DIR, so a private cluster started by a test never overwrites the shared URL
#
# LX_BIND_ADDRESS (127.0.0.1) only, fsync off: never use this cluster for anything but local work. The superuser
# postgres logs in without a password (trust: the tests, which create schemas freely, and the provisioning of the
# services' roles); every other role needs its password (scram-sha-256) and TLS (hostssl), with a server certificate
# for LX_BIND_ADDRESS signed by the cluster's own CA ($LX_PG_DIR/tls/ca.crt, recorded as LX_PG_CA_FILE).
# start prints DATABASE_URL=... and LX_PG_CA_FILE=... on stdout; messages go to stderr.
set -euo pipefail

LX_COMPONENT=postgres
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PG_MAJOR=15
PGBIN="/usr/lib/postgresql/$PG_MAJOR/bin"
PG_DEFAULT_DIR="$LX_STATE_DIR/postgres"
PG_DIR="$(lx_abspath "${LX_PG_DIR:-$PG_DEFAULT_DIR}")"
PG_DATA="$PG_DIR/data"
PG_TLS="$PG_DIR/tls"
PG_PORT="${LX_PG_PORT:-55432}"
PG_DB="${LX_PG_DATABASE:-location_exchange}"
if [[ "$PG_DIR" == "$PG_DEFAULT_DIR" ]]; then
  PG_LOG="${LX_PG_LOG:-$LX_LOG_DIR/postgres.log}"
  PG_WRITE_ENV="${LX_PG_WRITE_ENV:-1}"
else
  PG_LOG="${LX_PG_LOG:-$PG_DIR/postgres.log}"
  PG_WRITE_ENV="${LX_PG_WRITE_ENV:-0}"
fi

# initdb and pg_ctl refuse to run as root; as root they run as the postgres OS user, from a
# directory that user can enter (otherwise they warn about the current directory).
as_pg() {
  if lx_is_root; then
    (cd "$PG_DIR" && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

database_url() { printf 'postgresql://postgres@%s:%s/%s' "$LX_BIND_ADDRESS" "$1" "$PG_DB"; }

cmd_install() {
  if [[ -x "$PGBIN/initdb" ]]; then
    lx_ok "PostgreSQL $PG_MAJOR already installed ($PGBIN)"
    return 0
  fi
  local t0=$SECONDS
  lx_info "installing postgresql-$PG_MAJOR from apt"
  lx_apt_install "postgresql-$PG_MAJOR"
  [[ -x "$PGBIN/initdb" ]] || lx_die "postgresql-$PG_MAJOR installed but $PGBIN/initdb is missing"
  # The package starts its own cluster 15/main on 5432; it is left alone, this script never uses it.
  lx_ok "installed postgresql-$PG_MAJOR in $(lx_elapsed "$t0")"
}

# The postgres user must be able to enter every directory above the cluster (for example a
# mktemp -d directory or /root). Grant search (x) permission only where it is missing.
ensure_traversable() {
  lx_is_root || return 0
  local d=$1
  while [[ "$d" != "/" && -n "$d" ]]; do
    if ! runuser -u postgres -- test -x "$d" 2>/dev/null; then
      if command -v setfacl >/dev/null 2>&1 && setfacl -m u:postgres:x "$d" 2>/dev/null; then
        lx_info "granted the postgres user search permission on $d (ACL)"
      else
        chmod o+x "$d"
        lx_info "made $d searchable (o+x) so the postgres user can reach its cluster"
      fi
    fi
    d=$(dirname "$d")
  done
}

prepare_dirs() {
  lx_ensure_dirs
  mkdir -p "$PG_DIR" "$(dirname "$PG_LOG")"
  is_running || lx_rotate_log "$PG_LOG"
  touch "$PG_LOG"
  if lx_is_root; then
    chown postgres:postgres "$PG_DIR" "$PG_LOG"
    ensure_traversable "$(dirname "$PG_DIR")"
    ensure_traversable "$(dirname "$PG_LOG")"
  fi
}

init_cluster() {
  if [[ -f "$PG_DATA/PG_VERSION" ]]; then
    local v
    v=$(<"$PG_DATA/PG_VERSION")
    [[ "$v" == "$PG_MAJOR" ]] || lx_die "$PG_DATA holds a PostgreSQL $v cluster, expected $PG_MAJOR; remove it or choose another LX_PG_DIR"
    return 0
  fi
  if [[ -d "$PG_DATA" ]] && [[ -n "$(ls -A "$PG_DATA")" ]]; then
    lx_die "$PG_DATA is not empty but holds no cluster; remove it or choose another LX_PG_DIR"
  fi
  lx_info "initdb $PG_DATA"
  as_pg "$PGBIN/initdb" -D "$PG_DATA" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >>"$PG_LOG" 2>&1 ||
    lx_fail "$PG_LOG" "initdb failed"
  printf "\n# Local development settings, rewritten by deploy/local/postgres.sh on each start.\ninclude_if_exists = 'lx-local.conf'\n" \
    >>"$PG_DATA/postgresql.conf"
}

# The cluster's CA, made once and kept (clients trust it through LX_PG_CA_FILE), and a server certificate for
# LX_BIND_ADDRESS signed by it, made afresh at every start (so a changed address gets a matching one). P-256 keys:
# generated in milliseconds.
ensure_tls() {
  mkdir -p "$PG_TLS"
  if [[ ! -s "$PG_TLS/ca.crt" || ! -s "$PG_TLS/ca.key" ]]; then
    openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -days 3650 \
      -subj "/CN=Location Exchange local PostgreSQL CA" \
      -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
      -keyout "$PG_TLS/ca.key" -out "$PG_TLS/ca.crt" >>"$PG_LOG" 2>&1 || lx_fail "$PG_LOG" "creating the CA failed"
    lx_info "created the cluster's CA $PG_TLS/ca.crt"
  fi
  openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -subj "/CN=$LX_BIND_ADDRESS" \
    -keyout "$PG_TLS/server.key" -out "$PG_TLS/server.csr" >>"$PG_LOG" 2>&1 ||
    lx_fail "$PG_LOG" "creating the server key failed"
  openssl x509 -req -in "$PG_TLS/server.csr" -CA "$PG_TLS/ca.crt" -CAkey "$PG_TLS/ca.key" \
    -set_serial "0x$(openssl rand -hex 16)" -days 825 -out "$PG_TLS/server.crt" \
    -extfile <(printf 'subjectAltName=IP:%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$LX_BIND_ADDRESS") \
    >>"$PG_LOG" 2>&1 || lx_fail "$PG_LOG" "creating the server certificate failed"
  rm -f "$PG_TLS/server.csr"
  # The server refuses a key that others can read.
  chmod 600 "$PG_TLS/server.key" "$PG_TLS/ca.key"
  if lx_is_root; then chown -R postgres:postgres "$PG_TLS"; fi
}

write_local_conf() {
  local conf="$PG_DATA/lx-local.conf"
  cat >"$conf" <<EOF
# Written by deploy/local/postgres.sh; changes are lost on the next start.
listen_addresses = '$LX_BIND_ADDRESS'
hba_file = '$PG_DATA/lx-hba.conf'
port = $PG_PORT
# TCP only: a socket path inside a deep LX_PG_DIR can exceed the 107-byte limit.
unix_socket_directories = ''
max_connections = 200
timezone = 'UTC'
# Throwaway data: durability is traded for speed.
fsync = off
synchronous_commit = off
full_page_writes = off
ssl = on
ssl_cert_file = '$PG_TLS/server.crt'
ssl_key_file = '$PG_TLS/server.key'
password_encryption = 'scram-sha-256'
EOF
  # From the listen address's own /24 only: loopback, or the offline cluster's pod bridge (its pods and node). The
  # superuser without a password (tests, provisioning); every other role (the services') with its password, over TLS.
  local network=127.0.0.1/32
  [[ "$LX_BIND_ADDRESS" == 127.0.0.1 ]] || network="${LX_BIND_ADDRESS%.*}.0/24"
  printf '# Written by deploy/local/postgres.sh; changes are lost on the next start.\n%s\n%s\n' \
    "host all postgres $network trust" "hostssl all all $network scram-sha-256" >"$PG_DATA/lx-hba.conf"
  if lx_is_root; then chown postgres:postgres "$conf" "$PG_DATA/lx-hba.conf"; fi
}

# Port of the running server, from postmaster.pid (line 4), or empty.
running_port() {
  [[ -r "$PG_DATA/postmaster.pid" ]] && sed -n 4p "$PG_DATA/postmaster.pid" | tr -dc '0-9'
}

is_running() {
  [[ -d "$PG_DATA" ]] || return 1
  as_pg "$PGBIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1
}

ensure_database() {
  local port=$1 exists
  local psql=("$PGBIN/psql" -X -q -h "$LX_BIND_ADDRESS" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1)
  exists=$("${psql[@]}" -tA -c "SELECT 1 FROM pg_database WHERE datname = '${PG_DB//\'/\'\'}'") ||
    lx_fail "$PG_LOG" "cannot connect to $LX_BIND_ADDRESS:$port"
  if [[ "$exists" == "1" ]]; then
    lx_ok "database $PG_DB exists"
  else
    "${psql[@]}" -c "CREATE DATABASE \"${PG_DB//\"/\"\"}\"" || lx_fail "$PG_LOG" "CREATE DATABASE $PG_DB failed"
    lx_ok "created database $PG_DB"
  fi
}

report() {
  local port=$1 url ca=$PG_TLS/ca.crt
  url=$(database_url "$port")
  # A server started by a version of this script without TLS keeps running without it until it is restarted: then
  # no CA is recorded, and clients connect without TLS as before.
  if [[ $("$PGBIN/psql" -X -tA -h "$LX_BIND_ADDRESS" -p "$port" -U postgres -d postgres -c 'SHOW ssl') != on ]]; then
    lx_warn "the server runs without TLS (started before TLS was configured); stop and start it to enable TLS"
    ca=
  fi
  if [[ "$PG_WRITE_ENV" == "1" ]]; then lx_env_set DATABASE_URL "$url" LX_PG_CA_FILE "$ca"; fi
  printf 'DATABASE_URL=%s\nLX_PG_CA_FILE=%s\n' "$url" "$ca"
}

cmd_start() {
  # infra.sh runs every install step first and then sets LX_INSTALL_DONE=1 for the start step.
  [[ "${LX_INSTALL_DONE:-}" == 1 ]] || cmd_install
  prepare_dirs
  init_cluster
  local port
  if is_running; then
    port=$(running_port)
    if [[ -n "$port" && "$port" != "$PG_PORT" ]]; then
      lx_warn "cluster in $PG_DATA already runs on port $port (requested $PG_PORT); using $port"
    fi
    port=${port:-$PG_PORT}
    lx_ok "already running on $LX_BIND_ADDRESS:$port"
  else
    port=$PG_PORT
    if lx_port_open "$LX_BIND_ADDRESS" "$port"; then
      lx_die "port $port on $LX_BIND_ADDRESS is taken by another process; set LX_PG_PORT"
    fi
    ensure_tls
    write_local_conf
    local t0=$SECONDS
    lx_info "starting on $LX_BIND_ADDRESS:$port (data $PG_DATA, log $PG_LOG)"
    # shellcheck disable=SC2094 # the server and pg_ctl's own errors share one append-only log
    as_pg "$PGBIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t 60 start >/dev/null 2>>"$PG_LOG" ||
      lx_fail "$PG_LOG" "pg_ctl start failed"
    wait_for_port "$LX_BIND_ADDRESS" "$port" 30 || lx_fail "$PG_LOG" "server started but port $port does not answer"
    lx_ok "started on $LX_BIND_ADDRESS:$port in $(lx_elapsed "$t0")"
  fi
  ensure_database "$port"
  report "$port"
}

cmd_stop() {
  if ! is_running; then
    lx_ok "not running ($PG_DATA)"
    return 0
  fi
  lx_info "stopping (pg_ctl stop -m fast)"
  as_pg "$PGBIN/pg_ctl" -D "$PG_DATA" -m fast -w -t 60 stop >/dev/null 2>>"$PG_LOG" ||
    lx_fail "$PG_LOG" "pg_ctl stop failed"
  lx_ok "stopped"
}

cmd_status() {
  local port
  if is_running; then
    port=$(running_port)
    port=${port:-$PG_PORT}
    if "$PGBIN/pg_isready" -q -h "$LX_BIND_ADDRESS" -p "$port" -t 5; then
      lx_ok "up on $LX_BIND_ADDRESS:$port (data $PG_DATA)"
      printf 'DATABASE_URL=%s\n' "$(database_url "$port")"
      return 0
    fi
    lx_info "process running but not accepting connections on $LX_BIND_ADDRESS:$port"
    return 1
  fi
  lx_info "down ($PG_DATA)"
  return 1
}

lx_dispatch "install start stop status" "$@"
