import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { dashboardQueries, loadDashboard, unwrapLabelValues } from './dashboard.js';
import { loadRuleGroups, ROOT } from './prometheusrule.js';

// The dashboard and the rules may use only metric names we export: docs/metrics.md is the contract (generated and
// checked against the exporter by test/docs/metrics.test.ts).

const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
  'atan2',
]);

/** Metric names a PromQL expression (or a Grafana `label_values(expr, label)` query) selects. */
function metricNames(promql: string): string[] {
  const bare = unwrapLabelValues(promql)
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/(?<![\w:])\d+(?:\.\d+)?(?:[eE][+-]?\d+|ms|s|m|h|d|w|y)?\b/g, ' ');
  const names = [...bare.matchAll(/[a-zA-Z_:][\w:]*(?!\w)(?!\s*\()/g)]
    .map((m) => m[0])
    .filter((n) => !KEYWORDS.has(n.toLowerCase()));
  return [...new Set(names)];
}

describe('metricNames', () => {
  it.each<[string, string[]]>([
    ['up{job=~".*cribl-exporter.*"} == 0', ['up']],
    [
      'sum without (code) (rate(cribl_exporter_leader_throttled_total[5m])) > 0',
      ['cribl_exporter_leader_throttled_total'],
    ],
    ['(a == 0) unless ignoring (product, group, node_id) (b == 0)', ['a', 'b']],
    ['time() - x_timestamp_seconds > 300', ['x_timestamp_seconds']],
    ['histogram_quantile(0.99, sum by (le) (rate(h_bucket{l="$v"}[$__rate_interval])))', ['h_bucket']],
    ['count(m{a="b"} == 0) or vector(0)', ['m']],
    ['2 ^ max by (job) (t) - 1 - sum(2 ^ i) offset 5m', ['t', 'i']],
    ['level:metric:rate5m * 1e3', ['level:metric:rate5m']],
    ['label_values(cribl_node_info{job=~"$job"}, group)', ['cribl_node_info']],
    ['label_values(job)', []],
  ])('%s', (expr, names) => expect(metricNames(expr)).toEqual(names));
});

/** Names in the metric tables of docs/metrics.md, with the series a histogram exposes. */
function contractNames(): Set<string> {
  const names = new Set<string>();
  for (const line of readFileSync(join(ROOT, 'docs/metrics.md'), 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4) continue;
    const [, first = '', type = ''] = cells;
    for (const [, name = ''] of first.matchAll(/`([a-z_:][a-z0-9_:]*)`/g)) {
      names.add(name);
      if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    }
  }
  return names;
}

/** prom-client's default process_* and nodejs_* metrics (the contract's last row), as they are named. */
async function defaultMetricNames(): Promise<Set<string>> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const names = new Set<string>();
  for (const m of await registry.getMetricsAsJSON()) {
    names.add(m.name);
    if (String(m.type) === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m.name + s);
  }
  return names;
}

// Series Prometheus itself writes for every scrape target and alert.
const PROMETHEUS_NAMES = ['up', 'scrape_duration_seconds', 'scrape_samples_scraped', 'ALERTS'];

const dashboard = loadDashboard();
const queries = dashboardQueries(dashboard);
const rules = loadRuleGroups().flatMap((g) => g.rules);
const recorded = new Set(rules.flatMap((r) => (r.record ? [r.record] : [])));

describe('metric names in the dashboard and the rules', async () => {
  const contract = contractNames();
  const allowed = new Set([...contract, ...(await defaultMetricNames()), ...PROMETHEUS_NAMES]);

  it('the contract is read from docs/metrics.md', () => {
    expect(contract).toContain('cribl_node_healthy');
    expect(contract).toContain('cribl_exporter_shard_total');
    expect(contract).toContain('cribl_exporter_leader_request_duration_seconds_bucket');
    expect(readFileSync(join(ROOT, 'docs/metrics.md'), 'utf8')).toContain('`process_*`, `nodejs_*`');
  });

  it('the dashboard uses only exported names', () => {
    const used = queries.flatMap((q) => metricNames(q.expr).map((name) => ({ ...q, name })));
    expect(new Set(used.map((u) => u.name)).size).toBeGreaterThan(30);
    expect(used.filter((u) => !allowed.has(u.name)).map((u) => `${u.where}: ${u.name}`)).toEqual([]);
  });

  it('uses every family of the contract in a panel, but for the few the rules and the status page cover', () => {
    const used = new Set(queries.flatMap((q) => metricNames(q.expr)));
    // Families of the contract that no panel shows (each has a reason: an alert reads it, or it is per-node detail).
    const notShown = new Set([
      'cribl_leader_last_discovery_timestamp_seconds',
      'cribl_leader_start_timestamp_seconds',
      'cribl_leader_git_settings_info',
      'cribl_search_probe_last_success_timestamp_seconds',
      'cribl_search_probe_failure_info',
      'cribl_node_reported_healthy',
      'cribl_node_upgrade_status_timestamp_seconds',
      'cribl_group_last_commit_timestamp_seconds',
      'cribl_exporter_health_poll_age_max_seconds',
      'cribl_exporter_health_rotation_seconds',
      'cribl_exporter_slow_nodes',
      'cribl_exporter_leader_rate_limit_requests_per_second',
      'cribl_exporter_body_build_duration_seconds',
      'cribl_exporter_body_bytes',
      'cribl_exporter_body_worker_restarts_total',
    ]);
    // A histogram is shown through its buckets.
    const shown = (n: string): boolean =>
      used.has(n) || used.has(`${n}_bucket`) || used.has(n.replace(/_(sum|count|bucket)$/, '_bucket'));
    const families = [...contract].filter((n) => n.startsWith('cribl_'));
    expect(families.filter((n) => !shown(n) && !notShown.has(n))).toEqual([]);
    expect(
      [...notShown].filter((n) => shown(n)),
      'shown after all: drop it from the list',
    ).toEqual([]);
  });

  it('shows each data-in-motion alert (issue 48) on a panel that names it, with every family it reads', () => {
    const inMotion = loadRuleGroups()
      .filter((g) => g.name === 'cribl-throughput')
      .flatMap((g) => g.rules);
    expect(inMotion.map((r) => r.alert)).toContain('CriblDestinationBlocked');
    const used = new Set(queries.flatMap((q) => metricNames(q.expr)));
    const families = (expr: string): string[] =>
      metricNames(expr).flatMap((n) => {
        const rule = rules.find((r) => r.record === n);
        return rule ? families(rule.expr) : n.startsWith('cribl_') ? [n] : [];
      });
    for (const a of inMotion) {
      const panels = dashboard.panels.filter((p) => p.description?.includes(a.alert!));
      expect(panels.length, `a panel whose description names ${a.alert}`).toBeGreaterThan(0);
      expect(
        families(a.expr).filter((n) => !used.has(n)),
        a.alert,
      ).toEqual([]);
    }
  });

  it('the rules use only exported names and the rules they record', () => {
    const used = rules.flatMap((r) => metricNames(r.expr).map((name) => ({ rule: r.alert ?? r.record, name })));
    expect(used.length).toBeGreaterThan(20);
    expect(
      used.filter((u) => !allowed.has(u.name) && !recorded.has(u.name)).map((u) => `${u.rule}: ${u.name}`),
    ).toEqual([]);
  });

  it('the dashboard has the seven sections, with a node_id variable and a Prometheus data source variable', () => {
    expect(dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title)).toEqual([
      'Fleet overview',
      'Groups and fleets',
      'Data flow',
      'Throughput',
      'License and leader',
      'Node $node_id',
      'Exporter and leader budget',
    ]);
    const vars = dashboard.templating.list;
    expect(vars.find((v) => v.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(vars.find((v) => v.name === 'node_id')?.type).toBe('query');
  });
});
