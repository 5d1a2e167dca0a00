// The Edge-heavy sizes of `npm run bench` (100k, 250k; issue 51): the simulator with
// examples/scenarios/edge-scale.yaml (97 % Edge in 150 fleets, 3 % disconnected, 1 % silent), and the exporter on
// its default flags (leader rate and concurrency, intervals, node detail), only `--exporter-env` added. Not the
// pipeline of the smaller sizes (bench/run.mjs): at these sizes a full-detail body is gigabytes and every node's
// health per interval is more than the leader may be asked; what is judged is one process's cost and what it asks
// of the leader.
//
// Per size: the simulator's own capacity (autocannon, 5 s each, on /w/{id}/health, /w/{id}/edge/metadata and
// listing pages of 1,000; its CPU and memory) → the exporter → first discovery → first complete coverage (every
// node's liveness known: a cribl_node_connected sample per node in /metrics, or the per-group aggregates
// cribl_group_nodes{state} counting every listed node) → a steady window of two discovery intervals (exporter CPU and RSS, leader
// requests per second and per discovery by kind, simulator CPU) with gzip scrapes every 15 s → series per node and
// in total. Scrapes are counted as they stream (a 250k full body does not fit a string).

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createGunzip } from 'node:zlib';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { jsonLine } from './lib/children.mjs';
import { json } from './lib/http.mjs';
import { processCpuMs, processMemory } from './lib/machine.mjs';
import { sizeLabel } from './lib/stats.mjs';

/** From this size on, a size of `npm run bench` is Edge-heavy and runs here. */
export const EDGE_HEAVY_FROM = 100_000;
export const SCALE_SCENARIO = 'examples/scenarios/edge-scale.yaml';
/** The exporter's default discovery interval (--discovery.interval): the steady window is two of them. */
const DISCOVERY_S = 60;
const PAGE = 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Requests of a /_sim/stats snapshot, summed by kind. */
function byKind(stats) {
  const out = { total: 0, listing: 0, health: 0, metadata: 0, other: 0, nonOk: 0 };
  for (const [route, statuses] of Object.entries(stats.requests ?? {})) {
    for (const [status, c] of Object.entries(statuses)) {
      out.total += c;
      if (status !== '200') out.nonOk += c;
      if (route === '/products/{product}/workers' || route === '/master/workers') out.listing += c;
      else if (route === '/w/{nodeId}/health') out.health += c;
      else if (route === '/w/{nodeId}/edge/metadata') out.metadata += c;
      else out.other += c;
    }
  }
  return out;
}
const minus = (a, b) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v - (b[k] ?? 0)]));

/** One gzip scrape counted as it streams: samples, per-node samples (cribl_node_*), liveness samples. */
async function countScrape(url, dispatcher) {
  const t0 = performance.now();
  const res = await request(url, {
    dispatcher,
    headers: { 'accept-encoding': 'gzip' },
    headersTimeout: 300_000,
    bodyTimeout: 300_000,
  });
  const ttfbMs = performance.now() - t0;
  const counts = { ttfbMs, bytes: 0, series: 0, nodeSeries: 0, connected: 0, grouped: 0 };
  const stream = res.headers['content-encoding'] === 'gzip' ? res.body.pipe(createGunzip()) : res.body;
  res.body.on('data', (c) => (counts.bytes += c.length));
  let rest = '';
  const line = (l) => {
    if (l === '' || l.startsWith('#')) return;
    counts.series++;
    if (l.startsWith('cribl_node_')) counts.nodeSeries++;
    if (l.startsWith('cribl_node_connected{')) counts.connected++;
    // The fleet aggregates count every listed node by its state, at every detail level.
    if (l.startsWith('cribl_group_nodes{')) counts.grouped += Number(l.slice(l.lastIndexOf(' ') + 1));
  };
  for await (const chunk of stream) {
    const text = rest + chunk.toString('latin1');
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      line(text.slice(start, end));
      start = end + 1;
    }
    rest = text.slice(start);
  }
  line(rest);
  if (res.statusCode !== 200) throw new Error(`GET ${url}: HTTP ${res.statusCode}`);
  counts.totalMs = performance.now() - t0;
  return counts;
}

/** autocannon for `durationS` on the paths `next()` gives: requests/s answered 2xx and the simulator's CPU. */
async function capacity(sim, origin, token, next, durationS = 5, connections = 16) {
  const cpu0 = processCpuMs(sim.proc.pid);
  const r = await autocannon({
    url: origin,
    connections,
    duration: durationS,
    headers: { authorization: `Bearer ${token}` },
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: next() }) }],
  });
  return {
    rps: r['2xx'] / r.duration,
    non2xx: r.non2xx,
    errors: r.errors,
    latencyP99Ms: r.latency.p99,
    simCpuCores: (processCpuMs(sim.proc.pid) - cpu0) / (r.duration * 1000),
  };
}

/**
 * One Edge-heavy size. `ctx`: { children, here, repo, log, exporterEnv, imageEnv, imageNodeFlags }. Every phase
 * that fails is reported in place of its figures; the size always ends with the processes stopped.
 */
export async function runScaleSize(n, ctx) {
  const { children, here, repo, log, exporterEnv, imageEnv, imageNodeFlags } = ctx;
  const label = sizeLabel(n);
  // BENCH_SCALE_SCENARIO: another fleet (examples/scenarios/edge-only-scale.yaml: every node an Edge node).
  const scenario = process.env.BENCH_SCALE_SCENARIO || SCALE_SCENARIO;
  const r = { nodes: n, label, scenario, discoveryS: DISCOVERY_S };
  log(`${label}: starting the simulator (${scenario})`);
  const t00 = performance.now();
  const { sim, baseUrl, token, adminUrl } = await children.simulator(`simulator ${label}`, n, [
    '--scenario',
    join(repo, scenario),
  ]);
  let exp;
  const agent = new Agent({ connections: 1 });
  try {
    r.simulator = { startMs: performance.now() - t00, rssAtStart: processMemory(sim.proc.pid).rss };
    const truth = await json('GET', `${adminUrl}/truth`);
    r.truth = { products: truth.products, groups: truth.groups.length };
    const origin = new URL(baseUrl).origin;
    const ids = (await json('GET', `${adminUrl}/nodes?limit=20000`)).items
      .filter((x) => !x.disconnected && x.product === 'edge')
      .map((x) => x.id);
    const edgePages = Math.ceil(truth.products.edge.nodes / PAGE);
    let i = 0;
    log(`${label}: the simulator's capacity (autocannon, 16 connections, 5 s per route)`);
    r.simulator.health = await capacity(sim, origin, token, () => `/api/v1/w/${ids[i++ % ids.length]}/health`);
    r.simulator.metadata = await capacity(sim, origin, token, () => `/api/v1/w/${ids[i++ % ids.length]}/edge/metadata`);
    r.simulator.listingPage = await capacity(
      sim,
      origin,
      token,
      () => `/api/v1/products/edge/workers?limit=${PAGE}&offset=${(i++ % edgePages) * PAGE}`,
    );
    r.simulator.rssAfterCapacity = processMemory(sim.proc.pid).rss;
    await json('POST', `${adminUrl}/stats/reset`);

    // --- the exporter, on its default flags
    const args = ['--web.listen-address', '127.0.0.1:0', '--log.level', 'info'];
    r.exporterArgs = args;
    log(`${label}: starting the exporter (default flags)`);
    const simCpu0 = processCpuMs(sim.proc.pid);
    const t0 = performance.now();
    exp = children.fork(`exporter ${label}`, join(here, 'exporter.mjs'), args, {
      execArgv: imageNodeFlags,
      env: { ...imageEnv, ...exporterEnv, CRIBL_LEADER_URL: baseUrl, CRIBL_TOKEN: token },
    });
    const discovered = exp.waitForLine(jsonLine('first discovery complete'), 900_000, 'first discovery');
    discovered.catch(() => undefined);
    const metricsUrl = (await exp.waitForLine(jsonLine('cribl-exporter listening'), 120_000, 'listening line')).match
      .url;
    const d = await discovered;
    r.firstDiscovery = {
      atS: (d.at - t0) / 1000,
      requests: d.match.requests,
      leader: byKind(await json('GET', `${adminUrl}/stats`)),
    };
    log(`${label}: first discovery after ${r.firstDiscovery.atS.toFixed(1)} s; waiting for every node's liveness`);

    // --- first complete coverage: a liveness sample per node (the listing's), or none at all (minimal detail)
    const deadline = t0 + 2 * DISCOVERY_S * 1000 + 300_000;
    for (;;) {
      const s = await countScrape(metricsUrl, agent);
      const at = (performance.now() - t0) / 1000;
      r.lastScrape = s;
      // Every listed node's state (connected or not, from the listing) is in /metrics: per node where its product's
      // detail keeps cribl_node_connected, and in the per-group aggregates (cribl_group_nodes{state}) at every level.
      if (s.connected >= n || s.grouped >= n) {
        r.coverage = {
          atS: at,
          by: s.connected >= n ? 'cribl_node_connected per node' : 'cribl_group_nodes{state} (every level)',
        };
        break;
      }
      if (performance.now() > deadline) {
        r.coverage = { atS: undefined, connectedAtDeadline: s.connected };
        break;
      }
      await sleep(5000);
    }
    log(`${label}: coverage ${r.coverage.atS === undefined ? 'not reached' : `after ${r.coverage.atS.toFixed(1)} s`}; steady window (${2 * DISCOVERY_S} s)`);

    // --- steady window: two discovery intervals, gzip scrapes every 15 s, RSS every 5 s
    const c0 = byKind(await json('GET', `${adminUrl}/stats`));
    const s0 = await exp.call('stats', { resetPeak: true }, 120_000);
    const simS0 = processCpuMs(sim.proc.pid);
    const w0 = performance.now();
    const rss = [];
    const scrapes = [];
    let nextScrape = w0;
    while (performance.now() - w0 < 2 * DISCOVERY_S * 1000) {
      if (performance.now() >= nextScrape) {
        nextScrape += 15_000;
        scrapes.push(await countScrape(metricsUrl, agent));
      }
      rss.push(processMemory(exp.proc.pid).rss);
      await sleep(Math.max(0, Math.min(5000, w0 + 2 * DISCOVERY_S * 1000 - performance.now())));
    }
    const wallMs = performance.now() - w0;
    const s1 = await exp.call('stats', {}, 120_000);
    const c1 = byKind(await json('GET', `${adminUrl}/stats`));
    const leader = minus(c1, c0);
    const pagesPerDiscovery = edgePages + Math.ceil(truth.products.stream.nodes / PAGE);
    const discoveries = leader.listing / pagesPerDiscovery;
    const last = scrapes.at(-1) ?? r.lastScrape;
    r.steady = {
      wallMs,
      startS: (w0 - t0) / 1000,
      exporterCpuCores: (s1.cpuUserMs + s1.cpuSystemMs - s0.cpuUserMs - s0.cpuSystemMs) / wallMs,
      rss: rss.reduce((a, b) => a + b, 0) / rss.length,
      rssMax: Math.max(...rss),
      peakRss: s1.peakRss,
      simCpuCores: (processCpuMs(sim.proc.pid) - simS0) / wallMs,
      leader,
      leaderRps: leader.total / (wallMs / 1000),
      discoveries,
      perDiscovery: discoveries > 0 ? (leader.listing + leader.other) / discoveries : undefined,
      healthPerS: leader.health / (wallMs / 1000),
      scrapeTtfbMs: scrapes.map((s) => s.ttfbMs),
      scrapeTotalMs: scrapes.map((s) => s.totalMs),
      series: last?.series,
      nodeSeries: last?.nodeSeries,
      gzipBytes: last?.bytes,
    };
    r.simulator.cpuWithExporterCores = (processCpuMs(sim.proc.pid) - simCpu0) / (performance.now() - t0);
    r.simulator.rssEnd = processMemory(sim.proc.pid).rss;
  } catch (e) {
    r.error = e instanceof Error ? e.message : String(e);
    log(`${label}: ${r.error}`);
  } finally {
    if (exp) await exp.stop(30_000);
    await sim.stop();
    await agent.close();
  }
  return r;
}
