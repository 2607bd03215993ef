#!/usr/bin/env bash
# Apache Kafka 4.1.1, single KRaft node (broker + controller) on loopback, from Maven Central jars; clients authenticate
# with SCRAM-SHA-512 over TLS, and ACLs decide what each may do (docs/security.md, Kafka).
#
#   deploy/local/kafka.sh install|start|stop|status
#
#   LX_KAFKA_PORT             client listener on LX_BIND_ADDRESS     default 19092
#   LX_KAFKA_CONTROLLER_PORT  controller listener on 127.0.0.1 (SASL PLAIN) default 19093
#   LX_KAFKA_JAVA_OPTS        extra JVM options, appended
#
# Jars:   $LX_CACHE_DIR/kafka-4.1.1/libs (resolved from deploy/local/kafka/pom.xml)
# State:  $LX_STATE_DIR/kafka (server.properties, data/, tmp/, kafka.pid, cluster.id, credentials, tls/)
# Log:    $LX_STATE_DIR/logs/kafka.log
# start prints KAFKA_BROKERS=... on stdout; messages go to stderr.
set -euo pipefail

LX_COMPONENT=kafka
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KAFKA_VERSION=4.1.1
KAFKA_CONF_DIR="$LX_LOCAL_DIR/kafka"
KAFKA_POM="$KAFKA_CONF_DIR/pom.xml"
KAFKA_HOME="$LX_CACHE_DIR/kafka-$KAFKA_VERSION"
KAFKA_LIBS="$KAFKA_HOME/libs"
# Written only after copy-dependencies succeeded; without it the download is redone.
KAFKA_MARKER="$KAFKA_HOME/.installed"
KAFKA_PORT="${LX_KAFKA_PORT:-19092}"
KAFKA_CONTROLLER_PORT="${LX_KAFKA_CONTROLLER_PORT:-19093}"
KAFKA_STATE="$LX_STATE_DIR/kafka"
KAFKA_DATA_DIR="$KAFKA_STATE/data"
KAFKA_PID_FILE="$KAFKA_STATE/kafka.pid"
KAFKA_LOG="$LX_LOG_DIR/kafka.log"
KAFKA_INSTALL_LOG="$LX_LOG_DIR/kafka-install.log"
STARTED_LINE='Kafka Server started'
# The SCRAM users made at format: the admin (a super user: tests and tools) and one per service (lx-<service>), which
# may do only what its ACLs grant (deploy/local/kafka-acls.ts). Passwords are drawn once and kept in $KAFKA_CREDENTIALS.
KAFKA_ADMIN_USER=lx-admin
KAFKA_CREDENTIALS="$KAFKA_STATE/credentials"
KAFKA_TLS_DIR="$KAFKA_STATE/tls"
START_TIMEOUT=120

java_bin() {
  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
    printf '%s\n' "$JAVA_HOME/bin/java"
  else
    command -v java || lx_die "java not found; Kafka 4.x needs Java 17+ (apt-get install -y openjdk-17-jre-headless)"
  fi
}

check_java() {
  local java major
  java=$(java_bin)
  major=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
  if ! [[ "${major%%.*}" =~ ^[0-9]+$ ]] || ((${major%%.*} < 17)); then
    lx_die "$java is Java ${major:-unknown}; Kafka $KAFKA_VERSION brokers need Java 17+ (check JAVA_HOME)"
  fi
  JAVA=$java
}

pom_hash() { sha256sum "$KAFKA_POM" | cut -d' ' -f1; }

cmd_install() {
  local want
  want="kafka=$KAFKA_VERSION pom-sha256=$(pom_hash)"
  if [[ -f "$KAFKA_MARKER" && "$(<"$KAFKA_MARKER")" == "$want" ]]; then
    lx_ok "Kafka $KAFKA_VERSION jars cached in $KAFKA_LIBS"
    return 0
  fi
  lx_ensure_dirs
  mkdir -p "$KAFKA_HOME"
  (
    flock -w 900 9 || lx_die "timed out waiting for another Kafka install (lock $KAFKA_HOME.lock)"
    if [[ -f "$KAFKA_MARKER" && "$(<"$KAFKA_MARKER")" == "$want" ]]; then
      lx_ok "Kafka $KAFKA_VERSION jars cached in $KAFKA_LIBS (installed meanwhile)"
      exit 0
    fi
    lx_require_cmd mvn
    local t0=$SECONDS
    lx_info "resolving Kafka $KAFKA_VERSION jars with Maven into $KAFKA_LIBS (log $KAFKA_INSTALL_LOG)"
    # overWriteReleases: a jar left half-copied by an interrupted run is replaced, never trusted.
    if ! mvn -B -q -f "$KAFKA_POM" \
      org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
      -DincludeScope=runtime -DoverWriteReleases=true -DoutputDirectory="$KAFKA_LIBS" >"$KAFKA_INSTALL_LOG" 2>&1; then
      lx_fail "$KAFKA_INSTALL_LOG" "Maven could not resolve the Kafka jars"
    fi
    [[ -f "$KAFKA_LIBS/kafka_2.13-$KAFKA_VERSION.jar" ]] ||
      lx_fail "$KAFKA_INSTALL_LOG" "kafka_2.13-$KAFKA_VERSION.jar missing after copy-dependencies"
    printf '%s\n' "$want" >"$KAFKA_MARKER"
    lx_ok "Kafka $KAFKA_VERSION jars installed in $(lx_elapsed "$t0") ($(find "$KAFKA_LIBS" -name '*.jar' | wc -l) jars)"
  ) 9>"$KAFKA_HOME.lock"
}

running_pid() {
  local pid
  pid=$(lx_pid_from_file "$KAFKA_PID_FILE") || return 1
  lx_pid_matches "$pid" kafka.Kafka || return 1
  printf '%s\n' "$pid"
}

# One broker: every topic the services create can have one replica, and a write needs only it in sync. The admin's
# credentials are the default of whoever reads the env file (tests, tools); stack.sh gives each service its own
# (KAFKA_SASL_PASSWORD_<SERVICE>, user lx-<service>).
report() {
  local brokers="$LX_BIND_ADDRESS:$KAFKA_PORT" service values=()
  load_credentials
  for service in "${LX_SERVICES[@]}"; do
    values+=("KAFKA_SASL_PASSWORD_$(lx_env_name "$service")" "$(credential "$service")")
  done
  lx_env_set KAFKA_BROKERS "$brokers" KAFKA_REPLICATION_FACTOR 1 KAFKA_MIN_INSYNC_REPLICAS 1 \
    KAFKA_TLS true KAFKA_TLS_CA_FILE "$KAFKA_TLS_DIR/ca.pem" \
    KAFKA_SASL_MECHANISM scram-sha-512 KAFKA_SASL_USERNAME "$KAFKA_ADMIN_USER" \
    KAFKA_SASL_PASSWORD "$(credential admin)" "${values[@]}"
  printf 'KAFKA_BROKERS=%s\n' "$brokers"
}

# Passwords of the admin and of each service: drawn at the first start, then read from $KAFKA_CREDENTIALS (mode 600).
load_credentials() {
  declare -gA KAFKA_PASSWORDS=()
  local name password
  if [[ -f "$KAFKA_CREDENTIALS" ]]; then
    while read -r name password; do KAFKA_PASSWORDS[$name]=$password; done <"$KAFKA_CREDENTIALS"
  fi
  local missing=0
  for name in admin "${LX_SERVICES[@]}"; do
    if [[ -z "${KAFKA_PASSWORDS[$name]:-}" ]]; then
      KAFKA_PASSWORDS[$name]=$(head -c 24 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
      missing=1
    fi
  done
  if ((missing)); then
    (
      umask 077
      for name in "${!KAFKA_PASSWORDS[@]}"; do printf '%s %s\n' "$name" "${KAFKA_PASSWORDS[$name]}"; done >"$KAFKA_CREDENTIALS.tmp"
    )
    mv "$KAFKA_CREDENTIALS.tmp" "$KAFKA_CREDENTIALS"
  fi
}

credential() { printf '%s' "${KAFKA_PASSWORDS[$1]}"; }

# What $KAFKA_STATE/scram-users records of a format: its users and a hash of their passwords.
scram_marker() { printf '%s %s' "admin ${LX_SERVICES[*]}" "$(sha256sum <"$KAFKA_CREDENTIALS" | cut -d' ' -f1)"; }

# scram_user NAME: the SCRAM user of the admin or of a service.
scram_user() { if [[ "$1" == admin ]]; then printf '%s' "$KAFKA_ADMIN_USER"; else printf 'lx-%s' "$1"; fi; }

# A CA of this state folder and the broker's certificate for LX_BIND_ADDRESS (and loopback), PEM; the certificate is
# made again when the address changed. The broker's key is unencrypted PKCS#8 in a file only this user can read.
ensure_tls() {
  local dir=$KAFKA_TLS_DIR
  mkdir -p "$dir"
  chmod 700 "$dir"
  if [[ ! -s "$dir/ca.pem" || ! -s "$dir/ca.key" ]]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=Location Exchange local Kafka CA" \
      -keyout "$dir/ca.key" -out "$dir/ca.pem" >/dev/null 2>&1 || lx_die "openssl could not make the Kafka CA"
    rm -f "$dir/broker.pem"
  fi
  local san="IP:$LX_BIND_ADDRESS,IP:127.0.0.1,DNS:localhost"
  # Kept while it names this address and stays valid for another day.
  if [[ -s "$dir/broker.pem" && "$(<"$dir/broker.san")" == "$san" ]] &&
    openssl x509 -in "$dir/broker.crt" -noout -checkend 86400 >/dev/null 2>&1; then
    return 0
  fi
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$LX_BIND_ADDRESS" -keyout "$dir/broker.key" -out "$dir/broker.csr" \
    >/dev/null 2>&1 || lx_die "openssl could not make the broker's key"
  openssl x509 -req -in "$dir/broker.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 825 \
    -extfile <(printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$san") -out "$dir/broker.crt" >/dev/null 2>&1 ||
    lx_die "openssl could not sign the broker's certificate"
  # Kafka's PEM key store: the private key (PKCS#8) and then the certificate chain, in one file.
  openssl pkcs8 -topk8 -nocrypt -in "$dir/broker.key" -out "$dir/broker.key.p8" || lx_die "openssl pkcs8 failed"
  cat "$dir/broker.key.p8" "$dir/broker.crt" "$dir/ca.pem" >"$dir/broker.pem"
  chmod 600 "$dir"/*.key "$dir"/*.p8 "$dir/broker.pem"
  rm -f "$dir/broker.csr" "$dir/broker.key" "$dir/broker.key.p8"
  printf '%s' "$san" >"$dir/broker.san"
}

# A cluster id is 16 random bytes in base64url without padding. One starting with '-' would be
# read as an option by StorageTool, so draw again in that case.
new_cluster_id() {
  local id
  while :; do
    id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
    [[ "$id" =~ ^[A-Za-z0-9] ]] && break
  done
  printf '%s\n' "$id"
}

# format_storage [ARG…]: formats the node's data dir; the arguments go to StorageTool (kafka.sh's --add-scram users).
format_storage() {
  local cluster_id_file="$KAFKA_STATE/cluster.id" cluster_id
  if [[ ! -s "$cluster_id_file" ]]; then new_cluster_id >"$cluster_id_file"; fi
  cluster_id=$(<"$cluster_id_file")
  # --ignore-formatted: an already formatted data dir is kept (its own cluster id wins).
  "$JAVA" -Dlog4j2.configurationFile="$KAFKA_CONF_DIR/tools-log4j2.properties" \
    -Djava.io.tmpdir="$KAFKA_STATE/tmp" -cp "$KAFKA_LIBS/*" \
    kafka.tools.StorageTool format -t "$cluster_id" -c "$KAFKA_STATE/server.properties" --ignore-formatted "$@" \
    >>"$KAFKA_LOG" 2>&1 || lx_fail "$KAFKA_LOG" "StorageTool format failed"
}

# spawn_broker: starts the node of $KAFKA_STATE/server.properties, logging to $KAFKA_LOG, and sets KAFKA_SPAWNED_PID.
# Own session (setsid) so that Ctrl-C in the calling terminal does not take the broker down. The inner shell writes
# its pid to $KAFKA_PID_FILE and then execs the JVM, so the pid file names the broker itself.
# (kafka-cluster.sh calls this and the functions below with its own KAFKA_STATE, KAFKA_LOG and KAFKA_PID_FILE per node.)
spawn_broker() {
  rm -f "$KAFKA_PID_FILE"
  # shellcheck disable=SC2086,SC2016
  setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$KAFKA_PID_FILE" \
    "$JAVA" -Xms256m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError \
    -Djava.awt.headless=true -Djava.io.tmpdir="$KAFKA_STATE/tmp" \
    -Dlog4j2.configurationFile="$KAFKA_CONF_DIR/log4j2.properties" \
    ${LX_KAFKA_JAVA_OPTS:-} -cp "$KAFKA_LIBS/*" kafka.Kafka "$KAFKA_STATE/server.properties" \
    </dev/null >>"$KAFKA_LOG" 2>&1 &
  local deadline=$((SECONDS + START_TIMEOUT))
  while [[ ! -s "$KAFKA_PID_FILE" ]] && ((SECONDS < deadline)); do sleep 0.1; done
  [[ -s "$KAFKA_PID_FILE" ]] || lx_fail "$KAFKA_LOG" "the broker process did not start"
  KAFKA_SPAWNED_PID=$(tr -dc '0-9' <"$KAFKA_PID_FILE")
}

# await_started PID LOG_OFFSET DEADLINE: waits for the broker's own "started" line in $KAFKA_LOG after LOG_OFFSET (a
# port check alone answers too early), then for $KAFKA_PORT; stops the broker when DEADLINE (bash SECONDS) passes.
await_started() {
  local pid=$1 offset=$2 deadline=$3
  until tail -c +"$((offset + 1))" "$KAFKA_LOG" | grep -qF "$STARTED_LINE"; do
    kill -0 "$pid" 2>/dev/null || lx_fail "$KAFKA_LOG" "broker exited during startup"
    ((SECONDS < deadline)) || {
      lx_stop_pid "$pid" kafka 10
      lx_fail "$KAFKA_LOG" "no '$STARTED_LINE' within ${START_TIMEOUT}s; stopped it"
    }
    sleep 0.5
  done
  wait_for_port "$LX_BIND_ADDRESS" "$KAFKA_PORT" 30 "$pid" || lx_fail "$KAFKA_LOG" "started but $LX_BIND_ADDRESS:$KAFKA_PORT does not answer"
}

cmd_start() {
  local pid
  # A broker whose log holds other users (started by an older kafka.sh: plaintext, no users) cannot be logged into as
  # these: stop it, and start it as this one does.
  mkdir -p "$KAFKA_STATE"
  load_credentials
  if pid=$(running_pid) && [[ "$(cat "$KAFKA_STATE/scram-users" 2>/dev/null)" != "$(scram_marker)" ]]; then
    lx_warn "the running broker (pid $pid) was started with other users (an older kafka.sh?); restarting it"
    cmd_stop
  fi
  if pid=$(running_pid); then
    if ! lx_port_open "$LX_BIND_ADDRESS" "$KAFKA_PORT"; then
      lx_info "already starting (pid $pid); waiting for $LX_BIND_ADDRESS:$KAFKA_PORT"
      wait_for_port "$LX_BIND_ADDRESS" "$KAFKA_PORT" "$START_TIMEOUT" "$pid" ||
        lx_fail "$KAFKA_LOG" "running broker (pid $pid) does not answer on $LX_BIND_ADDRESS:$KAFKA_PORT"
    fi
    lx_ok "already running (pid $pid) on $LX_BIND_ADDRESS:$KAFKA_PORT"
    report
    return 0
  fi
  # infra.sh runs every install step first and then sets LX_INSTALL_DONE=1 for the start step.
  [[ "${LX_INSTALL_DONE:-}" == 1 ]] || cmd_install
  check_java
  if lx_port_open "$LX_BIND_ADDRESS" "$KAFKA_PORT"; then
    lx_die "port $KAFKA_PORT on $LX_BIND_ADDRESS is taken by another process; set LX_KAFKA_PORT"
  fi
  if lx_port_open 127.0.0.1 "$KAFKA_CONTROLLER_PORT"; then
    lx_die "port $KAFKA_CONTROLLER_PORT on 127.0.0.1 is taken by another process; set LX_KAFKA_CONTROLLER_PORT"
  fi
  lx_ensure_dirs
  mkdir -p "$KAFKA_DATA_DIR" "$KAFKA_STATE/tmp"
  chmod 700 "$KAFKA_STATE"
  load_credentials
  ensure_tls
  local KAFKA_HOST=$LX_BIND_ADDRESS KAFKA_ADMIN_PASSWORD
  KAFKA_ADMIN_PASSWORD=$(credential admin)
  (
    umask 077
    lx_render "$KAFKA_CONF_DIR/server.properties.template" "$KAFKA_STATE/server.properties" \
      KAFKA_PORT KAFKA_CONTROLLER_PORT KAFKA_DATA_DIR KAFKA_HOST KAFKA_TLS_DIR KAFKA_ADMIN_USER KAFKA_ADMIN_PASSWORD
  )
  lx_rotate_log "$KAFKA_LOG"
  touch "$KAFKA_LOG"
  local t0=$SECONDS offset
  # SCRAM users exist from the format on (Kafka's --add-scram), which an already formatted log skips. A data dir
  # formatted with other users or passwords (an older kafka.sh without any, a service added since, a lost credentials
  # file) could not be logged into as these: this local, disposable log is formatted anew.
  local users
  users=$(scram_marker)
  if [[ -f "$KAFKA_DATA_DIR/meta.properties" && "$(cat "$KAFKA_STATE/scram-users" 2>/dev/null)" != "$users" ]]; then
    lx_warn "$KAFKA_DATA_DIR was formatted with other SCRAM users or passwords; formatting it anew (its topics are lost)"
    rm -rf "$KAFKA_DATA_DIR"
    mkdir -p "$KAFKA_DATA_DIR"
  fi
  local scram=() name
  for name in admin "${LX_SERVICES[@]}"; do
    scram+=(--add-scram "SCRAM-SHA-512=[name=$(scram_user "$name"),password=$(credential "$name")]")
  done
  format_storage "${scram[@]}"
  printf '%s' "$users" >"$KAFKA_STATE/scram-users"
  offset=$(stat -c %s "$KAFKA_LOG")
  lx_info "starting on $LX_BIND_ADDRESS:$KAFKA_PORT (controller $KAFKA_CONTROLLER_PORT, data $KAFKA_DATA_DIR, log $KAFKA_LOG)"
  spawn_broker
  pid=$KAFKA_SPAWNED_PID
  await_started "$pid" "$offset" $((SECONDS + START_TIMEOUT))
  lx_ok "started (pid $pid) on $LX_BIND_ADDRESS:$KAFKA_PORT in $(lx_elapsed "$t0")"
  report
}

cmd_stop() {
  local pid
  if ! pid=$(running_pid); then
    rm -f "$KAFKA_PID_FILE"
    lx_ok "not running"
    return 0
  fi
  local t0=$SECONDS
  lx_info "stopping (pid $pid): SIGTERM, SIGKILL after 30s"
  lx_stop_pid "$pid" kafka 30
  rm -f "$KAFKA_PID_FILE"
  lx_ok "stopped in $(lx_elapsed "$t0")"
}

cmd_status() {
  local pid
  if pid=$(running_pid) && lx_port_open "$LX_BIND_ADDRESS" "$KAFKA_PORT"; then
    lx_ok "up (pid $pid) on $LX_BIND_ADDRESS:$KAFKA_PORT"
    printf 'KAFKA_BROKERS=%s:%s\n' "$LX_BIND_ADDRESS" "$KAFKA_PORT"
    return 0
  fi
  if [[ -n "${pid:-}" ]]; then
    lx_info "process $pid running but $LX_BIND_ADDRESS:$KAFKA_PORT does not answer"
  else
    lx_info "down"
  fi
  return 1
}

# Sourced by kafka-cluster.sh for its functions: no command then.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then lx_dispatch "install start stop status" "$@"; fi
