# shellcheck shell=bash
# NetworkPolicy enforcement for the offline cluster of .ci/cluster/test.sh (source it after deploy/local/lib.sh).
#
# The cluster's CNI (the plain bridge plugin of k8s-offline's up.sh) enforces no NetworkPolicy. kube-router's network
# policy controller does, with iptables and ipset only, which this kernel has (sigs.k8s.io/kube-network-policies needs
# nftables' queue, which it has not). It runs here as a host process in firewall-only mode: no routing, no service
# proxy, no BGP (the published advisories of v2.1.0, GHSA-phqm-jgc3-qf8g and GHSA-v5mh-h5hx-7v92, are in those parts).
# v2.1.0 is the one version the Go module proxy serves; it is test machinery here, not something the chart ships.
#
# kube-router puts its FORWARD jump first and ACCEPTs what policy allows, which would let pod traffic past up.sh's rule
# that keeps pods on the bridge; a table of its own on the forward hook at priority -10 (before iptables' filter)
# keeps that rule final whatever kube-router does.
#
#   KUBE_ROUTER_VERSION  v2.1.0;  binary cached in $LX_CACHE_DIR/kube-router-<version>/kube-router (go install once)

KUBE_ROUTER_VERSION=v2.1.0
KUBE_ROUTER_DIR="$LX_CACHE_DIR/kube-router-$KUBE_ROUTER_VERSION"
KUBE_ROUTER="$KUBE_ROUTER_DIR/kube-router"
NETPOL_GUARD_TABLE=lx-netpol-guard

# The binary, built with the Go module proxy when it is not cached (about 5 min on two cores), and ipset (apt).
netpol_enforcer_install() {
  command -v ipset >/dev/null || lx_apt_install ipset
  [[ -x "$KUBE_ROUTER" ]] && return 0
  lx_require_cmd go
  mkdir -p "$KUBE_ROUTER_DIR"
  (
    flock -w 900 9 || lx_die "timed out waiting for another kube-router build"
    [[ -x "$KUBE_ROUTER" ]] && exit 0
    lx_info "building kube-router $KUBE_ROUTER_VERSION with go install (log $KUBE_ROUTER_DIR/build.log)"
    GOBIN="$KUBE_ROUTER_DIR/bin" GOFLAGS=-mod=mod CGO_ENABLED=0 GOPATH="$KUBE_ROUTER_DIR/go" \
      GOMODCACHE="$KUBE_ROUTER_DIR/go/pkg/mod" GOCACHE="$KUBE_ROUTER_DIR/go/cache" \
      go install -ldflags "-s -w" "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@$KUBE_ROUTER_VERSION" \
      >"$KUBE_ROUTER_DIR/build.log" 2>&1 || lx_fail "$KUBE_ROUTER_DIR/build.log" "kube-router did not build"
    mv "$KUBE_ROUTER_DIR/bin/kube-router" "$KUBE_ROUTER"
    # The module and build caches are only needed to build it again.
    chmod -R u+w "${KUBE_ROUTER_DIR:?}/go" && rm -rf "${KUBE_ROUTER_DIR:?}/go" "${KUBE_ROUTER_DIR:?}/bin"
  ) 9>"$KUBE_ROUTER_DIR.lock"
}

# Starts the guard and kube-router against the cluster of $KUBECONFIG, and waits for its chains.
netpol_enforcer_start() {
  nft -f - <<NFT || lx_die "could not add the nftables guard table $NETPOL_GUARD_TABLE"
table inet $NETPOL_GUARD_TABLE {
  chain forward {
    type filter hook forward priority -10; policy accept;
    iifname "cni0" oifname != "cni0" reject with icmpx type admin-prohibited
  }
}
NFT
  local log="$LX_LOG_DIR/kube-router.log"
  mkdir -p "$LX_LOG_DIR"
  setsid "$KUBE_ROUTER" --kubeconfig="$KUBECONFIG" --hostname-override="$(hostname)" \
    --run-firewall=true --run-router=false --run-service-proxy=false --run-loadbalancer=false \
    --enable-ipv4=true --enable-ipv6=false --service-cluster-ip-range=10.96.0.0/12 --iptables-sync-period=10s \
    --health-port=0 --metrics-port=0 </dev/null >"$log" 2>&1 &
  echo $! >"$LX_STATE_DIR/kube-router.pid"
  local deadline=$((SECONDS + 60))
  until iptables -S KUBE-ROUTER-FORWARD >/dev/null 2>&1; do
    kill -0 "$(<"$LX_STATE_DIR/kube-router.pid")" 2>/dev/null || lx_fail "$log" "kube-router exited"
    ((SECONDS < deadline)) || lx_fail "$log" "kube-router set up no chains within 60 s"
    sleep 1
  done
  lx_ok "NetworkPolicies enforced by kube-router $KUBE_ROUTER_VERSION (pid $(<"$LX_STATE_DIR/kube-router.pid"), log $log)"
}

# Stops kube-router (before the cluster goes: down.sh then removes its KUBE-* chains), its ipsets and the guard.
netpol_enforcer_stop() {
  local pid
  if pid=$(lx_pid_from_file "$LX_STATE_DIR/kube-router.pid" 2>/dev/null) && lx_pid_matches "$pid" kube-router; then
    kill -TERM "$pid" 2>/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$LX_STATE_DIR/kube-router.pid"
}

netpol_enforcer_cleanup() {
  # After down.sh removed the chains that referenced them.
  if command -v ipset >/dev/null; then
    ipset list -n 2>/dev/null | grep -E '^(KUBE-(SRC|DST)-|inet6:KUBE-)' | xargs -r -n1 ipset destroy 2>/dev/null || true
  fi
  nft delete table inet "$NETPOL_GUARD_TABLE" 2>/dev/null || true
}

# Proves the enforcement on the installed release: a pod of another namespace (no policy of its own) connects to
# location-command and location-query, by Service and by pod address, and to Kafka on the node. The release's
# policies must refuse the first two; Kafka, a process of this machine outside every policy, answers at TCP level
# (so the probe's own network works) and refuses the pod at the protocol level, since it presents no login.
# Takes the namespace and release, and KAFKA_BROKERS of the infrastructure.
netpol_probe() {
  local namespace=$1 release=$2 image=$3 intruder=lx-intruder kafka
  kafka=$(lx_env_get KAFKA_BROKERS)
  # kube-router programs a pod's policy chains on its next sync after the pod appears.
  local deadline=$((SECONDS + 60))
  # (Not `iptables -S | grep -q`: grep's early exit fails the pipeline under pipefail.)
  until [[ "$(iptables -S 2>/dev/null)" == *KUBE-NWPLCY-* ]]; do
    ((SECONDS < deadline)) || lx_fail "$LX_LOG_DIR/kube-router.log" "kube-router programmed no policy within 60 s"
    sleep 1
  done
  sleep 12 # one more sync period (--iptables-sync-period=10s), so every pod of the release is in its sets
  local command_ip query_pod
  command_ip=$(kubectl get service -n "$namespace" "$release-location-exchange-location-command" -o jsonpath='{.spec.clusterIP}')
  query_pod=$(kubectl get pods -n "$namespace" -l app.kubernetes.io/component=location-query -o jsonpath='{.items[0].status.podIP}')
  kubectl create namespace "$intruder" >&2
  # shellcheck disable=SC2016 # JavaScript
  kubectl run probe -n "$intruder" --image="$image" --image-pull-policy=Never --restart=Never --command -- node -e '
    const net = require("node:net");
    const { Kafka, logLevel } = require("/app/node_modules/kafkajs");
    const tcp = (name, host, port) => new Promise((resolve) => {
      const socket = net.connect({ host, port: Number(port), timeout: 4000 });
      socket.on("connect", () => { console.log(`${name} OPEN`); socket.destroy(); resolve(); });
      socket.on("error", (error) => { console.log(`${name} BLOCKED ${error.code}`); resolve(); });
      socket.on("timeout", () => { console.log(`${name} BLOCKED timeout`); socket.destroy(); resolve(); });
    });
    (async () => {
      const [commandIp, queryPod, kafka] = process.argv.slice(1);
      await tcp("location-command-service", commandIp, 80);
      await tcp("location-query-pod", queryPod, 8080);
      const [host, port] = kafka.split(":");
      await tcp("kafka-tcp", host, port);
      const admin = new Kafka({ brokers: [kafka], clientId: "intruder", ssl: { rejectUnauthorized: false },
        logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
      try { await admin.connect(); await admin.listTopics(); console.log("kafka-anonymous ACCEPTED"); }
      catch (error) { console.log(`kafka-anonymous REFUSED ${error.name}`); }
      process.exit(0);
    })();' "$command_ip" "$query_pod" "$kafka" >&2
  kubectl wait -n "$intruder" --for=jsonpath='{.status.phase}'=Succeeded pod/probe --timeout=120s >&2 ||
    { kubectl logs -n "$intruder" probe >&2; lx_die "the probe pod did not finish"; }
  local out
  out=$(kubectl logs -n "$intruder" probe)
  printf '%s\n' "$out" | sed 's/^/  probe: /' >&2
  kubectl delete namespace "$intruder" --wait=false >&2
  grep -q '^location-command-service BLOCKED' <<<"$out" || lx_die "a pod of another namespace reached location-command"
  grep -q '^location-query-pod BLOCKED' <<<"$out" || lx_die "a pod of another namespace reached a location-query pod"
  grep -q '^kafka-tcp OPEN' <<<"$out" || lx_die "the probe pod reached nothing at all (Kafka's port): its result proves nothing"
  grep -q '^kafka-anonymous REFUSED' <<<"$out" || lx_die "Kafka let a pod without a login in"
}
