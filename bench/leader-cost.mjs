// Leader cost per discovery interval (issues 39 and 48), part of npm run bench: the exporter with its default flags against
// a simulated leader of LEADER_COST.groups groups and LEADER_COST.destinations destinations (bench/leader-cost.yaml),
// and the requests of LEADER_COST.intervals
// discovery intervals by endpoint, counted twice: by the simulator (GET /_sim/stats, by route template) and by the
// exporter (cribl_exporter_leader_requests_total{endpoint}, the difference of two scrapes). The window opens half an
// interval after the first discovery, so that it holds exactly `intervals` discoveries. Per-node routes (/w/{nodeId}/…)
// are counted apart: they follow the health and metadata intervals, not discovery.

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import { jsonLine } from './lib/children.mjs';
import { fetchMetricsText, json } from './lib/http.mjs';
import { sumBy } from './lib/metrics-text.mjs';

export const LEADER_COST = { nodes: 500, groups: 10, destinations: 100, intervals: 2, discoveryS: 60 };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The fleet of the measurement: LEADER_COST.groups groups and LEADER_COST.destinations destinations (a scenario). */
export const LEADER_COST_SCENARIO = 'leader-cost.yaml';

/**
 * Requests per discovery interval before the data-flow collectors (issue 39): the same run (this scenario, 500
 * nodes, default flags) at bbd8545, 2026-11-28. The per-node routes are left out: they follow the health and
 * metadata intervals.
 */
export const BEFORE_DATAFLOW = {
  commit: 'bbd8545',
  endpoints: {
    '/health': 1,
    '/m/{group}/version': 10,
    '/products/{product}/groups': 2,
    '/products/{product}/workers': 2,
    '/system/settings/git-settings': 1,
  },
  perDiscovery: 16,
};

/**
 * Requests per discovery interval before the throughput collector (issue 48): the same run at 0fcb299, 2026-12-02
 * (the data-flow, licence and leader collectors in). Issue 48 allows `allowed` more per interval (the throughput
 * collector's four queries at its default interval, which is the discovery interval's; --throughput.per-node adds
 * its counts to the node query, not a request, and the issue allows one more with it).
 */
export const BEFORE_THROUGHPUT = {
  commit: '0fcb299',
  endpoints: {
    '/health': 1,
    '/m/{group}/system/status/inputs': 10,
    '/m/{group}/system/status/outputs': 10,
    '/m/{group}/version': 10,
    '/products/{product}/groups': 2,
    '/products/{product}/workers': 2,
    '/system/info': 1,
    '/system/messages': 1,
    '/system/settings/git-settings': 1,
  },
  perDiscovery: 38,
  /** The throughput collector's routes (issue 39's verdict leaves them out: issue 48's judges them). */
  routes: ['/system/metrics/query', '/system/metrics/enum'],
  allowed: 4,
  allowedPerNode: 5,
};

/** Requests by route template from the simulator's stats (every status). */
function byRoute(stats) {
  return Object.fromEntries(
    Object.entries(stats.requests ?? {}).map(([route, byStatus]) => [
      route,
      Object.values(byStatus).reduce((a, b) => a + b, 0),
    ]),
  );
}

/** `simArgs`: the simulator's extra flags (default: the scenario of LEADER_COST_SCENARIO). */
export async function runLeaderCost({ children, here, log, simArgs, intervals = LEADER_COST.intervals }) {
  const L = LEADER_COST;
  const extra = simArgs ?? ['--scenario', join(here, LEADER_COST_SCENARIO)];
  log(`leader cost: ${L.nodes} nodes, simulator flags [${extra.join(' ')}], ${intervals} discovery intervals`);
  const s = await children.simulator('simulator leader cost', L.nodes, extra);
  const agent = new Agent({ connections: 1 });
  try {
    const groups = await json('GET', `${s.adminUrl}/groups`);
    const listedGroups = Object.values(groups ?? {}).flat().length;
    const exp = children.fork(
      'exporter leader cost',
      join(here, 'exporter.mjs'),
      ['--web.listen-address', '127.0.0.1:0', '--log.level', 'info', '--discovery.interval', `${L.discoveryS}s`],
      { env: { CRIBL_LEADER_URL: s.baseUrl, CRIBL_TOKEN: s.token } },
    );
    const metricsUrl = (await exp.waitForLine(jsonLine('cribl-exporter listening'), 60_000, 'listening line')).match.url;
    const first = await exp.waitForLine(jsonLine('first discovery complete'), 120_000, 'first discovery');
    await sleep(Math.max(0, first.at + (L.discoveryS * 1000) / 2 - performance.now()));
    const before = sumBy(
      await fetchMetricsText(metricsUrl, agent),
      'cribl_exporter_leader_requests_total',
      'endpoint',
    );
    await json('POST', `${s.adminUrl}/stats/reset`);
    const w0 = performance.now();
    await sleep(intervals * L.discoveryS * 1000);
    const sim = byRoute(await json('GET', `${s.adminUrl}/stats`));
    const windowS = (performance.now() - w0) / 1000;
    const after = sumBy(await fetchMetricsText(metricsUrl, agent), 'cribl_exporter_leader_requests_total', 'endpoint');
    await exp.stop();
    const names = [...new Set([...Object.keys(sim), ...Object.keys(after)])].sort();
    const endpoints = names
      .map((endpoint) => ({
        endpoint,
        perNode: endpoint.startsWith('/w/'),
        simulator: (sim[endpoint] ?? 0) / intervals,
        exporter: after[endpoint] === undefined ? undefined : (after[endpoint] - (before[endpoint] ?? 0)) / intervals,
      }))
      .filter((e) => e.simulator > 0 || (e.exporter ?? 0) > 0);
    const total = (perNode) =>
      endpoints.filter((e) => e.perNode === perNode).reduce((a, e) => a + e.simulator, 0);
    return {
      nodes: L.nodes,
      wantGroups: L.groups,
      wantDestinations: L.destinations,
      simArgs: extra,
      listedGroups,
      intervals,
      discoveryS: L.discoveryS,
      windowS,
      endpoints,
      perDiscovery: total(false),
      perNodeRoutes: total(true),
      before: BEFORE_DATAFLOW,
      beforeThroughput: BEFORE_THROUGHPUT,
    };
  } finally {
    await agent.close();
    await s.sim.stop();
  }
}
