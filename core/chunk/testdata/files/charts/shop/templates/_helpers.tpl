{{/* The chart's full name. */}}
{{- define "shop.fullname" -}}
{{ .Release.Name }}-{{ .Chart.Name }}
{{- end -}}

{{/* Common labels. */}}
{{- define "shop.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
{{- end -}}
