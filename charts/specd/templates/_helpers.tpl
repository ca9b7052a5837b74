{{/* Names and labels. */}}
{{- define "specd.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "specd.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else if contains (include "specd.name" .) .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name (include "specd.name" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{- define "specd.selectorLabels" -}}
app.kubernetes.io/name: {{ include "specd.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "specd.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "specd.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The ClusterRole and ClusterRoleBinding names of the host RBAC: the
release's namespace in them, as two releases may share a cluster. */}}
{{- define "specd.clusterName" -}}
{{- printf "%s:%s" .Release.Namespace (include "specd.fullname" .) }}
{{- end }}

{{- define "specd.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s:%s@%s" .Values.image.repository $tag .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{/* Whether specd runs its embedded etcd: "true" or "". */}}
{{- define "specd.embedded" -}}
{{- if empty .Values.etcd.servers }}true{{ end }}
{{- end }}

{{- define "specd.aggregated" -}}
{{- if eq .Values.mode "aggregated" }}true{{ end }}
{{- end }}

{{/* Whether the chart makes the ServiceMonitor's credentials: "true"
or "". Only an aggregated specd takes the cluster's ServiceAccount tokens;
another is given metrics.serviceMonitor.authorization. */}}
{{- define "specd.scraper" -}}
{{- if and .Values.metrics.serviceMonitor.enabled (include "specd.aggregated" .) (empty .Values.metrics.serviceMonitor.authorization) }}true{{ end }}
{{- end }}

{{/* The Service's DNS names, which the serving certificate covers. */}}
{{- define "specd.dnsNames" -}}
{{- $svc := include "specd.fullname" . }}
{{- $ns := .Release.Namespace }}
{{- list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.%s" $svc $ns .Values.tls.clusterDomain) | toJson }}
{{- end }}

{{/* The Secret of the serving certificate (certManager and secret). */}}
{{- define "specd.tlsSecret" -}}
{{- if eq .Values.tls.source "certManager" }}{{ include "specd.fullname" . }}-tls{{ else }}{{ .Values.tls.secret.name }}{{ end }}
{{- end }}

{{/* Where the serving CA is in the pod (certManager and secret). */}}
{{- define "specd.caFile" -}}
{{- if .Values.tls.caBundle }}/etc/specd/ca/ca.crt{{ else }}/etc/specd/tls/ca.crt{{ end }}
{{- end }}

{{/* Values that do not go together fail the rendering with a message
naming them. */}}
{{- define "specd.validate" -}}
{{- if not (has .Values.mode (list "standalone" "replicated" "aggregated")) }}
{{- fail (printf "mode %q: want standalone, replicated or aggregated" .Values.mode) }}
{{- end }}
{{- if not (has .Values.tls.source (list "specd" "certManager" "secret")) }}
{{- fail (printf "tls.source %q: want specd, certManager or secret" .Values.tls.source) }}
{{- end }}
{{- if and (eq .Values.mode "standalone") .Values.etcd.servers }}
{{- fail "mode standalone runs the embedded etcd: leave etcd.servers empty, or use mode replicated" }}
{{- end }}
{{- if and (eq .Values.mode "replicated") (empty .Values.etcd.servers) }}
{{- fail "mode replicated needs etcd.servers, the external etcd's client URLs" }}
{{- end }}
{{- if and (eq .Values.tls.source "specd") (not (include "specd.embedded" .)) }}
{{- fail "tls.source specd generates a CA per data directory, so with etcd.servers every replica would have its own: use tls.source certManager or secret" }}
{{- end }}
{{- if and (eq .Values.tls.source "secret") (empty .Values.tls.secret.name) }}
{{- fail "tls.source secret needs tls.secret.name, a kubernetes.io/tls Secret" }}
{{- end }}
{{- if and (eq .Values.tls.source "secret") (include "specd.aggregated" .) (empty .Values.tls.caBundle) }}
{{- fail "mode aggregated with tls.source secret needs tls.caBundle: the APIServices' caBundle is never left empty" }}
{{- end }}
{{- if and (include "specd.aggregated" .) (not .Values.aggregated.registerAPIServices) (eq .Values.tls.source "specd") }}
{{- fail "aggregated.registerAPIServices false renders the APIServices, whose caBundle the chart cannot know with tls.source specd: register them (true), or use tls.source certManager or secret" }}
{{- end }}
{{- if and (include "specd.aggregated" .) (not .Values.aggregated.registerAPIServices) (empty .Values.aggregated.groups) }}
{{- fail "aggregated.registerAPIServices false needs aggregated.groups, the group versions to render APIServices for" }}
{{- end }}
{{- if gt (add (ternary 1 0 (not (empty .Values.schemas.files))) (ternary 1 0 (ne .Values.schemas.configMap "")) (ternary 1 0 (not (empty .Values.schemas.volume)))) 1 }}
{{- fail "schemas: give one of files, configMap and volume" }}
{{- end }}
{{- if not (regexMatch "^[A-Za-z0-9][A-Za-z0-9._-]*$" (toString .Values.persistence.dataDir)) }}
{{- fail (printf "persistence.dataDir %q: want a folder name, such as data" (toString .Values.persistence.dataDir)) }}
{{- end }}
{{- if and .Values.backup.enabled (empty .Values.backup.volume) }}
{{- fail "backup.enabled needs backup.volume, where the snapshots go" }}
{{- end }}
{{- if and .Values.metrics.serviceMonitor.enabled (empty .Values.metrics.serviceMonitor.tlsConfig) (or (eq .Values.tls.source "specd") (and (eq .Values.tls.source "secret") (empty .Values.tls.caBundle))) }}
{{- fail "metrics.serviceMonitor needs metrics.serviceMonitor.tlsConfig, or a CA the chart knows (tls.caBundle, or tls.source certManager)" }}
{{- end }}
{{- if and .Values.metrics.serviceMonitor.enabled (not (include "specd.aggregated" .)) (empty .Values.metrics.serviceMonitor.authorization) }}
{{- fail (printf "metrics.serviceMonitor in mode %s needs metrics.serviceMonitor.authorization: the token of a user of specd's in the group system:monitoring (docs/deploy.md)" .Values.mode) }}
{{- end }}
{{- end }}
