import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadRuleGroups, PROMETHEUS_RULE_PATH, ROOT } from './prometheusrule.js';

// The PrometheusRule and the rule files are generated from one mixin (test/deploy/mixin.test.ts checks the
// generation itself); this checks, without jsonnet, that prometheus-operator users get the same rules.
describe('deploy/kubernetes PrometheusRule', () => {
  const path = join(ROOT, PROMETHEUS_RULE_PATH);
  const manifest = parse(readFileSync(path, 'utf8')) as {
    kind: string;
    spec: { groups: { name: string; rules: { alert?: string; record?: string }[] }[] };
  };

  it('embeds every alert and recording rule of deploy/prometheus, in order and unchanged', () => {
    expect(manifest.kind).toBe('PrometheusRule');
    expect(manifest.spec.groups).toEqual(loadRuleGroups());
    const embedded = manifest.spec.groups.flatMap((g) => g.rules.map((r) => r.alert ?? r.record));
    expect(embedded).toContain('CriblNodeUnhealthy');
    expect(embedded).toContain('group:cribl_node_info:count');
  });
});
