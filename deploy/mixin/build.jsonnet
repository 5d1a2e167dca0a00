// The files the repository ships, generated from the mixin with its default _config: each field names a file
// (relative to the repository root) and holds its header comment and content. `npm run mixin`
// (scripts/mixin-build.mjs) writes them as YAML or JSON. Edit the mixin, never the generated files: a test fails
// when they differ from a fresh build.
local mixin = import 'mixin.libsonnet';

{
  'deploy/prometheus/alerts.yaml': {
    header: |||
      Alerting rules for cribl-exporter. Load with `rule_files:` (plain Prometheus) or through the
      PrometheusRule in deploy/kubernetes/common/prometheusrule.yaml (prometheus-operator).
      Conventions and thresholds: deploy/mixin/alerts/alerts.libsonnet and docs/deploy.md ("Prometheus rules").
      Tests: promtool test rules deploy/prometheus/tests/*.test.yaml
    |||,
    content: mixin.prometheusAlerts,
  },

  'deploy/prometheus/rules.yaml': {
    header: |||
      Recording rules for cribl-exporter: fleet roll-ups per group and per leader (deploy/mixin/rules/).
      Tests: promtool test rules deploy/prometheus/tests/*.test.yaml
    |||,
    content: mixin.prometheusRules,
  },

  'deploy/kubernetes/common/prometheusrule.yaml': {
    header: |||
      The alerting and recording rules of deploy/prometheus/ for prometheus-operator. Your Prometheus may select
      rules by a label (kube-prometheus-stack: release=<its release name>); add it from your overlay.
    |||,
    content: {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      metadata: { name: 'cribl-exporter', labels: { 'app.kubernetes.io/name': 'cribl-exporter' } },
      spec: { groups: mixin.prometheusAlerts.groups + mixin.prometheusRules.groups },
    },
  },

  'deploy/grafana/cribl-exporter.json': {
    content: mixin.grafanaDashboards['cribl-exporter.json'],
  },
}
