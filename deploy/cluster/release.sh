# shellcheck shell=bash
# Shared by deploy/cluster/test.sh and deploy/kind/test.sh (source it after deploy/local/lib.sh, once infra.sh is up).

# write_release_values FILE: the values of a test release that are not in deploy/cluster/values.yaml: where the
# external PostgreSQL, Kafka and MinIO of infra.sh listen, and secrets made up for this run. The file is written with
# mode 600 under the state folder and removed with it. Sets ADMIN_CLIENT_ID and ADMIN_CLIENT_SECRET for the tests.
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
  minio_host=$(lx_env_get MINIO_ENDPOINT_URL)
  minio_host=${minio_host#*://}
  minio_host=${minio_host%%/*}
  (
    umask 077
    cat >"$file" <<VALUES
publicBaseUrl: "$LX_BASE_URL"
kafka:
  brokers: ["$(lx_env_get KAFKA_BROKERS)"]
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
  databaseUrl: "$(lx_env_get DATABASE_URL)"
  authEncryptionKey: "$(node -e "$key")"
  webhookSecretTransportKey: "$(node -e "$key")"
  adminClientId: "$ADMIN_CLIENT_ID"
  adminClientSecret: "$ADMIN_CLIENT_SECRET"
  serviceClientId: "$(node -e "$uuid")"
  serviceClientSecret: "$(node -e "$secret")"
  minioAccessKey: "$(lx_env_get MINIO_ACCESS_KEY)"
  minioSecretKey: "$(lx_env_get MINIO_SECRET_KEY)"
VALUES
  )
}
