{{/*
The six services, in migration order: the values key of each one's block and the service name (the image's first
argument, the Kubernetes component label and the suffix of its resources' names). Every per-service template ranges
over this list, so the kinds cannot drift apart between services.
*/}}
{{- define "location-exchange.services" -}}
- key: auth
  name: auth
- key: locationCommand
  name: location-command
- key: locationQuery
  name: location-query
- key: statisticsProjection
  name: statistics-projection
- key: exportWorker
  name: export-worker
- key: webhookDispatcher
  name: webhook-dispatcher
{{- end }}

{{/*
NetworkPolicies (templates/networkpolicy.yaml): which of the release's pods call each service on its HTTP port (tokens
and JWKS from auth; the export worker's snapshot, fence, group and count reads; the smoke test's health checks and
reads), and where each pod of the release may connect: postgresql, kafka and objectStorage are networkPolicy.* values,
webhooks the RSP endpoints, any other name the release's service of that name.
*/}}
{{- define "location-exchange.callers" -}}
auth: [location-command, location-query, statistics-projection, export-worker, webhook-dispatcher, smoke-test]
location-command: [export-worker, smoke-test]
location-query: [export-worker, smoke-test]
statistics-projection: [export-worker, smoke-test]
export-worker: [smoke-test]
webhook-dispatcher: [smoke-test]
{{- end }}

{{- define "location-exchange.egress" -}}
auth: [postgresql, kafka]
location-command: [postgresql, kafka, auth]
location-query: [postgresql, kafka, auth]
statistics-projection: [postgresql, kafka, auth]
export-worker: [postgresql, kafka, objectStorage, auth, location-query, location-command, statistics-projection]
webhook-dispatcher: [postgresql, kafka, auth, webhooks]
migrations: [postgresql]
smoke-test: [auth, location-command, location-query, statistics-projection, export-worker, webhook-dispatcher]
{{- end }}

{{/*
The keys of the chart's Secret (or of secrets.existingSecret), the value under secrets.* that fills each, and what it
is. Every key is required, except DATABASE_URL without migrations.provisionRoles and DATABASE_SSL_CA without
database.sslCaFromSecret (location-exchange.optionalSecretKeys).
*/}}
{{- define "location-exchange.secretKeys" -}}
- key: DATABASE_URL
  value: databaseUrl
  about: the administrator's PostgreSQL login (postgres://user:password@host:5432/database), a superuser or the role that owns the schemas so far; only the migration Job gets it, to make each service's role the owner of its schema
- key: AUTH_DATABASE_URL
  value: authDatabaseUrl
  about: auth's own PostgreSQL login (postgres://auth:password@host:5432/database), a user no other service logs in as
- key: LOCATION_COMMAND_DATABASE_URL
  value: locationCommandDatabaseUrl
  about: location-command's own PostgreSQL login, a user no other service logs in as
- key: LOCATION_QUERY_DATABASE_URL
  value: locationQueryDatabaseUrl
  about: location-query's own PostgreSQL login, a user no other service logs in as
- key: STATISTICS_PROJECTION_DATABASE_URL
  value: statisticsProjectionDatabaseUrl
  about: statistics-projection's own PostgreSQL login, a user no other service logs in as
- key: EXPORT_WORKER_DATABASE_URL
  value: exportWorkerDatabaseUrl
  about: export-worker's own PostgreSQL login, a user no other service logs in as
- key: WEBHOOK_DISPATCHER_DATABASE_URL
  value: webhookDispatcherDatabaseUrl
  about: webhook-dispatcher's own PostgreSQL login, a user no other service logs in as
- key: DATABASE_SSL_CA
  value: databaseSslCa
  about: the PEM certificate of the CA that PostgreSQL's server certificate chains to (database.sslCaFromSecret)
- key: AUTH_ENCRYPTION_KEY
  value: authEncryptionKey
  about: 32 random bytes, base64 (openssl rand -base64 32); seals signing keys and webhook secrets at rest
- key: WEBHOOK_SECRET_TRANSPORT_KEY
  value: webhookSecretTransportKey
  about: 32 random bytes, base64, different from AUTH_ENCRYPTION_KEY; seals webhook secrets into client events
- key: ADMIN_CLIENT_ID
  value: adminClientId
  about: UUID of the first admin client, which auth creates at its first start
- key: ADMIN_CLIENT_SECRET
  value: adminClientSecret
  about: the first admin client's secret, at least 32 characters
- key: SERVICE_CLIENT_ID
  value: serviceClientId
  about: UUID of the internal services' client (kind SERVICE, scopes locations:read and locations:internal) that auth creates and export-worker uses
- key: SERVICE_CLIENT_SECRET
  value: serviceClientSecret
  about: the internal services' client secret, at least 32 characters
- key: MINIO_ACCESS_KEY
  value: minioAccessKey
  about: access key of the S3/MinIO bucket of exports
- key: MINIO_SECRET_KEY
  value: minioSecretKey
  about: secret key of the S3/MinIO bucket of exports
{{- if .Values.kafka.sasl.enabled }}
{{- range (include "location-exchange.services" . | fromYamlArray) }}
- key: {{ include "location-exchange.kafkaPasswordKey" .name }}
  value: kafkaPassword{{ title .key }}
  about: the Kafka password of {{ .name }}'s user (kafka.sasl.users.{{ .key }})
{{- end }}
{{- end }}
{{- end }}

{{/* The Secret key of one service's Kafka password: KAFKA_SASL_PASSWORD_<SERVICE>. Takes the service's name. */}}
{{- define "location-exchange.kafkaPasswordKey" -}}
KAFKA_SASL_PASSWORD_{{ . | upper | replace "-" "_" }}
{{- end }}

{{/* Where the pods find the CA of the brokers' certificates (kafka.tls.ca), mounted from the chart's ConfigMap. */}}
{{- define "location-exchange.kafkaCaDir" -}}
/etc/location-exchange/kafka-ca
{{- end }}

{{/* The Secret keys that only some settings require (see location-exchange.secretKeys). */}}
{{- define "location-exchange.optionalSecretKeys" -}}
{{- $optional := list }}
{{- if not .Values.migrations.provisionRoles }}{{ $optional = append $optional "DATABASE_URL" }}{{ end }}
{{- if not .Values.database.sslCaFromSecret }}{{ $optional = append $optional "DATABASE_SSL_CA" }}{{ end }}
{{- toYaml $optional }}
{{- end }}

{{/*
Which Secret keys each service gets, under which environment variable: only those it needs (least privilege, as
deploy/local/stack.sh hands them out). Each service's DATABASE_URL is its own login; the administrator's login
(the key DATABASE_URL) goes to the migration Job alone (migrate-job.yaml).
*/}}
{{- define "location-exchange.secretEnv" -}}
auth:
  - { env: DATABASE_URL, key: AUTH_DATABASE_URL }
  - { env: AUTH_ENCRYPTION_KEY, key: AUTH_ENCRYPTION_KEY }
  - { env: WEBHOOK_SECRET_TRANSPORT_KEY, key: WEBHOOK_SECRET_TRANSPORT_KEY }
  - { env: ADMIN_BOOTSTRAP_CLIENT_ID, key: ADMIN_CLIENT_ID }
  - { env: ADMIN_BOOTSTRAP_CLIENT_SECRET, key: ADMIN_CLIENT_SECRET }
  - { env: SERVICE_BOOTSTRAP_CLIENT_ID, key: SERVICE_CLIENT_ID }
  - { env: SERVICE_BOOTSTRAP_CLIENT_SECRET, key: SERVICE_CLIENT_SECRET }
location-command:
  - { env: DATABASE_URL, key: LOCATION_COMMAND_DATABASE_URL }
location-query:
  - { env: DATABASE_URL, key: LOCATION_QUERY_DATABASE_URL }
statistics-projection:
  - { env: DATABASE_URL, key: STATISTICS_PROJECTION_DATABASE_URL }
export-worker:
  - { env: DATABASE_URL, key: EXPORT_WORKER_DATABASE_URL }
  - { env: MINIO_ACCESS_KEY, key: MINIO_ACCESS_KEY }
  - { env: MINIO_SECRET_KEY, key: MINIO_SECRET_KEY }
  - { env: SERVICE_CLIENT_ID, key: SERVICE_CLIENT_ID }
  - { env: SERVICE_CLIENT_SECRET, key: SERVICE_CLIENT_SECRET }
webhook-dispatcher:
  - { env: DATABASE_URL, key: WEBHOOK_DISPATCHER_DATABASE_URL }
  - { env: WEBHOOK_SECRET_TRANSPORT_KEY, key: WEBHOOK_SECRET_TRANSPORT_KEY }
{{- end }}

{{/* secretEnv with each service's own Kafka password (KAFKA_SASL_PASSWORD) when kafka.sasl is enabled. */}}
{{- define "location-exchange.serviceSecretEnv" -}}
{{- $env := include "location-exchange.secretEnv" . | fromYaml }}
{{- if .Values.kafka.sasl.enabled }}
{{- range (include "location-exchange.services" . | fromYamlArray) }}
{{- $password := dict "env" "KAFKA_SASL_PASSWORD" "key" (include "location-exchange.kafkaPasswordKey" .name) }}
{{- $_ := set $env .name (append (index $env .name) $password) }}
{{- end }}
{{- end }}
{{- toYaml $env }}
{{- end }}

{{/* The port every service listens on in its container (HTTP_PORT); its Service maps port 80 to it. */}}
{{- define "location-exchange.containerPort" -}}
8080
{{- end }}

{{/* Expand the name of the chart. */}}
{{- define "location-exchange.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
A default fully qualified app name, truncated so that "<fullname>-statistics-projection" (the longest resource name)
stays within the 63 characters of a DNS label.
If release name contains chart name it will be used as a full name.
*/}}
{{- define "location-exchange.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 41 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 41 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 41 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Create chart name and version as used by the chart label. */}}
{{- define "location-exchange.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The name of one service's resources: <fullname>-<service>. Takes (dict "root" $ "service" "<name>"). */}}
{{- define "location-exchange.serviceFullname" -}}
{{- printf "%s-%s" (include "location-exchange.fullname" .root) .service }}
{{- end }}

{{/* Common labels. Takes (dict "root" $ "component" "<service>"); component may be empty. */}}
{{- define "location-exchange.labels" -}}
helm.sh/chart: {{ include "location-exchange.chart" .root }}
{{ include "location-exchange.selectorLabels" . }}
{{- if .root.Chart.AppVersion }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: location-exchange
{{- end }}

{{/* Selector labels. Takes (dict "root" $ "component" "<service>"); component may be empty. */}}
{{- define "location-exchange.selectorLabels" -}}
app.kubernetes.io/name: {{ include "location-exchange.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end }}

{{/* The ServiceAccount of one service. Takes (dict "root" $ "service" "<name>" "values" <service block>). */}}
{{- define "location-exchange.serviceAccountName" -}}
{{- if .values.serviceAccount.create }}
{{- default (include "location-exchange.serviceFullname" .) .values.serviceAccount.name }}
{{- else }}
{{- default "default" .values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The image reference: each of registry, repository, tag, digest and pullPolicy from the service's block when set, else
from global.image; the tag falls back to the chart's appVersion; a digest replaces the tag (<repository>@sha256:…),
global.image.digest only for a service that sets none of its own repository, tag and digest.
Takes (dict "root" $ "image" <image block or empty>).
*/}}
{{- define "location-exchange.image" -}}
{{- $global := .root.Values.global.image }}
{{- $image := .image | default dict }}
{{- $registry := $image.registry | default $global.registry }}
{{- $repository := $image.repository | default $global.repository }}
{{- $name := ternary (printf "%s/%s" $registry $repository) $repository (ne ($registry | toString) "") }}
{{- /* global.image.digest names global.image's image: not for a service that sets its own repository or tag. */}}
{{- $digest := $image.digest }}
{{- if not (or $digest $image.repository $image.tag) }}
{{- $digest = $global.digest }}
{{- end }}
{{- with $digest }}
{{- printf "%s@%s" $name . }}
{{- else }}
{{- printf "%s:%s" $name ($image.tag | default $global.tag | default $.root.Chart.AppVersion | toString) }}
{{- end }}
{{- end }}

{{/*
A memory quantity of Kubernetes (bytes, with one of the suffixes Ki Mi Gi Ti Pi Ei k M G T P E, or in e-notation;
decimals allowed) in MiB, a float. Fails on anything else, naming `where`. Takes (dict "quantity" <quantity> "where"
"<values path>").
*/}}
{{- define "location-exchange.mebibytes" -}}
{{- $quantity := .quantity }}
{{- if or (kindIs "float64" $quantity) (kindIs "int" $quantity) (kindIs "int64" $quantity) }}
{{- divf (float64 $quantity) 1048576 }}
{{- else }}
{{- $text := toString $quantity }}
{{- if regexMatch "^[0-9]+(\\.[0-9]+)?[eE][+]?[0-9]+$" $text }}
{{- divf (float64 $text) 1048576 }}
{{- else }}
{{- if not (regexMatch "^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$" $text) }}
{{- fail (printf "%s %q is not a memory quantity (bytes, or a number with Ki, Mi, Gi, Ti, Pi, Ei, k, M, G, T, P or E)" .where $text) }}
{{- end }}
{{- $unit := regexReplaceAll "^[0-9.]+" $text "" }}
{{- $number := float64 (regexReplaceAll "[A-Za-z]+$" $text "") }}
{{- $bytes := dict "" 1.0 "Ki" 1024.0 "Mi" 1048576.0 "Gi" 1073741824.0 "Ti" 1099511627776.0 "Pi" 1125899906842624.0 "Ei" 1152921504606846976.0 "k" 1000.0 "M" 1000000.0 "G" 1000000000.0 "T" 1000000000000.0 "P" 1000000000000000.0 "E" 1000000000000000000.0 }}
{{- divf (mulf $number (index $bytes $unit)) 1048576 }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Node's and glibc's memory settings of one service (docs/operations.md, Memory), sized from its memory limit when
memory.auto: the old generation heapRatio of the limit, the young generation's semi-spaces semiSpaceMb, two malloc
arenas and a fixed mmap threshold. A dict of environment variables; empty without a memory limit; fails when the
limit leaves V8 less than 64 MiB. Takes (dict "service" "<name>" "values" <service block>).
*/}}
{{- define "location-exchange.memoryEnv" -}}
{{- $memory := .values.memory }}
{{- $limit := dig "limits" "memory" "" .values.resources }}
{{- if and $memory.auto $limit }}
{{- $where := printf "%s.resources.limits.memory" (.service | camelcase | untitle) }}
{{- $mib := include "location-exchange.mebibytes" (dict "quantity" $limit "where" $where) | float64 }}
{{- $heap := floor (mulf $mib $memory.heapRatio) | int }}
{{- if lt $heap 64 }}
{{- fail (printf "%s %v with memory.heapRatio %v leaves V8 a heap of %d MiB: give at least 64 (or memory.auto false)" $where $limit $memory.heapRatio $heap) }}
{{- end }}
{{- toYaml (dict
  "NODE_OPTIONS" (printf "--max-old-space-size=%d --max-semi-space-size=%d" $heap (int $memory.semiSpaceMb))
  "MALLOC_ARENA_MAX" "2"
  "MALLOC_MMAP_THRESHOLD_" "1048576") }}
{{- end }}
{{- end }}

{{- define "location-exchange.imagePullPolicy" -}}
{{- $image := .image | default dict }}
{{- $image.pullPolicy | default .root.Values.global.image.pullPolicy }}
{{- end }}

{{/* The Secret that holds the keys of location-exchange.secretKeys. */}}
{{- define "location-exchange.secretName" -}}
{{- .Values.secrets.existingSecret | default (include "location-exchange.fullname" .) }}
{{- end }}

{{/*
The Secret the migration hook reads: a hook-made copy of the chart's Secret (see migrate-secret.yaml), or
secrets.existingSecret, which exists before the release.
*/}}
{{- define "location-exchange.migrateSecretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-migrate" (include "location-exchange.fullname" .)) }}
{{- end }}

{{/* The chart-made Secret's data, base64-encoded. Also hashed into the pods' checksum annotation. */}}
{{- define "location-exchange.secretData" -}}
{{- range (include "location-exchange.secretKeys" . | fromYamlArray) }}
{{ .key }}: {{ index $.Values.secrets .value | toString | b64enc | quote }}
{{- end }}
{{- end }}

{{/* In-cluster base URL of one service's Service. Takes (dict "root" $ "service" "<name>"). */}}
{{- define "location-exchange.serviceUrl" -}}
{{- printf "http://%s" (include "location-exchange.serviceFullname" .) }}
{{- end }}

{{/*
The plain (non-secret) environment of one service: the wiring deploy/local/stack.sh does, then the service's `env`
map on top. Takes (dict "root" $ "service" "<name>" "values" <service block>); returns a YAML map.
*/}}
{{- define "location-exchange.plainEnv" -}}
{{- $root := .root }}
{{- $auth := include "location-exchange.serviceUrl" (dict "root" $root "service" "auth") }}
{{- $env := dict
  "HTTP_PORT" (include "location-exchange.containerPort" $root)
  "HTTP_HOST" "0.0.0.0"
  "LOG_LEVEL" $root.Values.logLevel
  "DATABASE_MIGRATE_ON_BOOT" "false"
  "KAFKA_BROKERS" (join "," $root.Values.kafka.brokers)
  "KAFKA_REPLICATION_FACTOR" (toString $root.Values.kafka.replicationFactor)
  "KAFKA_MIN_INSYNC_REPLICAS" (toString $root.Values.kafka.minInsyncReplicas)
  "AUTH_JWKS_URL" (printf "%s/.well-known/jwks.json" $auth)
  "AUTH_ISSUER" (trimSuffix "/" $root.Values.publicBaseUrl)
  "HTTP_TRUSTED_PROXIES" (join "," $root.Values.trustedProxies)
}}
{{- with $root.Values.database.sslMode }}
{{- $_ := set $env "DATABASE_SSL_MODE" . }}
{{- end }}
{{- if $root.Values.database.sslCaFromSecret }}
{{- $_ := set $env "DATABASE_SSL_CA_FILE" (include "location-exchange.databaseCaFile" $root) }}
{{- end }}
{{- with $root.Values.acceptedIssuers }}
{{- $_ := set $env "AUTH_ACCEPTED_ISSUERS" (join "," .) }}
{{- end }}
{{- if and $root.Values.rateLimits (has .service (list "location-query" "statistics-projection")) }}
{{- $limits := list }}
{{- range $kind, $limit := $root.Values.rateLimits }}
{{- $limits = append $limits (printf "%s=%s" $kind $limit) }}
{{- end }}
{{- $_ := set $env "RATE_LIMITS" (join "," $limits) }}
{{- end }}
{{- with $root.Values.kafka.topicPrefix }}
{{- $_ := set $env "KAFKA_TOPIC_PREFIX" . }}
{{- end }}
{{- with $root.Values.tracing }}
{{- if .otlpEndpoint }}
{{- $_ := set $env "OTEL_EXPORTER_OTLP_ENDPOINT" .otlpEndpoint }}
{{- $_ := set $env "OTEL_EXPORTER_OTLP_PROTOCOL" .protocol }}
{{- $_ := set $env "OTEL_TRACES_SAMPLER" .sampler }}
{{- with .samplerArg }}
{{- $_ := set $env "OTEL_TRACES_SAMPLER_ARG" (toString .) }}
{{- end }}
{{- end }}
{{- end }}
{{- $kafka := $root.Values.kafka }}
{{- $_ := set $env "KAFKA_TLS" (toString $kafka.tls.enabled) }}
{{- if include "location-exchange.kafkaCa" $root }}
{{- $_ := set $env "KAFKA_TLS_CA_FILE" (printf "%s/ca.pem" (include "location-exchange.kafkaCaDir" $root)) }}
{{- end }}
{{- if $kafka.sasl.enabled }}
{{- $_ := set $env "KAFKA_SASL_MECHANISM" $kafka.sasl.mechanism }}
{{- range (include "location-exchange.services" $root | fromYamlArray) }}
{{- if eq .name $.service }}
{{- $_ := set $env "KAFKA_SASL_USERNAME" (index $kafka.sasl.users .key) }}
{{- end }}
{{- end }}
{{- end }}
{{- if eq .service "export-worker" }}
{{- $storage := $root.Values.objectStorage }}
{{- $_ := set $env "MINIO_ENDPOINT_URL" $storage.endpoint }}
{{- $_ := set $env "MINIO_PUBLIC_ENDPOINT_URL" ($storage.publicEndpoint | default $storage.endpoint) }}
{{- $_ := set $env "MINIO_BUCKET" $storage.bucket }}
{{- $_ := set $env "MINIO_REGION" $storage.region }}
{{- $_ := set $env "AUTH_TOKEN_URL" (printf "%s/oauth/token" $auth) }}
{{- $_ := set $env "LOCATION_QUERY_URL" (include "location-exchange.serviceUrl" (dict "root" $root "service" "location-query")) }}
{{- $_ := set $env "LOCATION_COMMAND_URL" (include "location-exchange.serviceUrl" (dict "root" $root "service" "location-command")) }}
{{- $_ := set $env "STATISTICS_URL" (include "location-exchange.serviceUrl" (dict "root" $root "service" "statistics-projection")) }}
{{- end }}
{{- if eq .service "webhook-dispatcher" }}
{{- $_ := set $env "WEBHOOK_ALLOWED_ADDRESS_KINDS" (join "," $root.Values.webhooks.allowedAddressKinds) }}
{{- end }}
{{- if .sizeMemory }}
{{- range $name, $value := (include "location-exchange.memoryEnv" (dict "service" .service "values" .values) | fromYaml) }}
{{- $_ := set $env $name $value }}
{{- end }}
{{- end }}
{{- range $name, $value := .values.env }}
{{- $_ := set $env $name (toString $value) }}
{{- end }}
{{- toYaml $env }}
{{- end }}

{{/*
The container environment of one service, shared by its Deployment and its migration initContainer so both see the
same configuration (`migrate` validates the service's whole configuration): plain variables, the Secret keys the
service needs, then extraEnvVars (which win over both). Takes (dict "root" $ "service" "<name>" "values" <service
block> "secretName" "<Secret>" "sizeMemory" <bool>); sizeMemory (the Deployment's) adds memoryEnv, sized from the
service container's own limit, not the migration container's.
*/}}
{{- define "location-exchange.containerEnv" -}}
{{- range $name, $value := (include "location-exchange.plainEnv" . | fromYaml) }}
- name: {{ $name }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- range (index (include "location-exchange.serviceSecretEnv" .root | fromYaml) .service) }}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ $.secretName }}
      key: {{ .key }}
{{- end }}
{{- with .values.extraEnvVars }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Where the pods that connect to PostgreSQL find the CA of database.sslCaFromSecret (DATABASE_SSL_CA_FILE). */}}
{{- define "location-exchange.databaseCaFile" -}}
/etc/location-exchange/postgresql/ca.crt
{{- end }}

{{/*
The volume that holds the Secret key DATABASE_SSL_CA as the file DATABASE_SSL_CA_FILE names, and its mount; nothing
without database.sslCaFromSecret. Take (dict "root" $ "secretName" "<Secret>") and the root.
*/}}
{{- define "location-exchange.databaseCaVolume" -}}
{{- if .root.Values.database.sslCaFromSecret }}
- name: postgresql-ca
  secret:
    secretName: {{ .secretName }}
    items:
      - key: DATABASE_SSL_CA
        path: ca.crt
{{- end }}
{{- end }}
{{- define "location-exchange.databaseCaVolumeMount" -}}
{{- if .Values.database.sslCaFromSecret }}
- name: postgresql-ca
  mountPath: {{ include "location-exchange.databaseCaFile" . | dir }}
  readOnly: true
{{- end }}
{{- end }}

{{/* envFrom of one service: its existingSecret, when given. Takes the service block. */}}
{{- define "location-exchange.containerEnvFrom" -}}
{{- if .existingSecret }}
envFrom:
  - secretRef:
      name: {{ .existingSecret }}
{{- end }}
{{- end }}

{{/*
Hash of what the pods of one service read from the chart-made Secret, so that changing one of its values rolls
exactly the services that use it. Takes (dict "root" $ "service" "<name>").
*/}}
{{- define "location-exchange.secretChecksum" -}}
{{- $root := .root }}
{{- $keys := include "location-exchange.secretKeys" $root | fromYamlArray }}
{{- $used := list }}
{{- $read := list }}
{{- range (index (include "location-exchange.serviceSecretEnv" $root | fromYaml) .service) }}{{ $read = append $read .key }}{{ end }}
{{- if $root.Values.database.sslCaFromSecret }}{{ $read = append $read "DATABASE_SSL_CA" }}{{ end }}
{{- range $read }}
{{- $key := . }}
{{- range $keys }}
{{- if eq .key $key }}
{{- $used = append $used (printf "%s=%s" $key (index $root.Values.secrets .value | toString)) }}
{{- end }}
{{- end }}
{{- end }}
{{- $used | join "\n" | sha256sum }}
{{- end }}

{{/*
The pod-level settings of the chart's one-off pods (migration Job, smoke test): no API token, the pull secrets, the
pod security context. Takes (dict "root" $ "values" <migrations or smokeTest block>).
*/}}
{{- define "location-exchange.oneOffPodSettings" -}}
automountServiceAccountToken: false
{{- with .root.Values.global.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .values.podSecurityContext | nindent 2 }}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
Every problem with the values, collected into one message, so one `helm install` names all that is missing instead of
the first. Rendered by templates/validate.yaml; the other templates assume it passed.
*/}}
{{- define "location-exchange.validateValues" -}}
{{- $problems := list }}
{{- $secretsMissing := false }}
{{- $v := .Values }}
{{- if not $v.publicBaseUrl }}
{{- $problems = append $problems "publicBaseUrl is required: the API's public base URL (e.g. https://api.example.com), the issuer of every token" }}
{{- else if not (regexMatch "^https?://[^/?#@]+/?$" $v.publicBaseUrl) }}
{{- $problems = append $problems (printf "publicBaseUrl must be an http(s) URL without path, query or credentials, got %q" $v.publicBaseUrl) }}
{{- end }}
{{- if not $v.kafka.brokers }}
{{- $problems = append $problems "kafka.brokers is required: the Kafka bootstrap brokers, a list of host:port" }}
{{- end }}
{{- if $v.networkPolicy.enabled }}
{{- /* The NetworkPolicies open fixed ports: the brokers' and the object storage's must be among them. */}}
{{- $kafkaPorts := list }}
{{- range $v.networkPolicy.kafka.ports }}{{ $kafkaPorts = append $kafkaPorts (toString .port) }}{{ end }}
{{- range $v.kafka.brokers }}
{{- $brokerPort := regexFind "[0-9]+$" . }}
{{- if and $brokerPort (not (has $brokerPort $kafkaPorts)) }}
{{- $problems = append $problems (printf "networkPolicy.kafka.ports (%s) must include the port of the broker %s, or the services cannot reach it" (join ", " $kafkaPorts) .) }}
{{- end }}
{{- end }}
{{- with $v.objectStorage.endpoint }}
{{- $storagePorts := list }}
{{- range $v.networkPolicy.objectStorage.ports }}{{ $storagePorts = append $storagePorts (toString .port) }}{{ end }}
{{- $storagePort := regexFind ":[0-9]+" (regexReplaceAll "^[a-z]+://" . "") | trimPrefix ":" }}
{{- if not $storagePort }}{{ $storagePort = ternary "443" "80" (hasPrefix "https://" .) }}{{ end }}
{{- if not (has $storagePort $storagePorts) }}
{{- $problems = append $problems (printf "networkPolicy.objectStorage.ports (%s) must include the port of objectStorage.endpoint %s (%s), or export-worker cannot reach it" (join ", " $storagePorts) . $storagePort) }}
{{- end }}
{{- end }}
{{- end }}
{{- if $v.kafka.sasl.enabled }}
{{- range (include "location-exchange.services" . | fromYamlArray) }}
{{- if not (index $v.kafka.sasl.users .key) }}
{{- $problems = append $problems (printf "kafka.sasl.users.%s is required with kafka.sasl.enabled: the Kafka user %s logs in as" .key .name) }}
{{- end }}
{{- end }}
{{- end }}
{{- if and $v.kafka.sasl.enabled (eq $v.kafka.sasl.mechanism "plain") (not $v.kafka.tls.enabled) }}
{{- $problems = append $problems "kafka.sasl.mechanism plain sends each service's password as it is: it needs kafka.tls.enabled" }}
{{- end }}
{{- if gt (int $v.kafka.minInsyncReplicas) (int $v.kafka.replicationFactor) }}
{{- $problems = append $problems (printf "kafka.minInsyncReplicas (%v) must be at most kafka.replicationFactor (%v): more in-sync replicas than replicas refuses every write" $v.kafka.minInsyncReplicas $v.kafka.replicationFactor) }}
{{- end }}
{{- if not $v.objectStorage.endpoint }}
{{- $problems = append $problems "objectStorage.endpoint is required: the S3/MinIO endpoint URL export-worker talks to" }}
{{- end }}
{{- range $name, $url := dict "objectStorage.endpoint" $v.objectStorage.endpoint "objectStorage.publicEndpoint" $v.objectStorage.publicEndpoint }}
{{- if and $url (not (regexMatch "^https?://[^/]+" $url)) }}
{{- $problems = append $problems (printf "%s must be an http(s) URL, got %q" $name $url) }}
{{- end }}
{{- end }}
{{- if and $v.database.sslCaFromSecret (ne $v.database.sslMode "verify-full") }}
{{- $problems = append $problems "database.sslCaFromSecret needs database.sslMode verify-full (the CA is only used to verify the server)" }}
{{- end }}
{{- if not $v.secrets.existingSecret }}
{{- $optional := include "location-exchange.optionalSecretKeys" . | fromYamlArray }}
{{- range (include "location-exchange.secretKeys" . | fromYamlArray) }}
{{- if and (not (index $v.secrets .value)) (not (has .key $optional)) }}
{{- $problems = append $problems (printf "secrets.%s is required (Secret key %s): %s" .value .key .about) }}
{{- $secretsMissing = true }}
{{- end }}
{{- end }}
{{- if and $v.secrets.databaseUrl (not (regexMatch "^postgres(ql)?://" (toString $v.secrets.databaseUrl))) }}
{{- $problems = append $problems "secrets.databaseUrl must be a postgres:// or postgresql:// URL" }}
{{- end }}
{{- /* One user per service, none of them the administrator: a shared login would reach the other's schema. */}}
{{- $users := dict }}
{{- with $v.secrets.databaseUrl }}{{ $_ := set $users (regexReplaceAll "^postgres(ql)?://([^:@/]*).*$" (toString .) "${2}") "databaseUrl" }}{{ end }}
{{- range list "authDatabaseUrl" "locationCommandDatabaseUrl" "locationQueryDatabaseUrl" "statisticsProjectionDatabaseUrl" "exportWorkerDatabaseUrl" "webhookDispatcherDatabaseUrl" }}
{{- $url := index $v.secrets . | toString }}
{{- if $url }}
{{- if not (regexMatch "^postgres(ql)?://[^:@/]+(:[^@/]*)?@" $url) }}
{{- $problems = append $problems (printf "secrets.%s must be a postgres:// or postgresql:// URL with the service's own user (postgres://user:password@host:5432/database)" .) }}
{{- else }}
{{- $user := regexReplaceAll "^postgres(ql)?://([^:@/]+).*$" $url "${2}" }}
{{- if hasKey $users $user }}
{{- $problems = append $problems (printf "secrets.%s logs in as the same user as secrets.%s: give each service a user of its own" . (get $users $user)) }}
{{- else }}
{{- $_ := set $users $user . }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- if and $v.database.sslCaFromSecret $v.secrets.databaseSslCa (not (contains "-----BEGIN CERTIFICATE-----" (toString $v.secrets.databaseSslCa))) }}
{{- $problems = append $problems "secrets.databaseSslCa must be a PEM certificate (-----BEGIN CERTIFICATE-----)" }}
{{- end }}
{{- range list "authEncryptionKey" "webhookSecretTransportKey" }}
{{- $key := index $v.secrets . | toString }}
{{- if and $key (not (regexMatch "^[A-Za-z0-9+/]{43}=?$" $key)) }}
{{- $problems = append $problems (printf "secrets.%s must be 32 random bytes, base64-encoded (openssl rand -base64 32)" .) }}
{{- end }}
{{- end }}
{{- $uuid := "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$" }}
{{- range list "adminClientId" "serviceClientId" }}
{{- $id := index $v.secrets . | toString }}
{{- if and $id (not (regexMatch $uuid $id)) }}
{{- $problems = append $problems (printf "secrets.%s must be a UUID" .) }}
{{- end }}
{{- end }}
{{- range list "adminClientSecret" "serviceClientSecret" }}
{{- $secret := index $v.secrets . | toString }}
{{- if and $secret (lt (len $secret) 32) }}
{{- $problems = append $problems (printf "secrets.%s must be at least 32 characters" .) }}
{{- end }}
{{- end }}
{{- if and $v.secrets.adminClientId (eq (toString $v.secrets.adminClientId) (toString $v.secrets.serviceClientId)) }}
{{- $problems = append $problems "secrets.serviceClientId must differ from secrets.adminClientId (two different clients)" }}
{{- end }}
{{- if and $v.secrets.authEncryptionKey (eq (toString $v.secrets.authEncryptionKey) (toString $v.secrets.webhookSecretTransportKey)) }}
{{- $problems = append $problems "secrets.webhookSecretTransportKey must differ from secrets.authEncryptionKey (auth refuses to start otherwise)" }}
{{- end }}
{{- end }}
{{- range (include "location-exchange.services" . | fromYamlArray) }}
{{- $s := index $v .key }}
{{- if $s.pdb.create }}
{{- $minReplicas := ternary $s.autoscaling.minReplicas $s.replicaCount $s.autoscaling.enabled | int }}
{{- $maxUnavailableSet := and (not (kindIs "invalid" $s.pdb.maxUnavailable)) (ne (toString $s.pdb.maxUnavailable) "") }}
{{- if and (not $maxUnavailableSet) (not (kindIs "string" $s.pdb.minAvailable)) (le $minReplicas (int $s.pdb.minAvailable)) }}
{{- $problems = append $problems (printf "%s.pdb.minAvailable %d with %d replica(s) would block every node drain: raise %s.%s, or set %s.pdb.maxUnavailable" .key (int $s.pdb.minAvailable) $minReplicas .key (ternary "autoscaling.minReplicas" "replicaCount" $s.autoscaling.enabled) .key) }}
{{- end }}
{{- end }}
{{- end }}
{{- if $problems }}
{{- $hint := ternary "\n(Instead of the secrets.* values, secrets.existingSecret may name a Secret that holds all these keys.)\n" "" $secretsMissing }}
{{- fail (printf "\n\nlocation-exchange: %d value(s) missing or invalid:\n  - %s\n%s" (len $problems) (join "\n  - " $problems) $hint) }}
{{- end }}
{{- end }}

{{/*
The volumes and mounts of a pod that talks to Kafka: /tmp (the only writable path; the root filesystem is read-only)
and, with kafka.tls.ca, the brokers' CA from the chart's ConfigMap (kafka-ca.yaml; the migration hook's own copy when
"hook" is true), and with database.sslCaFromSecret PostgreSQL's CA from the Secret. Take (dict "root" $ "hook" <bool>
"secretName" <the Secret the pod reads>).
*/}}
{{- define "location-exchange.volumes" -}}
- name: tmp
  emptyDir: {}
{{- if include "location-exchange.kafkaCa" .root }}
- name: kafka-ca
  configMap:
    name: {{ include "location-exchange.kafkaCaConfigMap" . }}
{{- end }}
{{- include "location-exchange.databaseCaVolume" . }}
{{- end }}

{{- define "location-exchange.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if include "location-exchange.kafkaCa" .root }}
- name: kafka-ca
  mountPath: {{ include "location-exchange.kafkaCaDir" .root }}
  readOnly: true
{{- end }}
{{- include "location-exchange.databaseCaVolumeMount" .root }}
{{- end }}

{{/* The brokers' CA when TLS is on and one is given, else empty. */}}
{{- define "location-exchange.kafkaCa" -}}
{{- if .Values.kafka.tls.enabled }}{{ .Values.kafka.tls.ca }}{{ end }}
{{- end }}

{{/* The ConfigMap of the brokers' CA; the migration hook's copy with "hook". Takes (dict "root" $ "hook" <bool>). */}}
{{- define "location-exchange.kafkaCaConfigMap" -}}
{{- include "location-exchange.fullname" .root }}-{{ if .hook }}migrate-{{ end }}kafka-ca
{{- end }}

{{/* The NetworkPolicy peer of the Ingress controller (networkPolicy.ingressController): one item of a `from` list. */}}
{{- define "location-exchange.ingressControllerPeer" -}}
{{- $controller := .Values.networkPolicy.ingressController -}}
- namespaceSelector:
    {{- toYaml $controller.namespaceSelector | nindent 4 }}
  {{- with $controller.podSelector }}
  podSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
