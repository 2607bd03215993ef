# shellcheck shell=bash
# Shared helpers for deploy/local/*.sh. Source it; it does not run anything by itself.
#
#   LX_REPO_ROOT   the repository root (derived from this file's location, works from any cwd)
#   LX_STATE_DIR   runtime state: data dirs, pid files, logs, the env file  (default <repo>/.infra)
#   LX_CACHE_DIR   downloaded jars and built binaries, keyed by version
#                  (default ${XDG_CACHE_HOME:-$HOME/.cache}/location-exchange)
#   LX_LOG_DIR     $LX_STATE_DIR/logs
#   LX_ENV_FILE    $LX_STATE_DIR/env: KEY=VALUE lines, sourceable by bash and readable by the test suite
#   LX_BASE_URL    http://127.0.0.1:$LX_INGRESS_PORT (default 18080): the ingress, the stack's public base URL
#   LX_BIND_ADDRESS  where PostgreSQL, Kafka and MinIO listen (default 127.0.0.1; the cluster test uses the node
#                  address 10.244.0.1 of the offline Kubernetes, which its pods reach)
#
# Messages go to stderr so that a script's stdout can carry machine-readable KEY=VALUE lines.

if [[ -n "${LX_LIB_LOADED:-}" ]]; then return 0; fi
LX_LIB_LOADED=1

LX_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
# shellcheck disable=SC2034 # used by the scripts that source this file
LX_LOCAL_DIR="$LX_REPO_ROOT/deploy/local"

lx_abspath() {
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$PWD/$1" ;;
  esac
}

LX_STATE_DIR="$(lx_abspath "${LX_STATE_DIR:-$LX_REPO_ROOT/.infra}")"
LX_BIND_ADDRESS="${LX_BIND_ADDRESS:-127.0.0.1}"
export LX_BIND_ADDRESS
LX_CACHE_DIR="$(lx_abspath "${LX_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/location-exchange}")"
LX_LOG_DIR="$LX_STATE_DIR/logs"
LX_ENV_FILE="$LX_STATE_DIR/env"
export LX_STATE_DIR LX_CACHE_DIR

# The public base URL of the local stack: the nginx ingress (nginx.sh), and the issuer of its tokens (stack.sh).
LX_INGRESS_PORT="${LX_INGRESS_PORT:-18080}"
# shellcheck disable=SC2034 # used by the scripts that source this file
LX_BASE_URL="http://127.0.0.1:$LX_INGRESS_PORT"

# The six services, in start order (auth first: the others verify its tokens), and their default local ports.
# shellcheck disable=SC2034 # used by the scripts that source this file
LX_SERVICES=(auth location-command location-query statistics-projection export-worker webhook-dispatcher)
# shellcheck disable=SC2034 # used by the scripts that source this file
declare -A LX_DEFAULT_PORT=(
  [auth]=3001 [location-command]=3002 [location-query]=3003
  [statistics-projection]=3004 [export-worker]=3005 [webhook-dispatcher]=3006
)

# lx_env_name SERVICE: the prefix of its variables, e.g. location-command -> LOCATION_COMMAND (_PORT, _HOST, _URL).
lx_env_name() {
  local upper=${1^^}
  printf '%s' "${upper//-/_}"
}

# Name shown in front of every message; each script sets its own.
LX_COMPONENT="${LX_COMPONENT:-infra}"

lx_info() { printf '[%s] %s\n' "$LX_COMPONENT" "$*" >&2; }
lx_ok() { printf '[%s] ok: %s\n' "$LX_COMPONENT" "$*" >&2; }
lx_warn() { printf '[%s] warning: %s\n' "$LX_COMPONENT" "$*" >&2; }
lx_error() { printf '[%s] error: %s\n' "$LX_COMPONENT" "$*" >&2; }
lx_die() {
  lx_error "$*"
  exit 1
}

# lx_tail_log FILE [LINES]: the end of a log, each line prefixed so that parallel output stays readable.
lx_tail_log() {
  local file=$1 lines=${2:-40}
  if [[ -s "$file" ]]; then
    printf '[%s] last %s lines of %s:\n' "$LX_COMPONENT" "$lines" "$file" >&2
    tail -n "$lines" "$file" | sed "s/^/[$LX_COMPONENT] | /" >&2
  else
    printf '[%s] (log %s is empty or missing)\n' "$LX_COMPONENT" "$file" >&2
  fi
}

# lx_rotate_log FILE [MAX_MB=50]: a server log appended to across restarts is moved to FILE.1 once it
# grows past MAX_MB, so the state dir does not fill the disk over weeks of restarts.
lx_rotate_log() {
  local file=$1 max_mb=${2:-50}
  if [[ -f "$file" ]] && (($(stat -c %s "$file") > max_mb * 1024 * 1024)); then
    mv -f "$file" "$file.1"
  fi
}

# lx_fail LOGFILE MESSAGE: report a failure with the end of the relevant log, then exit 1.
lx_fail() {
  local file=$1
  shift
  lx_error "$*"
  lx_tail_log "$file"
  exit 1
}

lx_require_cmd() {
  local c
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 || lx_die "required command '$c' not found in PATH"
  done
}

lx_ensure_dirs() {
  mkdir -p "$LX_STATE_DIR" "$LX_LOG_DIR"
}

lx_is_root() { [[ "$(id -u)" -eq 0 ]]; }

# lx_apt_install PACKAGE...: apt-get update, then install. Only root can do this.
lx_apt_install() {
  lx_is_root || lx_die "apt-get install $* needs root; install it yourself and re-run"
  lx_require_cmd apt-get
  lx_info "apt-get update"
  DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  lx_info "apt-get install -y $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >&2
}

# lx_port_open HOST PORT: true when something accepts TCP connections there.
lx_port_open() {
  local host=$1 port=$2
  # shellcheck disable=SC2016 # expanded by the inner shell
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$host" "$port" >/dev/null 2>&1
}

# wait_for_port HOST PORT [TIMEOUT_SECONDS=60] [PID]
# Polls until the port accepts connections. Fails early when PID is given and that process exits.
wait_for_port() {
  local host=$1 port=$2 timeout_s=${3:-60} pid=${4:-}
  local deadline=$((SECONDS + timeout_s))
  while ((SECONDS < deadline)); do
    if lx_port_open "$host" "$port"; then return 0; fi
    if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then return 1; fi
    sleep 0.25
  done
  lx_port_open "$host" "$port"
}

# lx_pid_from_file FILE: prints the pid when the file names a live process, else fails.
lx_pid_from_file() {
  local file=$1 pid
  [[ -s "$file" ]] || return 1
  pid=$(tr -dc '0-9' <"$file")
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  printf '%s\n' "$pid"
}

# lx_pid_matches PID TEXT: the process's command line contains TEXT (guards against recycled pids).
lx_pid_matches() {
  local pid=$1 text=$2
  [[ -r "/proc/$pid/cmdline" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$text"
}

# lx_stop_pid PID NAME [GRACE_SECONDS=30]: SIGTERM, wait, then SIGKILL.
lx_stop_pid() {
  local pid=$1 name=$2 grace=${3:-30}
  kill -TERM "$pid" 2>/dev/null || return 0
  local deadline=$((SECONDS + grace))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.25; done
  if kill -0 "$pid" 2>/dev/null; then
    lx_warn "$name (pid $pid) still running after ${grace}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
}

# Quote a value for the env file only when needed, so plain values stay dotenv-friendly.
lx_env_quote() {
  local v=$1
  if [[ "$v" =~ ^[A-Za-z0-9_./:@%+,=-]*$ ]]; then
    printf '%s' "$v"
  else
    printf "'%s'" "${v//\'/\'\\\'\'}"
  fi
}

# lx_env_set KEY VALUE [KEY VALUE]...: upsert lines in $LX_ENV_FILE, keeping every other key.
# Serialised with flock because infra.sh starts components in parallel; replaced atomically.
lx_env_set() {
  (($# % 2 == 0)) || lx_die "lx_env_set needs KEY VALUE pairs"
  lx_ensure_dirs
  local lock="$LX_STATE_DIR/.env.lock" tmp
  (
    flock -w 30 9 || lx_die "could not lock $lock"
    tmp=$(mktemp "$LX_STATE_DIR/.env.XXXXXX")
    if [[ -f "$LX_ENV_FILE" ]]; then cat "$LX_ENV_FILE" >"$tmp"; fi
    while (($# > 0)); do
      local key=$1 value=$2 line
      shift 2
      [[ "$key" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || lx_die "invalid env key '$key'"
      line="$key=$(lx_env_quote "$value")"
      if grep -q "^$key=" "$tmp"; then
        awk -v k="$key" -v l="$line" 'index($0, k "=") == 1 { print l; next } { print }' "$tmp" >"$tmp.new"
        mv "$tmp.new" "$tmp"
      else
        printf '%s\n' "$line" >>"$tmp"
      fi
    done
    # Passwords of the local infrastructure (Kafka's users, the services' database roles) are in it.
    chmod 0600 "$tmp"
    mv "$tmp" "$LX_ENV_FILE"
  ) 9>"$lock"
}

# lx_env_unset KEY...: removes the keys from $LX_ENV_FILE (under the same lock as lx_env_set).
lx_env_unset() {
  [[ -f "$LX_ENV_FILE" ]] || return 0
  local lock="$LX_STATE_DIR/.env.lock" tmp key
  (
    flock -w 30 9 || lx_die "could not lock $lock"
    tmp=$(mktemp "$LX_STATE_DIR/.env.XXXXXX")
    cp "$LX_ENV_FILE" "$tmp"
    for key in "$@"; do
      awk -v k="$key" 'index($0, k "=") != 1' "$tmp" >"$tmp.new"
      mv "$tmp.new" "$tmp"
    done
    chmod 0600 "$tmp"
    mv "$tmp" "$LX_ENV_FILE"
  ) 9>"$lock"
}

# lx_env_get KEY: the value recorded in $LX_ENV_FILE (empty when absent).
lx_env_get() {
  local key=$1
  [[ -f "$LX_ENV_FILE" ]] || return 0
  (
    set +u
    # shellcheck disable=SC1090
    source "$LX_ENV_FILE" >/dev/null 2>&1
    printf '%s\n' "${!key:-}"
  )
}

# lx_render TEMPLATE OUTPUT VAR...: copies TEMPLATE replacing @VAR@ with the value of $VAR.
# Fails when a placeholder is left over, so a template and its script cannot drift apart silently.
lx_render() {
  local template=$1 out=$2 var value content
  shift 2
  content=$(<"$template")
  for var in "$@"; do
    value=${!var}
    content=${content//"@$var@"/"$value"}
  done
  if grep -qoE '@[A-Z][A-Z0-9_]*@' <<<"$content"; then
    lx_die "unresolved placeholders in $template: $(grep -oE '@[A-Z][A-Z0-9_]*@' <<<"$content" | sort -u | tr '\n' ' ')"
  fi
  printf '%s\n' "$content" >"$out"
}

# lx_elapsed START_SECONDS: "12s" since START (bash SECONDS).
lx_elapsed() { printf '%ss' "$((SECONDS - $1))"; }

# lx_dispatch "COMMAND..." ARG...: the tail of every script here. Runs cmd_<COMMAND> (dashes as underscores) for the
# first ARG when it is one of the COMMANDs; anything else prints the usage and exits 2.
lx_dispatch() {
  local commands=$1 command=${2:-}
  if [[ -n "$command" && " $commands " == *" $command "* ]]; then
    "cmd_${command//-/_}"
    return
  fi
  echo "usage: $0 ${commands// /|}" >&2
  exit 2
}
