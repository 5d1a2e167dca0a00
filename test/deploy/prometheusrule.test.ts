import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadRuleGroups, PROMETHEUS_RULE_PATH, renderPrometheusRule, ROOT } from './prometheusrule.js';

// deploy/prometheus/ is the single source of truth; the PrometheusRule is generated from it.
describe('deploy/kubernetes PrometheusRule', () => {
  const path = join(ROOT, PROMETHEUS_RULE_PATH);
  const expected = renderPrometheusRule(loadRuleGroups());

  if (process.env.UPDATE_GENERATED === '1') writeFileSync(path, expected);

  it('is exactly what deploy/prometheus/*.yaml generate', () => {
    expect(readFileSync(path, 'utf8')).toBe(expected);
  });

  it('embeds every alert and recording rule of deploy/prometheus', () => {
    const embedded = (parse(readFileSync(path, 'utf8')) as { spec: { groups: { rules: { alert?: string; record?: string }[] }[] } })
      .spec.groups.flatMap((g) => g.rules.map((r) => r.alert ?? r.record));
    const source = loadRuleGroups().flatMap((g) => g.rules.map((r) => r.alert ?? r.record));
    expect(embedded).toEqual(source);
    expect(embedded).toContain('CriblNodeUnhealthy');
    expect(embedded).toContain('group:cribl_node_info:count');
  });
});
