{{/* Names, labels and the pieces every workload shares. */}}

{{- define "vg.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "vg.fullname" -}}
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

{{/* Name of one component's objects: <fullname>-<component>, within 63 characters. */}}
{{- define "vg.componentName" -}}
{{- printf "%s-%s" (include "vg.fullname" .root | trunc (int (sub 62 (len .component)))) .component | trimSuffix "-" }}
{{- end }}

{{- define "vg.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{ include "vg.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: voicegw
{{- end }}

{{- define "vg.selectorLabels" -}}
app.kubernetes.io/name: {{ include "vg.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "vg.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "vg.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "vg.secretName" -}}
{{- default (include "vg.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{- define "vg.image" -}}
{{- $image := index .root.Values.images .name -}}
{{- printf "%s:%s" $image.repository (default .root.Chart.AppVersion $image.tag) }}
{{- end }}

{{/* An env map of documented variables, by name; numbers are written as integers (YAML numbers
     reach templates as float64, which would print 1073741824 as 1.073741824e+09). */}}
{{- define "vg.envMap" -}}
{{- include "vg.envMapItems" . | trim }}
{{- end }}

{{- define "vg.envMapItems" -}}
{{- range $name, $value := . }}
- name: {{ $name }}
  value: {{ if kindIs "float64" $value }}{{ $value | int64 | quote }}{{ else }}{{ $value | toString | quote }}{{ end }}
{{- end }}
{{- end }}

{{/* Redis for every process: the sentinels and the primary's name, with the passwords from the
     Secret (an existing Secret's only when it has them); or else the URL from the Secret (it may
     carry a password). Then the prefix. */}}
{{- define "vg.redisEnv" -}}
{{- $redis := .Values.redis }}
{{- $existing := .Values.secrets.existingSecret }}
{{- if $redis.sentinel.addresses }}
{{- if not $redis.sentinel.name }}
{{- fail "redis.sentinel.name is required with redis.sentinel.addresses: the primary's name in Sentinel (sentinel monitor <name> ...)" }}
{{- end }}
- name: REDIS_SENTINELS
  value: {{ join "," $redis.sentinel.addresses | quote }}
- name: REDIS_SENTINEL_NAME
  value: {{ $redis.sentinel.name | quote }}
{{- if $redis.username }}
- name: REDIS_USERNAME
  value: {{ $redis.username | quote }}
{{- end }}
{{- if $redis.sentinel.username }}
- name: REDIS_SENTINEL_USERNAME
  value: {{ $redis.sentinel.username | quote }}
{{- end }}
{{- range $variable, $password := dict "REDIS_PASSWORD" (list "redis-password" $redis.password) "REDIS_SENTINEL_PASSWORD" (list "redis-sentinel-password" $redis.sentinel.password) }}
{{- if or $existing (last $password) }}
- name: {{ $variable }}
  valueFrom:
    secretKeyRef:
      name: {{ include "vg.secretName" $ }}
      key: {{ first $password }}
      optional: true
{{- end }}
{{- end }}
{{- else }}
{{- if $redis.password }}
{{- fail "redis.password is read with redis.sentinel.addresses only: with redis.url, put the password in the URL" }}
{{- end }}
{{- if $redis.username }}
{{- fail "redis.username is read with redis.sentinel.addresses only: with redis.url, put the user in the URL" }}
{{- end }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "vg.secretName" . }}
      key: redis-url
{{- end }}
- name: REDIS_PREFIX
  value: {{ .Values.redis.prefix | quote }}
{{- end }}

{{/* Restart pods when what they read from the chart's Secret or config changes. */}}
{{- define "vg.configChecksum" -}}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end }}

{{- define "vg.podSecurity" -}}
serviceAccountName: {{ include "vg.serviceAccountName" . }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.images.pullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* Scheduling values of one component (nodeSelector, tolerations, affinity). */}}
{{- define "vg.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* tsx keeps its transpile cache in the temporary directory: writable under a read-only root. */}}
{{- define "vg.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 256Mi
{{- end }}

{{- define "vg.recordingsClaim" -}}
{{- default (include "vg.componentName" (dict "root" . "component" "recordings")) .Values.recordings.existingClaim }}
{{- end }}

{{/* RECORDING_MODE of the api and the media nodes: off without the recordings volume. */}}
{{- define "vg.recordingMode" -}}
{{- if .Values.recordings.enabled }}{{ .Values.recordings.mode }}{{ else }}off{{ end }}
{{- end }}

{{/* "true" when FreeSWITCH streams audio to its media node with mod_audio_stream: stream-mode
     recordings, media streams (stream/start), or both. */}}
{{- define "vg.audioStream" -}}
{{- if or .Values.mediaStreams.enabled (eq (include "vg.recordingMode" .) "stream") }}true{{ end }}
{{- end }}

{{/* The media node's recording receiver as its FreeSWITCH reaches it (RECORDING_SERVICE_URL);
     the api reads the same variable to know that recording is available. */}}
{{- define "vg.recordingServiceUrl" -}}
{{- printf "ws://127.0.0.1:%d/record" (int .Values.recordings.receiverPort) }}
{{- end }}

{{/* FreeSWITCH log levels from the chosen one up (mod_logfile takes the list). */}}
{{- define "vg.freeswitchLogLevels" -}}
{{- $levels := list "debug" "info" "notice" "warning" "err" "crit" "alert" }}
{{- $from := 0 }}
{{- range $i, $level := $levels }}{{ if eq $level $ }}{{ $from = $i }}{{ end }}{{ end }}
{{- join "," (concat (list "console") (slice $levels $from)) }}
{{- end }}

{{/* The extension `disconnect` transfers a call to (DISCONNECT_EXTENSION): it hangs up. */}}
{{- define "vg.disconnectExtension" -}}
<extension name="{{ . }}">
  <condition field="destination_number" expression="^{{ regexQuoteMeta . }}$">
    <action application="hangup" data="NORMAL_CLEARING"/>
  </condition>
</extension>
{{- end }}

{{/* The SIP trunk (freeswitch.trunk) as YAML: `enabled` (FreeSWITCH engine and a proxy set),
     `name`, and `gateway`, the sofia gateway the media node's DIAL_STRING_TEMPLATE dials (empty
     when it dials otherwise). Dialing through a gateway needs the trunk, under that name: the
     chart refuses to render without it rather than ship a FreeSWITCH where every dial fails
     with `Invalid Gateway`. */}}
{{- define "vg.trunk" -}}
{{- $fs := .Values.freeswitch }}
{{- $trunk := $fs.trunk }}
{{- $template := index .Values.mediaNode.env "DIAL_STRING_TEMPLATE" | default "sofia/gateway/pstn/{to}" }}
{{- $gateway := regexReplaceAll "^sofia/gateway/([^/]+)/.*$" (regexFind "^sofia/gateway/[^/]+/.*$" $template) "${1}" }}
{{- $real := eq $fs.engine "freeswitch" }}
{{- if and $real $gateway (not $trunk.proxy) }}
{{- fail (printf "freeswitch.trunk.proxy is required: DIAL_STRING_TEMPLATE (%s) dials through the sofia gateway %s, so outbound calls need a SIP trunk (freeswitch.trunk, docs/operations.md \"SIP trunk\")" $template $gateway) }}
{{- end }}
{{- if and $real $gateway (ne $trunk.name $gateway) }}
{{- fail (printf "freeswitch.trunk.name (%s) must be %s, the gateway DIAL_STRING_TEMPLATE (%s) dials" $trunk.name $gateway $template) }}
{{- end }}
{{- if and $real $trunk.register (not $trunk.username) }}
{{- fail "freeswitch.trunk.register needs freeswitch.trunk.username and a password" }}
{{- end }}
{{- if and $real $trunk.register (not $trunk.password) (not .Values.secrets.existingSecret) }}
{{- fail "freeswitch.trunk.register needs freeswitch.trunk.password" }}
{{- end }}
enabled: {{ and $real (ne $trunk.proxy "") }}
name: {{ $trunk.name | quote }}
gateway: {{ $gateway | quote }}
{{- end }}
