#!/usr/bin/env bash
# Property-based fuzzing of the whole public API with schemathesis, against the running stack at $BASE_URL, over every
# operation of the document it serves: once with an RSP token, once with an operator token, once with no token.
# Fails on a 5xx, a status, header, content type or body the document does not state, an error body out of the
# spec's shape, and the other checks listed in CHECKS. Needs the stack (npm run stack:up) and .infra/env.
#
#   LX_FUZZ_MAX_EXAMPLES   examples per operation and phase (default 15)
#   LX_FUZZ_SEED           the random seed (default 1, so a CI run is repeatable); `random` explores new inputs
#   LX_FUZZ_TIME_LIMIT     seconds the whole run may take, from its start to the end of the last pass, a first
#                          install of schemathesis included (default 600: ten minutes); a run that reaches it is
#                          stopped and FAILS, naming the limit
set -euo pipefail
LX_COMPONENT=fuzz
source "$(dirname "${BASH_SOURCE[0]}")/../../deploy/local/lib.sh"
cd "$LX_REPO_ROOT"

TIME_LIMIT="${LX_FUZZ_TIME_LIMIT:-600}"
[[ "$TIME_LIMIT" =~ ^[1-9][0-9]*$ ]] || lx_die "LX_FUZZ_TIME_LIMIT must be a whole number of seconds, not '$TIME_LIMIT'"
DEADLINE=$((SECONDS + TIME_LIMIT))
time_limit_exceeded() { # what was cut short
  lx_die "time limit exceeded: $1 did not finish within LX_FUZZ_TIME_LIMIT=${TIME_LIMIT}s for the whole fuzzing run" \
    "(stopped; the run fails, it is not a pass)"
}
# within_time_limit WHAT COMMAND...: runs COMMAND with what is left of the run's time limit; when it runs out, COMMAND
# gets TERM (KILL 10 s later) and the run fails naming the limit. --foreground keeps COMMAND in this script's process
# group, so Ctrl-C still reaches it (schemathesis starts no child processes that would escape the limit).
within_time_limit() {
  local what="$1" left=$((DEADLINE - SECONDS)) rc=0
  shift
  ((left > 0)) || time_limit_exceeded "$what"
  timeout --foreground --kill-after=10 "$left" "$@" || rc=$?
  # 124: stopped by TERM at the limit; 137: by KILL after it (any other exit status is the command's own).
  if ((rc == 124 || (rc == 137 && SECONDS >= DEADLINE))); then time_limit_exceeded "$what"; fi
  return "$rc"
}
# The requests around the passes (the document, tokens, client registration and disabling) are bounded one by one.
if [[ -z "${BASE_URL:-}" && -f .infra/env ]]; then set -a; . .infra/env; set +a; fi
: "${BASE_URL:?BASE_URL is not set: start the stack (npm run stack:up) or set it}"
# shellcheck source=.ci/openapi/admin-clients.sh
source "$(dirname "${BASH_SOURCE[0]}")/admin-clients.sh"

SCHEMATHESIS_VERSION=4.32.5
VENV="$LX_CACHE_DIR/schemathesis-$SCHEMATHESIS_VERSION"
# A venv cannot move (its scripts name their interpreter's path), so a marker says the install finished.
if [[ ! -f "$VENV/.installed" ]]; then
  lx_info "installing schemathesis $SCHEMATHESIS_VERSION into $VENV (PyPI)"
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  within_time_limit "installing schemathesis" \
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
  touch "$VENV/.installed"
fi

REPORTS="$LX_REPO_ROOT/reports/fuzz"
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
curl -fsS "$BASE_URL/openapi.json" -o "$REPORTS/openapi.json"

register RSP locations:read
RSP_TOKEN="$(token "$CLIENT_ID" "$CLIENT_SECRET" locations:read)"
register OPERATOR locations:write
OPERATOR_TOKEN="$(token "$CLIENT_ID" "$CLIENT_SECRET" locations:write)"

# Every check but positive_data_acceptance (a schema cannot state that a group id names an existing group, that
# modifiedSince comes before modifiedBefore, or that If-Match names the current version, so valid-looking requests
# are refused by design) and the stateful ones that need links between operations.
CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,negative_data_rejection,missing_required_header,unsupported_method,ignored_auth
# Each pass runs within what is left of LX_FUZZ_TIME_LIMIT (within_time_limit): schemathesis's own --max-time is a
# budget that fuzzing repeats until it is spent, not a limit that fails the run.
# One worker: hypothesis describes its strategies by parsing source with the ast module, which CPython 3.11 does not
# do safely from several threads at once (SystemError: AST constructor recursion depth mismatch).
run() { # name, extra arguments...
  local name="$1"
  shift
  lx_info "$name ($((DEADLINE - SECONDS)) s left of LX_FUZZ_TIME_LIMIT=${TIME_LIMIT}s)"
  PYTHONPATH="$LX_REPO_ROOT/.ci/openapi" SCHEMATHESIS_HOOKS=fuzz_hooks \
    within_time_limit "the schemathesis pass '$name'" \
    "$VENV/bin/st" --config-file .ci/openapi/schemathesis.toml run "$REPORTS/openapi.json" --url "$BASE_URL" \
    --checks "$CHECKS" \
    --phases examples,coverage,fuzzing \
    --max-examples "${LX_FUZZ_MAX_EXAMPLES:-15}" \
    "${SEED_ARGUMENTS[@]}" \
    --workers 1 \
    --request-timeout 30 \
    --no-color \
    --report junit --report-dir "$REPORTS/$name" \
    "$@"
}
SEED_ARGUMENTS=()
if [[ "${LX_FUZZ_SEED:-1}" != random ]]; then SEED_ARGUMENTS=(--seed "${LX_FUZZ_SEED:-1}"); fi
status=0
run rsp-token -H "Authorization: Bearer $RSP_TOKEN" || status=1
run operator-token -H "Authorization: Bearer $OPERATOR_TOKEN" || status=1
run no-token || status=1
((status == 0)) && lx_ok "no failure over every operation, with an RSP token, an operator token and none," \
  "in ${SECONDS}s (limit ${TIME_LIMIT}s)"
exit "$status"
