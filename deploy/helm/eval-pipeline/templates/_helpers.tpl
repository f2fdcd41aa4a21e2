{{/* Names, labels and the pieces every eval-pipeline pod shares. */}}

{{- define "eval-pipeline.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "eval-pipeline.fullname" -}}
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

{{- define "eval-pipeline.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "eval-pipeline.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "eval-pipeline.selectorLabels" -}}
app.kubernetes.io/name: {{ include "eval-pipeline.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "eval-pipeline.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "eval-pipeline.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "eval-pipeline.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The span stream: stream.url, else the NATS subchart's client Service. */}}
{{- define "eval-pipeline.streamUrl" -}}
{{- if .Values.stream.url }}
{{- .Values.stream.url }}
{{- else if .Values.nats.enabled }}
{{- printf "nats://%s-nats:4222" .Release.Name }}
{{- else }}
{{- fail "stream.url: set a NATS URL, or keep nats.enabled (the receivers, writers and detectors share one stream)" }}
{{- end }}
{{- end }}

{{/* Environment of every eval-pipeline container: home, state database, object store, key. */}}
{{- define "eval-pipeline.env" -}}
- name: EVAL_PIPELINE_HOME
  value: /var/lib/eval-pipeline
- name: EVAL_PIPELINE_STATE_URL
  valueFrom:
    secretKeyRef:
      name: {{ required "postgresql.existingSecret: the state database's Secret" .Values.postgresql.existingSecret }}
      key: {{ .Values.postgresql.stateUrlKey }}
{{- with .Values.objectStore.url }}
- name: EVAL_PIPELINE_STORE_URL
  value: {{ . | quote }}
{{- end }}
{{- with .Values.objectStore.endpoint }}
- name: AWS_ENDPOINT_URL
  value: {{ . | quote }}
{{- end }}
- name: AWS_REGION
  value: {{ .Values.objectStore.region | quote }}
{{- with .Values.redaction.existingSecret }}
- name: EVAL_PIPELINE_REDACTION_KEY
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.redaction.key }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "eval-pipeline.envFrom" -}}
{{- with .Values.objectStore.existingSecret }}
envFrom:
  - secretRef:
      name: {{ . }}
{{- end }}
{{- end }}

{{/* Volumes: the home (a claim, or an emptyDir per pod) and a writable /tmp. */}}
{{- define "eval-pipeline.volumes" -}}
- name: home
{{- if .Values.home.existingClaim }}
  persistentVolumeClaim:
    claimName: {{ .Values.home.existingClaim }}
{{- else }}
  emptyDir:
    sizeLimit: {{ .Values.home.sizeLimit }}
{{- end }}
- name: tmp
  emptyDir: {}
{{- end }}

{{- define "eval-pipeline.volumeMounts" -}}
- name: home
  mountPath: /var/lib/eval-pipeline
- name: tmp
  mountPath: /tmp
{{- end }}

{{/* The pod spec's shared part: account, pull secrets, security context. */}}
{{- define "eval-pipeline.podCommon" -}}
serviceAccountName: {{ include "eval-pipeline.serviceAccountName" . }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end }}

{{/* nodeSelector, tolerations and affinity of one role (its values block). */}}
{{- define "eval-pipeline.scheduling" -}}
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
