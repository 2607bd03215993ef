#!/usr/bin/env bash
# Three Apache Kafka 4.1.1 KRaft nodes on loopback, each broker and controller with the three as static voters, from
# the jars kafka.sh caches: topics can have three replicas and min.insync.replicas 2, as docs/kubernetes.md asks of a
# production cluster. Only the broker failover test uses it (services/location-query/test/integration/
# broker-failover.int-spec.ts starts and stops it, on free ports and a directory of its own); infra.sh does not.
#
#   deploy/local/kafka-cluster.sh start|stop|status
#
#   LX_KAFKA_CLUSTER_DIR               state: cluster.id, admin-password, tls/, node-<n>/ (server.properties, data/, tmp/,
#                                      kafka.pid, kafka.log)
#                                      default $LX_STATE_DIR/kafka-cluster
#   LX_KAFKA_CLUSTER_PORTS             client listeners of nodes 1,2,3 on LX_BIND_ADDRESS  default 29092,29093,29094
#   LX_KAFKA_CLUSTER_CONTROLLER_PORTS  their controller listeners                           default 29192,29193,29194
#   LX_KAFKA_CLUSTER_OWNER_PID         optional: a watchdog SIGKILLs the nodes once that process is gone (a test runner
#                                      killed before its clean-up could stop them)
#
# start   starts every node that is not running (all three at first; later, one a test killed) and waits until each
#         has started; prints KAFKA_BROKERS=<the three>, the admin's login (KAFKA_TLS_CA_FILE, KAFKA_SASL_USERNAME,
#         KAFKA_SASL_PASSWORD: TLS and SCRAM-SHA-512, as kafka.sh's single node) and KAFKA_NODE_<n>_PID=<pid> on stdout
# stop    stops the three nodes and the watchdog
# status  one line per node; exit 0 only when all three are up
# The ports default outside the shared infrastructure's (PostgreSQL 55432, Kafka 19092/19093, MinIO 19000/19001).
set -euo pipefail

# shellcheck source=deploy/local/kafka.sh
source "$(dirname "${BASH_SOURCE[0]}")/kafka.sh"
LX_COMPONENT=kafka-cluster

NODES=(1 2 3)
CLUSTER_DIR="$(lx_abspath "${LX_KAFKA_CLUSTER_DIR:-$LX_STATE_DIR/kafka-cluster}")"
IFS=, read -r -a CLIENT_PORTS <<<"${LX_KAFKA_CLUSTER_PORTS:-29092,29093,29094}"
IFS=, read -r -a CONTROLLER_PORTS <<<"${LX_KAFKA_CLUSTER_CONTROLLER_PORTS:-29192,29193,29194}"
((${#CLIENT_PORTS[@]} == 3 && ${#CONTROLLER_PORTS[@]} == 3)) ||
  lx_die "LX_KAFKA_CLUSTER_PORTS and LX_KAFKA_CLUSTER_CONTROLLER_PORTS name three ports each"
WATCHDOG_PID_FILE="$CLUSTER_DIR/watchdog.pid"
CLUSTER_TLS_DIR="$CLUSTER_DIR/tls"

# kafka.sh's functions read its globals (KAFKA_STATE, KAFKA_LOG, KAFKA_PORT ...); each node's values are set as locals
# of the caller, which is what bash's dynamic scoping hands those functions.
node_dir() { printf '%s/node-%s\n' "$CLUSTER_DIR" "$1"; }
client_port() { printf '%s\n' "${CLIENT_PORTS[$(($1 - 1))]}"; }
controller_port() { printf '%s\n' "${CONTROLLER_PORTS[$(($1 - 1))]}"; }

node_pid() {
  local pid
  pid=$(lx_pid_from_file "$(node_dir "$1")/kafka.pid") || return 1
  lx_pid_matches "$pid" kafka.Kafka || return 1
  printf '%s\n' "$pid"
}

brokers() {
  local n list=()
  for n in "${NODES[@]}"; do list+=("$LX_BIND_ADDRESS:$(client_port "$n")"); done
  (
    IFS=,
    printf '%s\n' "${list[*]}"
  )
}

report() {
  local n
  printf 'KAFKA_BROKERS=%s\n' "$(brokers)"
  # The login of the cluster's admin, for the test's clients and the services it starts.
  printf 'KAFKA_TLS_CA_FILE=%s\n' "$CLUSTER_TLS_DIR/ca.pem"
  printf 'KAFKA_SASL_USERNAME=%s\n' "$KAFKA_ADMIN_USER"
  printf 'KAFKA_SASL_PASSWORD=%s\n' "$(cat "$CLUSTER_DIR/admin-password" 2>/dev/null || true)"
  for n in "${NODES[@]}"; do printf 'KAFKA_NODE_%s_PID=%s\n' "$n" "$(node_pid "$n" || true)"; done
}

# Renders node N's configuration and formats its storage (kept when already formatted: a restarted node keeps its log).
prepare_node() {
  local n=$1 voters=$2
  local KAFKA_STATE KAFKA_LOG KAFKA_PORT KAFKA_CONTROLLER_PORT KAFKA_DATA_DIR KAFKA_NODE_ID=$n KAFKA_VOTERS=$voters
  local KAFKA_HOST=$LX_BIND_ADDRESS
  KAFKA_STATE=$(node_dir "$n")
  KAFKA_LOG="$KAFKA_STATE/kafka.log"
  KAFKA_PORT=$(client_port "$n")
  KAFKA_CONTROLLER_PORT=$(controller_port "$n")
  KAFKA_DATA_DIR="$KAFKA_STATE/data"
  mkdir -p "$KAFKA_DATA_DIR" "$KAFKA_STATE/tmp"
  local KAFKA_TLS_DIR=$CLUSTER_TLS_DIR KAFKA_ADMIN_PASSWORD
  KAFKA_ADMIN_PASSWORD=$(<"$CLUSTER_DIR/admin-password")
  (
    umask 077
    lx_render "$KAFKA_CONF_DIR/cluster.properties.template" "$KAFKA_STATE/server.properties" KAFKA_NODE_ID \
      KAFKA_VOTERS KAFKA_PORT KAFKA_CONTROLLER_PORT KAFKA_DATA_DIR KAFKA_HOST KAFKA_TLS_DIR KAFKA_ADMIN_USER KAFKA_ADMIN_PASSWORD
  )
  touch "$KAFKA_LOG"
  # Every node formats with the cluster's one id, and the admin's SCRAM user.
  cp "$CLUSTER_DIR/cluster.id" "$KAFKA_STATE/cluster.id"
  format_storage --add-scram "SCRAM-SHA-512=[name=$KAFKA_ADMIN_USER,password=$KAFKA_ADMIN_PASSWORD]"
}

# The cluster's CA and one certificate for its brokers (kafka.sh's ensure_tls), and the admin's password, made once.
prepare_security() {
  local KAFKA_TLS_DIR=$CLUSTER_TLS_DIR
  ensure_tls
  if [[ ! -s "$CLUSTER_DIR/admin-password" ]]; then
    (
      umask 077
      head -c 24 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n' >"$CLUSTER_DIR/admin-password"
    )
  fi
}

# Kills the nodes with SIGKILL once LX_KAFKA_CLUSTER_OWNER_PID has exited (or the cluster's directory is gone).
start_watchdog() {
  local owner=${LX_KAFKA_CLUSTER_OWNER_PID:-} pid
  [[ -n "$owner" ]] || return 0
  if pid=$(lx_pid_from_file "$WATCHDOG_PID_FILE") && lx_pid_matches "$pid" kafka-cluster-watchdog; then return 0; fi
  # shellcheck disable=SC2016 # expanded by the watchdog's shell
  setsid bash -c '
    owner=$1 dir=$2
    while kill -0 "$owner" 2>/dev/null && [[ -d "$dir" ]]; do sleep 1; done
    for file in "$dir"/node-*/kafka.pid; do
      pid=$(tr -dc 0-9 <"$file" 2>/dev/null) || continue
      if [[ -n "$pid" ]] && tr "\0" " " <"/proc/$pid/cmdline" 2>/dev/null | grep -qF kafka.Kafka; then kill -KILL "$pid"; fi
    done' kafka-cluster-watchdog "$owner" "$CLUSTER_DIR" </dev/null >/dev/null 2>&1 &
  printf '%s\n' "$!" >"$WATCHDOG_PID_FILE"
}

cmd_start() {
  [[ "${LX_INSTALL_DONE:-}" == 1 ]] || cmd_install
  check_java
  mkdir -p "$CLUSTER_DIR"
  chmod 700 "$CLUSTER_DIR"
  if [[ ! -s "$CLUSTER_DIR/cluster.id" ]]; then new_cluster_id >"$CLUSTER_DIR/cluster.id"; fi
  prepare_security
  local n voters=() to_start=()
  for n in "${NODES[@]}"; do
    voters+=("$n@$LX_BIND_ADDRESS:$(controller_port "$n")")
    node_pid "$n" >/dev/null && continue
    local port
    for port in "$(client_port "$n")" "$(controller_port "$n")"; do
      if lx_port_open "$LX_BIND_ADDRESS" "$port"; then
        lx_die "port $port on $LX_BIND_ADDRESS is taken by another process; set LX_KAFKA_CLUSTER_PORTS / LX_KAFKA_CLUSTER_CONTROLLER_PORTS"
      fi
    done
    to_start+=("$n")
  done
  if ((${#to_start[@]} == 0)); then
    lx_ok "all three nodes running on $(brokers)"
    report
    return 0
  fi
  local t0=$SECONDS voter_list formats=()
  voter_list=$(
    IFS=,
    printf '%s' "${voters[*]}"
  )
  # Formatting starts a JVM per node: in parallel.
  for n in "${to_start[@]}"; do
    prepare_node "$n" "$voter_list" &
    formats+=($!)
  done
  for n in "${formats[@]}"; do wait "$n" || lx_die "formatting a node's storage failed (logs under $CLUSTER_DIR)"; done
  # All at once: a broker starts only once the controllers have a quorum, two of the three.
  local KAFKA_STATE KAFKA_LOG KAFKA_PID_FILE KAFKA_PORT
  local -A pids=() offsets=()
  for n in "${to_start[@]}"; do
    KAFKA_STATE=$(node_dir "$n")
    KAFKA_LOG="$KAFKA_STATE/kafka.log"
    KAFKA_PID_FILE="$KAFKA_STATE/kafka.pid"
    offsets[$n]=$(stat -c %s "$KAFKA_LOG")
    lx_info "starting node $n on $LX_BIND_ADDRESS:$(client_port "$n") (controller $(controller_port "$n"), log $KAFKA_LOG)"
    spawn_broker
    pids[$n]=$KAFKA_SPAWNED_PID
  done
  start_watchdog
  local deadline=$((SECONDS + START_TIMEOUT))
  for n in "${to_start[@]}"; do
    KAFKA_STATE=$(node_dir "$n")
    KAFKA_LOG="$KAFKA_STATE/kafka.log"
    KAFKA_PORT=$(client_port "$n")
    await_started "${pids[$n]}" "${offsets[$n]}" "$deadline"
  done
  lx_ok "started node(s) ${to_start[*]} in $(lx_elapsed "$t0"); brokers $(brokers)"
  report
}

cmd_stop() {
  local n pid pids=() t0=$SECONDS
  for n in "${NODES[@]}"; do
    if pid=$(node_pid "$n"); then pids+=("$pid"); fi
  done
  # All at once, and not for long: the last nodes have no quorum left to shut down in order with.
  for pid in "${pids[@]}"; do lx_stop_pid "$pid" "kafka node" 15 & done
  wait
  if pid=$(lx_pid_from_file "$WATCHDOG_PID_FILE") && lx_pid_matches "$pid" kafka-cluster-watchdog; then
    kill -TERM "$pid" 2>/dev/null || true
  fi
  rm -f "$WATCHDOG_PID_FILE" "$CLUSTER_DIR"/node-*/kafka.pid
  lx_ok "stopped ${#pids[@]} node(s) in $(lx_elapsed "$t0")"
}

cmd_status() {
  local n pid up=0
  for n in "${NODES[@]}"; do
    if pid=$(node_pid "$n") && lx_port_open "$LX_BIND_ADDRESS" "$(client_port "$n")"; then
      lx_ok "node $n up (pid $pid) on $LX_BIND_ADDRESS:$(client_port "$n")"
      up=$((up + 1))
    else
      lx_info "node $n down"
    fi
  done
  report
  ((up == 3))
}

lx_dispatch "start stop status" "$@"
