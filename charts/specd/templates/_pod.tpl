{{/* The pod of the StatefulSet (embedded etcd) and of the Deployment
(external etcd): one container running `specd serve`. */}}

{{/* The flags of `specd serve`. */}}
{{- define "specd.args" -}}
- serve
- --schemas=/etc/specd/schemas
- --plugins={{ if .Values.plugins.volume }}/opt/specd/plugins{{ else }}/usr/local/lib/specd/plugins{{ end }}
- --data-dir=/var/lib/specd/{{ .Values.persistence.dataDir }}
- --listen=:{{ .Values.containerPort }}
- --log-level={{ .Values.logLevel }}
- --watch={{ .Values.schemas.watch }}
{{- if not (include "specd.embedded" .) }}
- --etcd-servers={{ join "," .Values.etcd.servers }}
{{- if .Values.etcd.tlsSecret }}
- --etcd-cafile=/etc/specd/etcd/ca.crt
- --etcd-certfile=/etc/specd/etcd/tls.crt
- --etcd-keyfile=/etc/specd/etcd/tls.key
{{- end }}
{{- end }}
{{- if eq .Values.tls.source "specd" }}
- --tls-sans={{ include "specd.dnsNames" . | fromJsonArray | join "," }}
{{- else }}
- --tls-cert-file=/etc/specd/tls/tls.crt
- --tls-private-key-file=/etc/specd/tls/tls.key
{{- end }}
{{- if .Values.audit.enabled }}
- --audit-policy-file=/etc/specd/audit/policy.yaml
- --audit-log-path=-
{{- end }}
{{- if include "specd.aggregated" . }}
- --aggregated
{{- if .Values.aggregated.registerAPIServices }}
- --register-apiservices
- --apiservice-service={{ .Release.Namespace }}/{{ include "specd.fullname" . }}
- --apiservice-port={{ .Values.service.port }}
{{- if ne .Values.tls.source "specd" }}
- --apiservice-ca-file={{ include "specd.caFile" . }}
{{- end }}
{{- end }}
{{- end }}
{{- with .Values.extraArgs }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The volumes beside the data directory's. */}}
{{- define "specd.volumes" -}}
- name: tmp
  emptyDir: {}
- name: schemas
{{- if .Values.schemas.volume }}
{{- toYaml .Values.schemas.volume | nindent 2 }}
{{- else }}
  configMap:
    name: {{ default (printf "%s-schemas" (include "specd.fullname" .)) .Values.schemas.configMap }}
{{- end }}
{{- with .Values.plugins.volume }}
- name: plugins
{{- toYaml . | nindent 2 }}
{{- end }}
{{- if ne .Values.tls.source "specd" }}
- name: tls
  secret:
    secretName: {{ include "specd.tlsSecret" . }}
{{- end }}
{{- if .Values.tls.caBundle }}
- name: ca
  configMap:
    name: {{ include "specd.fullname" . }}-ca
{{- end }}
{{- if and (not (include "specd.embedded" .)) .Values.etcd.tlsSecret }}
- name: etcd-tls
  secret:
    secretName: {{ .Values.etcd.tlsSecret }}
{{- end }}
{{- if .Values.audit.enabled }}
- name: audit
  configMap:
    name: {{ include "specd.fullname" . }}-audit
{{- end }}
{{- with .Values.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "specd.volumeMounts" -}}
- name: data
  mountPath: /var/lib/specd
- name: tmp
  mountPath: /tmp
- name: schemas
  mountPath: /etc/specd/schemas
  readOnly: true
{{- if .Values.plugins.volume }}
- name: plugins
  mountPath: /opt/specd/plugins
  readOnly: true
{{- end }}
{{- if ne .Values.tls.source "specd" }}
- name: tls
  mountPath: /etc/specd/tls
  readOnly: true
{{- end }}
{{- if .Values.tls.caBundle }}
- name: ca
  mountPath: /etc/specd/ca
  readOnly: true
{{- end }}
{{- if and (not (include "specd.embedded" .)) .Values.etcd.tlsSecret }}
- name: etcd-tls
  mountPath: /etc/specd/etcd
  readOnly: true
{{- end }}
{{- if .Values.audit.enabled }}
- name: audit
  mountPath: /etc/specd/audit
  readOnly: true
{{- end }}
{{- with .Values.extraVolumeMounts }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The pod template. The data directory is /var/lib/specd/DATADIR, a
folder of the volume that specd makes 0700 itself (etcd wants that, and
the volume's root belongs to root). */}}
{{- define "specd.podTemplate" -}}
metadata:
  labels:
    {{- include "specd.selectorLabels" . | nindent 4 }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .Values.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  serviceAccountName: {{ include "specd.fullname" . }}
  automountServiceAccountToken: {{ ternary true false (eq .Values.mode "aggregated") }}
  {{- with .Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  securityContext:
    {{- toYaml .Values.podSecurityContext | nindent 4 }}
  terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
  {{- with .Values.initContainers }}
  initContainers:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: specd
      image: {{ include "specd.image" . }}
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      args:
        {{- include "specd.args" . | nindent 8 }}
      {{- with .Values.extraEnv }}
      env:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      ports:
        - name: https
          containerPort: {{ .Values.containerPort }}
          protocol: TCP
      startupProbe:
        httpGet: {path: /livez, port: https, scheme: HTTPS}
        periodSeconds: 2
        failureThreshold: 90
      livenessProbe:
        httpGet: {path: /livez, port: https, scheme: HTTPS}
        periodSeconds: 10
        failureThreshold: 3
      readinessProbe:
        httpGet: {path: /readyz, port: https, scheme: HTTPS}
        periodSeconds: 5
        failureThreshold: 2
      resources:
        {{- toYaml .Values.resources | nindent 8 }}
      securityContext:
        {{- toYaml .Values.securityContext | nindent 8 }}
      volumeMounts:
        {{- include "specd.volumeMounts" . | nindent 8 }}
  volumes:
    {{- include "specd.volumes" . | nindent 4 }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.topologySpreadConstraints }}
  topologySpreadConstraints:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- if .Values.affinity }}
  affinity:
    {{- toYaml .Values.affinity | nindent 4 }}
  {{- else if not (include "specd.embedded" .) }}
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 100
          podAffinityTerm:
            topologyKey: kubernetes.io/hostname
            labelSelector:
              matchLabels:
                {{- include "specd.selectorLabels" . | nindent 16 }}
  {{- end }}
{{- end }}
