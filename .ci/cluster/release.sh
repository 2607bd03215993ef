# shellcheck shell=bash
# Shared by .ci/cluster/test.sh and .ci/kind/test.sh (source it after deploy/local/lib.sh, once infra.sh is up):
# write_release_values, and monitoring_crds (at the end).

# write_release_values FILE: the values of a test release that are not in .ci/cluster/values.yaml: where the
# external PostgreSQL, Kafka and MinIO of infra.sh listen, the Kafka logins and CA of infra.sh (with the services' ACLs
# granted for the release's topic prefix), and secrets made up for this run. The file is written with
# mode 600 under the state folder and removed with it. Sets ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET for the tests.
RELEASE_TOPIC_PREFIX=lx-cluster

write_release_values() {
  local file=$1
  local uuid='process.stdout.write(require("crypto").randomUUID())'
  local secret='process.stdout.write(require("crypto").randomBytes(32).toString("base64url"))'
  local key='process.stdout.write(require("crypto").randomBytes(32).toString("base64"))'
  ADMIN_CLIENT_ID=$(node -e "$uuid")
  ADMIN_CLIENT_SECRET=$(node -e "$secret")
  # The ports infra.sh listens on, for the NetworkPolicies: host:port of the broker, of the database URL and of MinIO.
  local brokers database_host minio_host
  brokers=$(lx_env_get KAFKA_BROKERS)
  database_host=$(lx_env_get DATABASE_URL)
  database_host=${database_host#*@}
  database_host=${database_host%%/*}
  # Each service's own login on infra.sh's PostgreSQL: a role named after its schema, with a password made up for
  # this run; the superuser's URL is the administrator's, which only the migration Job gets.
  local name database_urls="" admin_url
  admin_url=$(lx_env_get DATABASE_URL)
  for name in "${LX_SERVICES[@]}"; do
    database_urls+="  $(node -e 'process.stdout.write(process.argv[1].replace(/-(.)/g, (_, c) => c.toUpperCase()))' "$name")DatabaseUrl: \"$(
      node -e 'const u = new URL(process.argv[1]); u.username = process.argv[2]; u.password = process.argv[3];
        process.stdout.write(u.href)' "$admin_url" "${name//-/_}" "$(node -e "$secret")")\""$'\n'
  done
  minio_host=$(lx_env_get MINIO_ENDPOINT_URL)
  minio_host=${minio_host#*://}
  minio_host=${minio_host%%/*}
  # The Kafka of infra.sh: TLS with its own CA, and a SCRAM user per service, whose ACLs are granted here for the
  # release's topic prefix (deploy/local/kafka-acls.ts, with the admin's login of the env file).
  local kafka_ca ca_file
  ca_file=$(lx_env_get KAFKA_TLS_CA_FILE)
  [[ -r "$ca_file" ]] || lx_die "no readable KAFKA_TLS_CA_FILE in $LX_ENV_FILE: the release needs the Kafka of deploy/local/kafka.sh"
  kafka_ca=$(sed 's/^/      /' "$ca_file")
  (
    set -a
    # shellcheck disable=SC1090
    source "$LX_ENV_FILE"
    set +a
    cd "$LX_REPO_ROOT"
    KAFKA_TOPIC_PREFIX=$RELEASE_TOPIC_PREFIX node -r ./libs/testing/register-swc.js deploy/local/kafka-acls.ts
  ) || lx_die "could not grant the release's Kafka ACLs"
  (
    umask 077
    cat >"$file" <<VALUES
publicBaseUrl: "$LX_BASE_URL"
kafka:
  brokers: ["$(lx_env_get KAFKA_BROKERS)"]
  # As a release beside others on one Kafka cluster runs: the system suite and the upgrade go through prefixed topics
  # and consumer groups.
  topicPrefix: "$RELEASE_TOPIC_PREFIX"
  tls:
    ca: |
$kafka_ca
objectStorage:
  endpoint: "$(lx_env_get MINIO_ENDPOINT_URL)"
  publicEndpoint: "$(lx_env_get MINIO_ENDPOINT_URL)"
  bucket: "$(lx_env_get MINIO_BUCKET)"
networkPolicy:
  # PostgreSQL, Kafka and MinIO of infra.sh, and the system suite's RSP receivers, all on this machine's address.
  postgresql:
    to: [{ ipBlock: { cidr: "$LX_BIND_ADDRESS/32" } }]
    ports: [{ port: ${database_host##*:}, protocol: TCP }]
  kafka:
    to: [{ ipBlock: { cidr: "$LX_BIND_ADDRESS/32" } }]
    ports: [{ port: ${brokers##*:}, protocol: TCP }]
  objectStorage:
    to: [{ ipBlock: { cidr: "$LX_BIND_ADDRESS/32" } }]
    ports: [{ port: ${minio_host##*:}, protocol: TCP }]
  webhooks:
    extraTo: [{ ipBlock: { cidr: "$LX_BIND_ADDRESS/32" } }]
secrets:
  databaseUrl: "$admin_url"
${database_urls}  # The CA of the server certificate infra.sh's PostgreSQL made for this address (.ci/cluster/values.yaml: verify-full).
  databaseSslCa: |
$(sed 's/^/    /' "$(lx_env_get LX_PG_CA_FILE)")
  authEncryptionKey: "$(node -e "$key")"
  webhookSecretTransportKey: "$(node -e "$key")"
  adminClientId: "$ADMIN_CLIENT_ID"
  adminClientSecret: "$ADMIN_CLIENT_SECRET"
  serviceClientId: "$(node -e "$uuid")"
  serviceClientSecret: "$(node -e "$secret")"
  # export-worker's own MinIO user that deploy/local/minio.sh made (its bucket's objects only), not the root user.
  minioAccessKey: "$(lx_env_get MINIO_ACCESS_KEY)"
  minioSecretKey: "$(lx_env_get MINIO_SECRET_KEY)"
  kafkaPasswordAuth: "$(lx_env_get KAFKA_SASL_PASSWORD_AUTH)"
  kafkaPasswordLocationCommand: "$(lx_env_get KAFKA_SASL_PASSWORD_LOCATION_COMMAND)"
  kafkaPasswordLocationQuery: "$(lx_env_get KAFKA_SASL_PASSWORD_LOCATION_QUERY)"
  kafkaPasswordStatisticsProjection: "$(lx_env_get KAFKA_SASL_PASSWORD_STATISTICS_PROJECTION)"
  kafkaPasswordExportWorker: "$(lx_env_get KAFKA_SASL_PASSWORD_EXPORT_WORKER)"
  kafkaPasswordWebhookDispatcher: "$(lx_env_get KAFKA_SASL_PASSWORD_WEBHOOK_DISPATCHER)"
VALUES
  )
}

# The Prometheus operator's CRDs of PodMonitor and PrometheusRule (.ci/helm/prometheus/tools.sh), created where
# the cluster has none yet: ci/full-values.yaml and the test release (values.yaml) render both kinds. No operator
# runs in the test clusters; the API server checks the objects against the CRDs' schemas.
monitoring_crds() {
  local crds file name
  crds=$(bash "$LX_REPO_ROOT/.ci/helm/prometheus/tools.sh" crds) || lx_die "the Prometheus operator's CRDs could not be fetched"
  for file in "$crds"/monitoring.coreos.com_*.yaml; do
    name="$(basename "$file" .yaml | sed -E 's/^monitoring\.coreos\.com_(.*)$/\1/').monitoring.coreos.com"
    if ! kubectl get crd "$name" >/dev/null 2>&1; then
      kubectl create -f "$file" >&2
      kubectl wait --for=condition=Established --timeout=60s "crd/$name" >&2
    fi
  done
}
