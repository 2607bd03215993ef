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
