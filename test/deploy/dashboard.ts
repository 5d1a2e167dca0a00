import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './prometheusrule.js';

/** The parts of the Grafana dashboard JSON the tests read. */
export interface Dashboard {
  templating: { list: { name: string; type: string; query?: unknown }[] };
  panels: { title: string; type: string; description?: string; targets?: { expr: string }[] }[];
}

/** deploy/grafana/cribl-exporter.json, parsed. */
export function loadDashboard(): Dashboard {
  return JSON.parse(readFileSync(join(ROOT, 'deploy/grafana/cribl-exporter.json'), 'utf8')) as Dashboard;
}

/** Every PromQL query of the dashboard (panel targets and variable queries), with where it is. */
export function dashboardQueries(d: Dashboard): { where: string; expr: string }[] {
  const variableQuery = (q: unknown): string =>
    typeof q === 'string' ? q : ((q as { query?: string } | undefined)?.query ?? '');
  return [
    ...d.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr }))),
    ...d.templating.list
      .filter((v) => v.type === 'query')
      .map((v) => ({ where: `variable ${v.name}`, expr: variableQuery(v.query) })),
  ];
}

/** The selector of a Grafana `label_values(selector, label)` query; other queries unchanged. */
export function unwrapLabelValues(query: string): string {
  return query
    .replace(/^\s*label_values\(\s*\w+\s*\)\s*$/, '')
    .replace(/^\s*label_values\(([\s\S]*),\s*\w+\s*\)\s*$/, '$1');
}
