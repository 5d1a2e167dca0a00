// Fair polling (issue 14), part of npm run bench: two runs of the exporter with its default budget flags
// (--leader.max-rps auto, --leader.max-concurrency 8) against a fresh simulator, each in its own process:
//   1. 20,000 nodes, health every 30 s: time from the exporter's start to every node's first health answer, and
//      the rate in force that auto chose;
//   2. a leader-imposed limit: 3,000 nodes (they need ~100 requests/s) against a leader that allows LIMIT_RPS
//      requests/s (token bucket of one second, 429 with Retry-After): the share of the limit accepted and of
//      requests answered 429, from the simulator's statistics over MEASURE_S after WARMUP_S.

import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { Agent } from 'undici';
import { fetchMetricsText, json } from './lib/http.mjs';
import { sampleValue } from './lib/metrics-text.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const FAIR = { coverageNodes: 20_000, limitNodes: 3_000, limitRps: 40, warmupS: 10, measureS: 60 };

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

/** Both runs; each result is undefined when it could not be measured (with `error`). */
export async function runFair({ children, here, log }) {
  const out = {};
  const agent = new Agent({ connections: 1 });
  try {
    // --- 1. 20k coverage with default flags
    const n = FAIR.coverageNodes;
    log(`fair: ${n} nodes, default flags: time to every node's first health answer`);
    const a = await startSim(children, n);
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
    out.coverage = {
      nodes: n,
      healthIntervalS: 30,
      coveredMs,
      answeredAtEnd: health200(await json('GET', `${a.adminUrl}/stats`)),
      rateRps: sampleValue(text, 'cribl_exporter_leader_rate_limit_requests_per_second'),
      lastRoundS: sampleValue(text, 'cribl_exporter_health_cycle_duration_seconds'),
      overrun: sampleValue(text, 'cribl_exporter_health_cycle_overrun'),
    };
    await exp.stop();
    await a.sim.stop();

    // --- 2. a leader-imposed limit
    const R = FAIR.limitRps;
    log(`fair: a leader limit of ${R}/s, ${FAIR.limitNodes} nodes, ${FAIR.warmupS} + ${FAIR.measureS} s`);
    const b = await startSim(children, FAIR.limitNodes);
    await json('PATCH', `${b.adminUrl}/faults`, { rateLimit: { rate: R, burst: R, retryAfter: 'seconds' } });
    const exp2 = startExporter(children, here, 'exporter fair limit', b.baseUrl, b.token);
    const metricsUrl2 = await metricsUrlOf(exp2);
    await sleep(FAIR.warmupS * 1000);
    await json('POST', `${b.adminUrl}/stats/reset`);
    await sleep(FAIR.measureS * 1000);
    const st = await json('GET', `${b.adminUrl}/stats`);
    const text2 = await fetchMetricsText(metricsUrl2, agent);
    out.limit = {
      limitRps: R,
      nodes: FAIR.limitNodes,
      measuredS: st.elapsedMs / 1000,
      acceptedPerSecond: st.acceptedPerSecond,
      share429: st.share429,
      retryAfterViolations: st.retryAfterViolations,
      rateRps: sampleValue(text2, 'cribl_exporter_leader_rate_limit_requests_per_second'),
    };
    await exp2.stop();
    await b.sim.stop();
  } catch (e) {
    out.error = e instanceof Error ? e.message : String(e);
    log(`fair: ${out.error}`);
  } finally {
    await agent.close();
  }
  return out;
}
