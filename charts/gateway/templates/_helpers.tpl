{{/*
Helpers shared by every role's templates. Role-level helpers take a dict:
  (dict "root" $ "role" "gateway" "values" .Values.gateway)
so that every role's templates (gateway-*, session-*, worker-*) share them. simnet (dev/test
only) is not part of the chart.
*/}}

{{- define "gw.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gw.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "gw.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "gw.labels" -}}
helm.sh/chart: {{ include "gw.chart" . }}
{{ include "gw.selectorLabels" . }}
app.kubernetes.io/version: {{ (default .Chart.AppVersion .Values.image.tag) | trunc 63 | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: {{ include "gw.name" . }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "gw.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gw.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Name of one role's objects: <fullname>-<role>. Takes (dict "root" $ "role" "…"). */}}
{{- define "gw.componentName" -}}
{{- printf "%s-%s" (include "gw.fullname" .root) .role | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Headless Service of the session StatefulSet (its serviceName): <fullname>-session. */}}
{{- define "gw.sessionHeadlessServiceName" -}}
{{- include "gw.componentName" (dict "root" . "role" "session") }}
{{- end }}

{{- define "gw.componentLabels" -}}
{{ include "gw.labels" .root }}
app.kubernetes.io/component: {{ .role }}
{{- end }}

{{- define "gw.componentSelectorLabels" -}}
{{ include "gw.selectorLabels" .root }}
app.kubernetes.io/component: {{ .role }}
{{- end }}

{{- define "gw.image" -}}
{{- $img := .Values.image }}
{{- if $img.digest }}
{{- printf "%s@%s" $img.repository $img.digest }}
{{- else }}
{{- printf "%s:%s" $img.repository (default .Chart.AppVersion $img.tag) }}
{{- end }}
{{- end }}

{{- define "gw.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gw.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "gw.configMapName" -}}
{{- printf "%s-config" (include "gw.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gw.secretName" -}}
{{- if .Values.secrets.existingSecret }}
{{- .Values.secrets.existingSecret }}
{{- else }}
{{- printf "%s-secrets" (include "gw.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/*
Environment variables the chart sets itself (per role, from the role's values block, or from
the Secret); they may not appear in .Values.config.
*/}}
{{- define "gw.reservedEnv" -}}
ROLES HOST PORT INTERNAL_HOST INTERNAL_PORT ADMIN_TOKEN INTERNAL_SECRET WEBHOOK_SECRET_KEY AUTH_STATE_KEY SMTP_URL MEDIA_LINK_SECRET CLOUD_CREDENTIALS_KEY CLOUD_WEBHOOK_VERIFY_TOKEN POD_ID SESSION_HOST SESSION_PORT SESSION_ADVERTISE_URL SESSION_CAPACITY LEASE_TTL_MS WORKER_HOST WORKER_PORT DISPATCH_CONCURRENCY DISPATCH_CLAIM_IDLE_MS  SMTP_FROM MEDIA_STORE MEDIA_DIR MEDIA_RETENTION_DAYS MEDIA_REDIRECT S3_ENDPOINT S3_REGION S3_BUCKET S3_FORCE_PATH_STYLE S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY
{{- end }}

{{/* A config value as an env string: whole floats (YAML numbers) without exponent. */}}
{{- define "gw.envValue" -}}
{{- if and (kindIs "float64" .) (eq . (floor .)) }}
{{- int64 . }}
{{- else }}
{{- . }}
{{- end }}
{{- end }}

{{/* Checks of .Values.config, run by the ConfigMap template. */}}
{{- define "gw.validateConfig" -}}
{{- $reserved := splitList " " (include "gw.reservedEnv" .) }}
{{- range $k, $v := .Values.config }}
{{- if has $k $reserved }}
{{- fail (printf "config.%s is set by the chart (per role, or from the Secret); remove it from config" $k) }}
{{- end }}
{{- end }}
{{- $url := required "config.PUBLIC_BASE_URL is required (the public URL clients use, e.g. https://api.example.com)" .Values.config.PUBLIC_BASE_URL }}
{{- if not (regexMatch "^https?://[^/]+" $url) }}
{{- fail (printf "config.PUBLIC_BASE_URL must be an http(s) URL, got %q" $url) }}
{{- end }}
{{- if and (not .Values.secrets.redisUrlFromSecret) (not .Values.config.REDIS_URL) }}
{{- fail "config.REDIS_URL is required (or set secrets.redisUrlFromSecret)" }}
{{- end }}
{{- if not .Values.config.TEMPORAL_ADDRESS }}
{{- fail "config.TEMPORAL_ADDRESS is required" }}
{{- end }}
{{- if lt (int64 (include "gw.shutdownTimeoutMs" .)) 1 }}
{{- fail "config.SHUTDOWN_TIMEOUT_MS must be a positive number of milliseconds" }}
{{- end }}
{{- end }}

{{- define "gw.shutdownTimeoutMs" -}}
{{- $v := .Values.config.SHUTDOWN_TIMEOUT_MS }}
{{- if kindIs "invalid" $v }}10000{{ else }}{{ int64 $v }}{{ end }}
{{- end }}

{{/*
SHUTDOWN_TIMEOUT_MS of a role: its own shutdownTimeoutMs (session, worker), else the shared
config.SHUTDOWN_TIMEOUT_MS. Takes (dict "root" $ "role" "…" "values" <role values>).
*/}}
{{- define "gw.roleShutdownTimeoutMs" -}}
{{- $v := dig "shutdownTimeoutMs" nil .values }}
{{- if kindIs "invalid" $v }}
{{- include "gw.shutdownTimeoutMs" .root }}
{{- else if lt (int64 $v) 1 }}
{{- fail (printf "%s.shutdownTimeoutMs must be a positive number of milliseconds (or null)" .role) }}
{{- else }}
{{- int64 $v }}
{{- end }}
{{- end }}

{{/*
SHUTDOWN_TIMEOUT_MS env of a role whose shutdownTimeoutMs is set (overrides the ConfigMap's).
Takes (dict "root" $ "role" "…" "values" <role values>).
*/}}
{{- define "gw.roleShutdownEnv" -}}
{{- if not (kindIs "invalid" (dig "shutdownTimeoutMs" nil .values)) }}
- name: SHUTDOWN_TIMEOUT_MS
  value: {{ include "gw.roleShutdownTimeoutMs" . | quote }}
{{- end }}
{{- end }}

{{/*
terminationGracePeriodSeconds of a role: its own value, or the preStop sleep plus
ceil(SHUTDOWN_TIMEOUT_MS / 1000) (the role's own shutdownTimeoutMs when it has one) plus 5 s of
margin. main.ts exits on its own once SHUTDOWN_TIMEOUT_MS has passed, so the kubelet never needs
to SIGKILL. Takes (dict "root" $ "role" "…" "values" <role values>).
*/}}
{{- define "gw.terminationGracePeriodSeconds" -}}
{{- $v := .values }}
{{- if not (kindIs "invalid" $v.terminationGracePeriodSeconds) }}
{{- int64 $v.terminationGracePeriodSeconds }}
{{- else }}
{{- $ms := int64 (include "gw.roleShutdownTimeoutMs" .) }}
{{- add (div (add $ms 999) 1000) (int64 (default 0 $v.preStopSleepSeconds)) 5 }}
{{- end }}
{{- end }}

{{/*
preStop sleep of a role's container: the native `sleep` action (on by default since Kubernetes
1.30; the chart needs 1.31), so the image needs no `sleep` binary. Takes (dict "root" $ "values" <role values>).
*/}}
{{- define "gw.lifecycle" -}}
{{- $s := int64 (default 0 .values.preStopSleepSeconds) }}
{{- if gt $s 0 }}
lifecycle:
  preStop:
    sleep:
      seconds: {{ $s }}
{{- end }}
{{- end }}

{{/*
Where a secret comes from: secrets.refs.<name> ({name, key}) when given, else
secrets.existingSecret or the chart's own Secret under secrets.keys.<name>.
Takes (dict "root" $ "name" "<secrets key>" "optional" bool). Renders a secretKeyRef's body.
*/}}
{{- define "gw.secretKeyRef" -}}
{{- $s := .root.Values.secrets }}
{{- $ref := get (default (dict) $s.refs) .name }}
{{- if $ref }}
name: {{ required (printf "secrets.refs.%s.name is required" .name) $ref.name }}
key: {{ required (printf "secrets.refs.%s.key is required" .name) $ref.key }}
{{- else }}
name: {{ include "gw.secretName" .root }}
key: {{ get $s.keys .name }}
{{- end }}
{{- if .optional }}
optional: true
{{- end }}
{{- end }}

{{/* One env entry from a secret. Takes (dict "root" $ "env" "VAR" "name" "<secrets key>" "optional" bool). */}}
{{- define "gw.secretEnvVar" -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      {{- include "gw.secretKeyRef" . | trim | nindent 6 }}
{{- end }}

{{/*
The secrets every role reads: ADMIN_TOKEN, INTERNAL_SECRET, WEBHOOK_SECRET_KEY, REDIS_URL (with
secrets.redisUrlFromSecret), and the optional MEDIA_LINK_SECRET and CLOUD_CREDENTIALS_KEY (left
unset when their key is missing: config.ts derives them).
*/}}
{{- define "gw.secretEnv" -}}
{{ include "gw.secretEnvVar" (dict "root" . "env" "ADMIN_TOKEN" "name" "adminToken") }}
{{ include "gw.secretEnvVar" (dict "root" . "env" "INTERNAL_SECRET" "name" "internalSecret") }}
{{ include "gw.secretEnvVar" (dict "root" . "env" "WEBHOOK_SECRET_KEY" "name" "webhookSecretKey") }}
{{- if .Values.secrets.redisUrlFromSecret }}
{{ include "gw.secretEnvVar" (dict "root" . "env" "REDIS_URL" "name" "redisUrl") }}
{{- end }}
{{ include "gw.secretEnvVar" (dict "root" . "env" "MEDIA_LINK_SECRET" "name" "mediaLinkSecret" "optional" true) }}
{{ include "gw.secretEnvVar" (dict "root" . "env" "CLOUD_CREDENTIALS_KEY" "name" "cloudCredentialsKey" "optional" true) }}
{{- end }}

{{/*
The media store (values media:, docs/media.md), read by every role: MEDIA_* and, for s3, the
bucket's S3_* and its optional credentials (left unset: the SDK's default chain).
*/}}
{{- define "gw.mediaEnv" -}}
{{- $m := .Values.media }}
- name: MEDIA_STORE
  value: {{ $m.store | quote }}
- name: MEDIA_RETENTION_DAYS
  value: {{ $m.retentionDays | toString | quote }}
- name: MEDIA_REDIRECT
  value: {{ $m.redirect | toString | quote }}
{{- if eq $m.store "s3" }}
- name: S3_BUCKET
  value: {{ required "media.s3.bucket is required with media.store s3" $m.s3.bucket | quote }}
- name: S3_REGION
  value: {{ $m.s3.region | quote }}
{{- with $m.s3.endpoint }}
- name: S3_ENDPOINT
  value: {{ . | quote }}
{{- end }}
- name: S3_FORCE_PATH_STYLE
  value: {{ $m.s3.forcePathStyle | toString | quote }}
{{ include "gw.secretEnvVar" (dict "root" . "env" "S3_ACCESS_KEY_ID" "name" "s3AccessKeyId" "optional" true) }}
{{ include "gw.secretEnvVar" (dict "root" . "env" "S3_SECRET_ACCESS_KEY" "name" "s3SecretAccessKey" "optional" true) }}
{{- else }}
- name: MEDIA_DIR
  value: {{ $m.dir.mountPath | quote }}
{{- end }}
{{- end }}

{{/* The media volume's mount (media.store dir), at the indentation of a container's volumeMounts. */}}
{{- define "gw.mediaVolumeMount" -}}
{{- if eq .Values.media.store "dir" }}
- name: media
  mountPath: {{ .Values.media.dir.mountPath }}
{{- end }}
{{- end }}

{{/* The claim the media volume is (media.store dir): existingClaim, else the chart's own. */}}
{{- define "gw.mediaClaimName" -}}
{{- default (printf "%s-media" (include "gw.fullname" .)) .Values.media.dir.existingClaim }}
{{- end }}

{{/* The media volume (media.store dir), at the indentation of a pod spec's volumes. */}}
{{- define "gw.mediaVolume" -}}
{{- if eq .Values.media.store "dir" }}
- name: media
  persistentVolumeClaim:
    claimName: {{ include "gw.mediaClaimName" . }}
{{- end }}
{{- end }}

{{/* AUTH_STATE_KEY (the session role). */}}
{{- define "gw.authStateKeyEnv" -}}
{{ include "gw.secretEnvVar" (dict "root" . "env" "AUTH_STATE_KEY" "name" "authStateKey") }}
{{- end }}

{{/* SMTP_URL (the worker role). Optional: without it no e-mail is sent. */}}
{{- define "gw.smtpUrlEnv" -}}
{{ include "gw.secretEnvVar" (dict "root" . "env" "SMTP_URL" "name" "smtpUrl" "optional" true) }}
{{- end }}

{{/* CLOUD_WEBHOOK_VERIFY_TOKEN (the gateway role). Optional: without it the handshake is refused. */}}
{{- define "gw.cloudVerifyTokenEnv" -}}
{{ include "gw.secretEnvVar" (dict "root" . "env" "CLOUD_WEBHOOK_VERIFY_TOKEN" "name" "cloudWebhookVerifyToken" "optional" true) }}
{{- end }}

{{/*
Scheduling of a role's pods: nodeSelector, affinity, tolerations, topologySpreadConstraints
(null: spread over zones and over nodes, both ScheduleAnyway, so a missing zone label or a small
cluster never blocks scheduling; []: none). A Deployment's spread counts only the pods of its
current ReplicaSet (matchLabelKeys pod-template-hash), so a rolling update spreads the new pods
too. Takes (dict "root" $ "role" "…" "values" …). Rendered at the indentation of a pod spec's keys.
*/}}
{{- define "gw.scheduling" -}}
{{- $v := .values }}
{{- with $v.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- if kindIs "invalid" $v.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- range $key := list "topology.kubernetes.io/zone" "kubernetes.io/hostname" }}
  - maxSkew: 1
    topologyKey: {{ $key }}
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "gw.componentSelectorLabels" $ | nindent 8 }}
    {{- if ne $.role "session" }}
    matchLabelKeys:
      - pod-template-hash
    {{- end }}
  {{- end }}
{{- else if $v.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml $v.topologySpreadConstraints | nindent 2 }}
{{- end }}
{{- end }}

{{/* Pod securityContext of a role: the shared one, overridden by the role's. */}}
{{- define "gw.podSecurityContext" -}}
{{- toYaml (mergeOverwrite (deepCopy (default (dict) .root.Values.podSecurityContext)) (default (dict) .values.podSecurityContext)) }}
{{- end }}

{{- define "gw.containerSecurityContext" -}}
{{- toYaml (mergeOverwrite (deepCopy (default (dict) .root.Values.securityContext)) (default (dict) .values.securityContext)) }}
{{- end }}

{{/* Checksums that roll the pods when the configuration or the chart's Secret changes. */}}
{{- define "gw.checksumAnnotations" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
{{- if not .Values.secrets.existingSecret }}
checksum/secrets: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end }}
{{- end }}
