import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leftToFirstRun } from '../helpers/repeat.js';
import { PROMETHEUS_BIN, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { dashboardQueries, loadDashboard, unwrapLabelValues } from './dashboard.js';
import { skipWithout, toolTimeouts } from './tools.js';

// Prometheus: see TOOL_TIMEOUT_MS.
toolTimeouts();

/** What Grafana would send: variables replaced by plausible values, label_values() by its selector. */
function asSent(expr: string): string {
  return unwrapLabelValues(expr)
    .replace(/\$__rate_interval/g, '1m')
    .replace(/\$\{?\w+\}?/g, 'x');
}

const queries = dashboardQueries(loadDashboard()).map((q) => [q.where, q.expr] as const);

// Prometheus' own parser is the judge of the dashboard's PromQL.
const noPrometheus = skipWithout(PROMETHEUS_BIN) || leftToFirstRun('dashboard queries (Prometheus)');
describe.skipIf(noPrometheus)('dashboard queries', () => {
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
