# shellcheck shell=bash
# Sourced by the scripts that call the running stack as clients of their own (fuzz.sh, clients.sh): an admin token,
# clients registered through POST /admin/clients, and all of them disabled when the script exits, so that a stack that
# outlives the run keeps no working credentials of it. Needs BASE_URL, ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET (from
# .infra/env) and lx_info of deploy/local/lib.sh.

: "${ADMIN_CLIENT_ID:?ADMIN_CLIENT_ID is not set (.infra/env)}"
curl() { command curl --max-time 30 "$@"; }
json_field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
token() { # client id, secret, scope
  curl -fsS -u "$1:$2" -d grant_type=client_credentials --data-urlencode "scope=$3" "$BASE_URL/oauth/token" |
    json_field access_token
}
ADMIN_TOKEN="$(token "$ADMIN_CLIENT_ID" "$ADMIN_CLIENT_SECRET" auth:admin)"
CLIENTS=()
# Registers a client of the kind with the scope, named after the script; sets CLIENT_ID and CLIENT_SECRET. Not called
# in $(…): the id must reach CLIENTS in this shell, for disable_clients at the end.
register() { # kind, scope
  local reply
  reply="$(curl -fsS -H "Authorization: Bearer $ADMIN_TOKEN" -H 'Content-Type: application/json' \
    -d "{\"name\":\"$LX_COMPONENT $1 $RANDOM$RANDOM\",\"kind\":\"$1\",\"scopes\":[\"$2\"]}" "$BASE_URL/admin/clients")"
  CLIENT_ID="$(json_field clientId <<<"$reply")"
  # shellcheck disable=SC2034 # read by the sourcing script
  CLIENT_SECRET="$(json_field clientSecret <<<"$reply")"
  CLIENTS+=("$CLIENT_ID")
}
disable_clients() {
  local id disabled=0
  for id in "${CLIENTS[@]}"; do
    curl -fsS -o /dev/null -X POST -H "Authorization: Bearer $ADMIN_TOKEN" "$BASE_URL/admin/clients/$id/disable" &&
      disabled=$((disabled + 1))
  done
  lx_info "disabled $disabled of the ${#CLIENTS[@]} clients this run registered"
}
trap disable_clients EXIT
