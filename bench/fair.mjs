// Fair polling (issues 14 and 40), part of npm run bench: two runs of the exporter with its default budget flags
// (--leader.max-rps auto, --leader.max-concurrency 8) against a fresh simulator, each in its own process:
//   1. 20,000 nodes, health every 30 s: time from the exporter's start to every node's first health answer, and
//      the rate in force that auto chose;
//   2. a leader-imposed limit (issue 40): LIMIT.nodes nodes, whose health and metadata need about twice LIMIT.rps,
//      against a leader that allows LIMIT.rps requests/s (token bucket, burst LIMIT.burst) and answers 429 with
//      `Retry-After: LIMIT.retryAfterS` (lib/retry-after-proxy.mjs sets it); after LIMIT.warmupS, the steady part of
//      LIMIT.measureS seconds: accepted requests per second (the simulator's per-second counters), the worst
//      LIMIT.windowS-second window against what the leader allows in it, the share answered 429, and what the
//      exporter says meanwhile (cribl_leader_up, the overrun flag, its rate in force) from a scrape every 15 s.

import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { Agent } from 'undici';
import { fetchMetricsText, json } from './lib/http.mjs';
import { sampleValue } from './lib/metrics-text.mjs';
import { perSecondSeries, rateLimitFigures } from './lib/rate-limit.mjs';
import { startRetryAfterProxy } from './lib/retry-after-proxy.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const FAIR = { coverageNodes: 20_000 };
/** Issue 40's leader: 40 requests/s, burst 10, 429 with Retry-After: 2; 2,400 nodes need 80 health + 4 metadata/s. */
export const LIMIT = { nodes: 2_400, rps: 40, burst: 10, retryAfterS: 2, warmupS: 30, measureS: 120, windowS: 20 };

function startSim(children, nodes) {
  return children.simulator(`simulator fair ${nodes}`, nodes);
}

function startExporter(children, here, name, baseUrl, token) {
  // Default budget flags: nothing but the address and the log level.
  return children.fork(name, join(here, 'exporter.mjs'), ['--web.listen-address', '127.0.0.1:0', '--log.level', 'info'], {
    env: { CRIBL_LEADER_URL: baseUrl, CRIBL_TOKEN: token },
  });
}

async function metricsUrlOf(exp) {
  const listening = await exp.waitForLine(
    (line) => {
      try {
        const j = line.startsWith('{') ? JSON.parse(line) : undefined;
        return j?.msg === 'cribl-exporter listening' ? j : undefined;
      } catch {
        return undefined;
      }
    },
    60_000,
    'listening line',
  );
  return listening.match.url;
}

const health200 = (stats) => stats.requests?.['/w/{nodeId}/health']?.['200'] ?? 0;

/**
 * The runs asked for (`coverage`, `limit`: both by default), each `undefined` when not run; a run that fails leaves
 * its result out and says why in `error`.
 */
export async function runFair({ children, here, log, coverage = true, limit = true }) {
  const out = {};
  const agent = new Agent({ connections: 1 });
  const errors = [];
  const attempt = async (name, f) => {
    try {
      out[name] = await f();
    } catch (e) {
      errors.push(`${name}: ${e instanceof Error ? e.message : String(e)}`);
      log(`fair: ${errors.at(-1)}`);
    }
  };
  try {
    if (coverage) await attempt('coverage', () => runCoverage({ children, here, log, agent }));
    if (limit) await attempt('limit', () => runLimit({ children, here, log, agent }));
  } finally {
    await agent.close();
  }
  if (errors.length) out.error = errors.join('; ');
  return out;
}

/** 20,000 nodes with the default flags: time from the exporter's start to every node's first health answer. */
async function runCoverage({ children, here, log, agent }) {
  const n = FAIR.coverageNodes;
  log(`fair: ${n} nodes, default flags: time to every node's first health answer`);
  const a = await startSim(children, n);
  try {
    const t0 = performance.now();
    const exp = startExporter(children, here, 'exporter fair coverage', a.baseUrl, a.token);
    const metricsUrl = await metricsUrlOf(exp);
    let coveredMs;
    while (performance.now() - t0 < 120_000) {
      if (health200(await json('GET', `${a.adminUrl}/stats`)) >= n) {
        coveredMs = performance.now() - t0;
        break;
      }
      await sleep(250);
    }
    const text = await fetchMetricsText(metricsUrl, agent);
    const result = {
      nodes: n,
      healthIntervalS: 30,
      coveredMs,
      answeredAtEnd: health200(await json('GET', `${a.adminUrl}/stats`)),
      rateRps: sampleValue(text, 'cribl_exporter_leader_rate_limit_requests_per_second'),
      lastRoundS: sampleValue(text, 'cribl_exporter_health_cycle_duration_seconds'),
      overrun: sampleValue(text, 'cribl_exporter_health_cycle_overrun'),
    };
    await exp.stop();
    return result;
  } finally {
    await a.sim.stop();
  }
}

/** The leader-imposed limit run (issue 40); also `npm run bench -- --only rate-limit`. */
export async function runLimit({ children, here, log, agent }) {
  const L = LIMIT;
  log(
    `rate limit: ${L.nodes} nodes against ${L.rps}/s (burst ${L.burst}, Retry-After: ${L.retryAfterS}), ` +
      `${L.warmupS} + ${L.measureS} s`,
  );
  const b = await startSim(children, L.nodes);
  await json('PATCH', `${b.adminUrl}/faults`, { rateLimit: { rate: L.rps, burst: L.burst, retryAfter: 'seconds' } });
  const base = new URL(b.baseUrl);
  const proxy = await startRetryAfterProxy(base.origin, { retryAfterS: L.retryAfterS });
  try {
    const exp = startExporter(children, here, 'exporter rate limit', `${proxy.url}${base.pathname}`, b.token);
    const metricsUrl = await metricsUrlOf(exp);
    await sleep(L.warmupS * 1000);
    await json('POST', `${b.adminUrl}/stats/reset`);
    const t0 = performance.now();
    const scrapes = [];
    while (performance.now() - t0 < L.measureS * 1000) {
      const text = await fetchMetricsText(metricsUrl, agent);
      scrapes.push({
        leaderUp: sampleValue(text, 'cribl_leader_up'),
        overrun: sampleValue(text, 'cribl_exporter_health_cycle_overrun'),
        rateRps: sampleValue(text, 'cribl_exporter_leader_rate_limit_requests_per_second'),
      });
      await sleep(Math.min(15_000, Math.max(0, L.measureS * 1000 - (performance.now() - t0))));
    }
    const st = await json('GET', `${b.adminUrl}/stats`);
    const series = perSecondSeries(st.perSecond, st.since, st.since + st.elapsedMs);
    await exp.stop();
    return {
      limitRps: L.rps,
      burst: L.burst,
      retryAfterS: L.retryAfterS,
      nodes: L.nodes,
      windowS: L.windowS,
      warmupS: L.warmupS,
      measuredS: st.elapsedMs / 1000,
      acceptedPerSecond: st.acceptedPerSecond,
      share429: st.share429,
      series: series.accepted,
      rateLimitedSeries: series.rateLimited,
      figures: rateLimitFigures(series, { limitRps: L.rps, windowS: L.windowS }),
      proxy: proxy.stats(),
      scrapes,
    };
  } finally {
    await proxy.close();
    await b.sim.stop();
  }
}
