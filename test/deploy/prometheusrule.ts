import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

/** Repository root, from this file's place in test/deploy/. */
export const ROOT = join(import.meta.dirname, '..', '..');

/** The Prometheus rule files, in the order their groups appear in the PrometheusRule. */
export const RULE_FILES = ['deploy/prometheus/alerts.yaml', 'deploy/prometheus/rules.yaml'] as const;

/** Where the generated PrometheusRule lives. */
export const PROMETHEUS_RULE_PATH = 'deploy/kubernetes/common/prometheusrule.yaml';

/** One rule of a Prometheus rule file (the fields our files use). */
export interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** One group of a Prometheus rule file. */
export interface RuleGroup {
  name: string;
  rules: Rule[];
}

/** The groups of every file in RULE_FILES, in order. */
export function loadRuleGroups(root = ROOT): RuleGroup[] {
  return RULE_FILES.flatMap((file) => (parse(readFileSync(join(root, file), 'utf8')) as { groups: RuleGroup[] }).groups);
}

const HEADER = `# Generated from ${RULE_FILES.join(' and ')}; do not edit.
# Regenerate after changing them: UPDATE_GENERATED=1 npx vitest run test/deploy/prometheusrule.test.ts
# Your Prometheus may select rules by a label (kube-prometheus-stack: release=<its release name>); add it here.
`;

/** The PrometheusRule manifest embedding `groups`, as YAML text. */
export function renderPrometheusRule(groups: readonly RuleGroup[]): string {
  const manifest = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'cribl-exporter', labels: { 'app.kubernetes.io/name': 'cribl-exporter' } },
    spec: { groups },
  };
  return HEADER + stringify(manifest, { lineWidth: 0 });
}
