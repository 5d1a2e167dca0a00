import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMETHEUS_BIN, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { ROOT } from './prometheusrule.js';
import { IN_CI } from './tools.js';

interface Dashboard {
  templating: { list: { name: string; type: string; query?: string | { query: string } }[] };
  panels: { title: string; targets?: { expr: string }[] }[];
}

const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy/grafana/cribl-exporter.json'), 'utf8')) as Dashboard;

/** What Grafana would send: variables replaced by plausible values, label_values() by its selector. */
function asSent(expr: string): string {
  return expr
    .replace(/^\s*label_values\(([\s\S]*),\s*\w+\s*\)\s*$/, '$1')
    .replace(/\$__rate_interval/g, '1m')
    .replace(/\$\{?\w+\}?/g, 'x');
}

const queries = [
  ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => [`panel "${p.title}"`, t.expr] as const)),
  ...dashboard.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => [`variable ${v.name}`, typeof v.query === 'string' ? v.query : (v.query?.query ?? '')] as const),
];

// Prometheus' own parser is the judge of the dashboard's PromQL.
describe.skipIf(!IN_CI && !existsSync(PROMETHEUS_BIN))('dashboard queries', () => {
  let prom: RunningPrometheus;
  beforeAll(async () => {
    prom = await startPrometheus({ scrapeTargets: [] });
  });
  afterAll(async () => {
    await prom?.close();
  });

  it.each(queries)('%s parses: %s', async (_, expr) => {
    await expect(prom.query(asSent(expr))).resolves.toBeInstanceOf(Array);
  });
});
