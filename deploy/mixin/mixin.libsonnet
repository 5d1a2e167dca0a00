// The cribl-exporter monitoring mixin: alerting rules, recording rules and a Grafana dashboard, configured by
// _config (config.libsonnet). Use it as kube-state-metrics' and node_exporter's: import it, override _config,
// and render prometheusAlerts, prometheusRules and grafanaDashboards. See README.md.
(import 'config.libsonnet')
+ (import 'alerts/alerts.libsonnet')
+ (import 'rules/rules.libsonnet')
+ (import 'dashboards/cribl-exporter.libsonnet')
