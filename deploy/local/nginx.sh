#!/usr/bin/env bash
# Local ingress: nginx on 127.0.0.1, routing public paths to the services (the chart's route table,
# helm/location-exchange/files/routes.json, rendered by deploy/local/nginx/routes.js into
# deploy/local/nginx/ingress.conf.template). Uses its own prefix, config, pid and temp dirs; the
# system nginx (/etc/nginx, port 80) is neither used nor touched.
#
#   deploy/local/nginx.sh install|start|stop|status|reload
#
#   LX_INGRESS_PORT              listen port on 127.0.0.1          default 18080
#   AUTH_PORT                    auth                               default 3001
#   LOCATION_COMMAND_PORT        location-command                   default 3002
#   LOCATION_QUERY_PORT          location-query                     default 3003
#   STATISTICS_PROJECTION_PORT   statistics-projection              default 3004
#   EXPORT_WORKER_PORT           export-worker                      default 3005
#   WEBHOOK_DISPATCHER_PORT      webhook-dispatcher                 default 3006
#   AUTH_HOST … WEBHOOK_DISPATCHER_HOST   upstream address of each     default 127.0.0.1
#                                (.ci/cluster/test.sh: the chart's Service addresses, port 80)
#   LX_UPSTREAM_KEEPALIVE        idle kept connections per upstream  default 8; 0: a connection per request
#
# start and reload re-render the config from the template; a running nginx is reloaded only when the
# config changed. start prints BASE_URL=... on stdout; messages go to stderr.
set -euo pipefail

LX_COMPONENT=nginx
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TEMPLATE="$LX_LOCAL_DIR/nginx/ingress.conf.template"
# The error bodies and error pages nginx answers itself: the chart's files, which the template includes.
EDGE_ERRORS_CONF_DIR=$(cd "$LX_LOCAL_DIR/../../helm/location-exchange/files/nginx" && pwd)
NGINX_DIR="$LX_STATE_DIR/nginx"
NGINX_CONF="$NGINX_DIR/conf/nginx.conf"
NGINX_PID_FILE="$NGINX_DIR/run/nginx.pid"
NGINX_LOG_DIR="$LX_LOG_DIR"
NGINX_ERROR_LOG="$NGINX_LOG_DIR/nginx-error.log"
INGRESS_PORT="$LX_INGRESS_PORT"
# <SERVICE>_PORT and <SERVICE>_HOST of each upstream, from the environment or the defaults.
UPSTREAM_VARS=()
for service in "${LX_SERVICES[@]}"; do
  prefix=$(lx_env_name "$service")
  port_var="${prefix}_PORT" host_var="${prefix}_HOST"
  printf -v "$port_var" '%s' "${!port_var:-${LX_DEFAULT_PORT[$service]}}"
  printf -v "$host_var" '%s' "${!host_var:-127.0.0.1}"
  UPSTREAM_VARS+=("$port_var" "$host_var")
done
BASE_URL="$LX_BASE_URL"

nginx_bin() {
  if command -v nginx >/dev/null 2>&1; then
    command -v nginx
  elif [[ -x /usr/sbin/nginx ]]; then
    printf '%s\n' /usr/sbin/nginx
  else
    return 1
  fi
}

cmd_install() {
  local bin
  if bin=$(nginx_bin); then
    lx_ok "nginx installed ($bin)"
    return 0
  fi
  local t0=$SECONDS
  lx_info "installing nginx-light from apt"
  # The package may start the system nginx on port 80 with its default site; that one is left alone.
  lx_apt_install nginx-light
  nginx_bin >/dev/null || lx_die "nginx-light installed but no nginx binary found"
  lx_ok "installed nginx-light in $(lx_elapsed "$t0")"
}

nginx_cmd() { "$(nginx_bin)" -p "$NGINX_DIR/" "$@"; }

running_pid() {
  local pid
  pid=$(lx_pid_from_file "$NGINX_PID_FILE") || return 1
  lx_pid_matches "$pid" nginx || return 1
  printf '%s\n' "$pid"
}

# Renders the template to $NGINX_CONF.new and checks it with nginx -t.
render_config() {
  lx_ensure_dirs
  mkdir -p "$NGINX_DIR/conf" "$NGINX_DIR/run" "$NGINX_DIR/tmp"
  local port var
  for var in INGRESS_PORT "${UPSTREAM_VARS[@]}"; do
    [[ "$var" == *_PORT ]] || continue
    port=${!var}
    if ! [[ "$port" =~ ^[0-9]+$ ]] || ((port < 1 || port > 65535)); then lx_die "$var='$port' is not a port number"; fi
  done
  # Workers of a root master would run as nobody and could not write the temp dirs under the state dir.
  # shellcheck disable=SC2034 # read by lx_render through indirection
  if lx_is_root; then NGINX_USER="user root;"; else NGINX_USER=""; fi
  local keepalive=${LX_UPSTREAM_KEEPALIVE:-8}
  [[ "$keepalive" =~ ^[0-9]+$ ]] || lx_die "LX_UPSTREAM_KEEPALIVE='$keepalive' is not a number"
  # shellcheck disable=SC2034 # read by lx_render through indirection
  if ((keepalive > 0)); then UPSTREAM_KEEPALIVE=" keepalive $keepalive;"; else UPSTREAM_KEEPALIVE=""; fi
  # shellcheck disable=SC2034 # read by lx_render through indirection
  ROUTE_LOCATIONS=$(node "$LX_LOCAL_DIR/nginx/routes.js") || lx_die "the routes could not be rendered from routes.json"
  lx_render "$TEMPLATE" "$NGINX_CONF.new" NGINX_USER NGINX_LOG_DIR INGRESS_PORT "${UPSTREAM_VARS[@]}" UPSTREAM_KEEPALIVE \
    EDGE_ERRORS_CONF_DIR ROUTE_LOCATIONS
  local out
  if ! out=$(nginx_cmd -c "$NGINX_CONF.new" -t 2>&1); then
    printf '%s\n' "$out" | sed 's/^/[nginx] | /' >&2
    lx_die "generated config $NGINX_CONF.new is invalid"
  fi
}

report() {
  lx_env_set BASE_URL "$BASE_URL"
  printf 'BASE_URL=%s\n' "$BASE_URL"
}

# Moves the checked config in place; returns 1 when it did not change.
install_config() {
  if [[ -f "$NGINX_CONF" ]] && cmp -s "$NGINX_CONF.new" "$NGINX_CONF"; then
    rm -f "$NGINX_CONF.new"
    return 1
  fi
  mv "$NGINX_CONF.new" "$NGINX_CONF"
}

do_reload() {
  local pid=$1
  nginx_cmd -c "$NGINX_CONF" -s reload 2>>"$NGINX_ERROR_LOG" || lx_fail "$NGINX_ERROR_LOG" "nginx reload failed"
  lx_ok "reloaded (pid $pid) with the new config"
}

cmd_start() {
  cmd_install
  render_config
  local pid
  if pid=$(running_pid); then
    if install_config; then do_reload "$pid"; else lx_ok "already running (pid $pid) on 127.0.0.1:$INGRESS_PORT"; fi
    report
    return 0
  fi
  install_config || true
  if lx_port_open 127.0.0.1 "$INGRESS_PORT"; then
    lx_die "port $INGRESS_PORT on 127.0.0.1 is taken by another process; set LX_INGRESS_PORT"
  fi
  rm -f "$NGINX_PID_FILE"
  touch "$NGINX_ERROR_LOG"
  lx_info "starting on 127.0.0.1:$INGRESS_PORT (config $NGINX_CONF, logs $NGINX_LOG_DIR/nginx-*.log)"
  nginx_cmd -c "$NGINX_CONF" -g 'daemon on;' 2>>"$NGINX_ERROR_LOG" || lx_fail "$NGINX_ERROR_LOG" "nginx did not start"
  wait_for_port 127.0.0.1 "$INGRESS_PORT" 15 || lx_fail "$NGINX_ERROR_LOG" "nginx started but 127.0.0.1:$INGRESS_PORT does not answer"
  pid=$(running_pid) || lx_fail "$NGINX_ERROR_LOG" "nginx answers but wrote no pid file"
  lx_ok "started (pid $pid) on 127.0.0.1:$INGRESS_PORT"
  report
}

cmd_reload() {
  local pid
  if ! pid=$(running_pid); then
    lx_info "not running; starting instead"
    cmd_start
    return
  fi
  render_config
  if install_config; then do_reload "$pid"; else lx_ok "config unchanged; nothing to reload"; fi
  report
}

cmd_stop() {
  local pid
  if ! pid=$(running_pid); then
    rm -f "$NGINX_PID_FILE"
    lx_ok "not running"
    return 0
  fi
  lx_info "stopping (pid $pid)"
  lx_stop_pid "$pid" nginx 15
  rm -f "$NGINX_PID_FILE"
  lx_ok "stopped"
}

cmd_status() {
  local pid
  if pid=$(running_pid) && lx_port_open 127.0.0.1 "$INGRESS_PORT"; then
    lx_ok "up (pid $pid) on 127.0.0.1:$INGRESS_PORT"
    printf 'BASE_URL=%s\n' "$BASE_URL"
    return 0
  fi
  lx_info "down"
  return 1
}

lx_dispatch "install start stop status reload" "$@"
