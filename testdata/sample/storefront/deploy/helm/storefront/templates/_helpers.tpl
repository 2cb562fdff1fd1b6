{{- define "storefront.labels" -}}
app: storefront
app.kubernetes.io/name: storefront
app.kubernetes.io/part-of: acme-shop
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}
