// The exporter's steady state at one fleet size, for issue 17's CPU work (not part of `npm run bench`):
//   node bench/steady-probe.mjs [--nodes 50000] [--window 60] [--profile DIR] [--node-arg=FLAG]... [--env K=V]... [--stdout FILE] [--wait S] [--gap-timer MS]
//     [--ttfb] [--memory]
// Starts the simulator and the exporter as the benchmark does (bench/exporter.mjs, the image's flags and allocator
// settings; --node-arg adds or replaces a flag), waits until every node's first metadata fetch is done (as
// `npm run bench` does; --wait S: S seconds from the listening line instead), then measures a window with a
// gzip scrape every 15 s: the exporter's cores (and by thread), CPU per leader request answered (all its work: polls,
// discovery, builds, scrapes), RSS and the main thread's V8 heap, and the body builds in the window. With --profile, V8 CPU profiles of every thread land in
// DIR (bench/profile-summary.mjs reads them; the profiler itself costs about a fifth more CPU). With --ttfb, after the
// window: rounds of 2 concurrent gzip scrapes as `npm run bench` makes them (12 s, 25 s from 20,000 nodes, at most 25 rounds), their time to
// first byte and the longest event-loop gap meanwhile (the scrapes start builds of their own: not in the window).

import { createWriteStream } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Children, jsonLine } from './lib/children.mjs';
import { firstMetadataDoneS } from './lib/first-metadata.mjs';
import { STEADY_GAP_TIMER_MS } from './lib/gaps.mjs';
import { json, scrapeBudgetMs, scrapeRounds } from './lib/http.mjs';
import { summarize } from './lib/stats.mjs';
import { imageSettings, onImageNode, withFlags } from './lib/image.mjs';
import { threadCpuMs } from './lib/machine.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values: o } = parseArgs({
  options: {
    nodes: { type: 'string', default: '50000' },
    window: { type: 'string', default: '60' },
    profile: { type: 'string' },
    'node-arg': { type: 'string', multiple: true, default: [] },
    stdout: { type: 'string' },
    // Seconds from the start to the window (default: coverage, about n / 5,000 s, and 45 s more).
    wait: { type: 'string' },
    // The gap timer's interval in the window (ms), as run.mjs's steady window (lib/gaps.mjs).
    'gap-timer': { type: 'string' },
    env: { type: 'string', multiple: true, default: [] },
    ttfb: { type: 'boolean', default: false },
    memory: { type: 'boolean', default: false },
  },
});
const n = Number(o.nodes);
const windowS = Number(o.window);
const children = new Children();
process.on('exit', () => children.killAll());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const { env, nodeFlags: imageFlags } = imageSettings(join(here, '..'));
onImageNode(join(here, '..'));
const nodeFlags = withFlags(imageFlags, o['node-arg']);
const { baseUrl, token, adminUrl } = await children.simulator('simulator', n);
/** The exporter's health interval here (s), as npm run bench's. */
const HEALTH_S = 30;
const startedAt = performance.now();
const exp = children.fork(
  'exporter',
  join(here, 'exporter.mjs'),
  [
    ...['--web.listen-address', '127.0.0.1:0', '--leader.max-rps', '1000000', '--leader.max-concurrency', '16'],
    ...['--health.interval', `${HEALTH_S}s`, '--discovery.interval', '60s', '--metadata.interval', '600s', '--log.level', 'info'],
  ],
  {
    execArgv: [...nodeFlags, ...(o.profile ? ['--cpu-prof', '--cpu-prof-dir', o.profile] : [])],
    env: {
      ...env,
      ...Object.fromEntries(o.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
      CRIBL_LEADER_URL: baseUrl,
      CRIBL_TOKEN: token,
    },
  },
);
// --stdout FILE: the exporter's stdout (its log, and e.g. --node-arg=--trace-gc's lines) copied to FILE.
if (o.stdout) exp.proc.stdout.pipe(createWriteStream(o.stdout));
const listening = await exp.waitForLine(jsonLine('cribl-exporter listening'), 60_000, 'listening line');
const metricsUrl = listening.match.url;
const answered = async () => {
  const stats = await json('GET', `${adminUrl}/stats`);
  let total = 0;
  for (const by of Object.values(stats.requests ?? {})) for (const c of Object.values(by)) total += c;
  return total;
};
/** Health requests' latency as the exporter measured it so far (its request-duration histogram): sum (s), count. */
const healthLatency = async () => {
  const text = await (await fetch(metricsUrl)).text();
  const pick = (suffix) =>
    text
      .split('\n')
      .filter((l) => l.startsWith(`cribl_exporter_leader_request_duration_seconds_${suffix}{`) && l.includes('health'))
      .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  return { sum: pick('sum'), count: pick('count') };
};
const scrape = () => fetch(metricsUrl, { headers: { 'accept-encoding': 'gzip' } }).then((r) => r.arrayBuffer());

// Until the first metadata round is done (bench/lib/first-metadata.mjs), as npm run bench's steady window. Before
// 2026-11-28 noon this waited for coverage and 45 s: inside that round, where every build renders every run again
// (new metadata in each) and 50k read 0.37-0.46 cores against 0.31 after it (bench/notes-gc.md, eighteenth round, in git history at bbf1e93).
await sleep(o.wait ? Number(o.wait) * 1000 : Math.max(0, startedAt + firstMetadataDoneS(HEALTH_S) * 1000 - performance.now()));
await exp.call('builds');
await exp.call('gapTimer', { intervalMs: Number(o['gap-timer'] ?? STEADY_GAP_TIMER_MS) });
const l0 = await healthLatency();
const c0 = await answered();
const s0 = await exp.call('stats');
const t0 = threadCpuMs(exp.proc.pid);
const w0 = performance.now();
for (let i = 0; i < windowS / 15; i++) {
  await scrape();
  await sleep(15_000);
}
const c1 = await answered();
const l1 = await healthLatency();
const s1 = await exp.call('stats');
const t1 = threadCpuMs(exp.proc.pid);
await exp.call('gapTimer', { intervalMs: 1 });
const wallMs = performance.now() - w0;
const cpuMs = s1.cpuUserMs + s1.cpuSystemMs - s0.cpuUserMs - s0.cpuSystemMs;
const builds = await exp.call('builds');
let ttfb;
if (o.ttfb) {
  await exp.call('stats', { resetLoop: true });
  const got = await scrapeRounds([{ name: 'exporter', url: metricsUrl }], { encoding: 'gzip', budgetMs: scrapeBudgetMs(n) });
  const t = summarize(got.get('exporter').ttfbMs);
  const loop = (await exp.call('stats')).loop;
  ttfb = { n: t.n, p50Ms: +t.p50.toFixed(1), p99Ms: +t.p99.toFixed(1), loopMaxGapMs: Math.round(loop.maxGapMs) };
}
const MB = 1e6;
// --memory: after the window, a full GC (with --expose-gc on the exporter) and resident memory by mapping kind.
let memory;
if (o.memory) {
  const h = await exp.call('heap', {});
  memory = {
    externalMB: Math.round(s1.external / MB),
    arrayBuffersMB: Math.round(s1.arrayBuffers / MB),
    afterGc: { rssMB: Math.round(h.mem.rss / MB), heapUsedMB: Math.round(h.mem.heapUsed / MB), heapTotalMB: Math.round(h.mem.heapTotal / MB) },
    mappings: h.mappings,
  };
}
console.log(
  JSON.stringify({
    nodes: n,
    flags: nodeFlags.join(' '),
    windowS: +(wallMs / 1000).toFixed(1),
    requests: c1 - c0,
    cores: +(cpuMs / wallMs).toFixed(3),
    cpuMsPerRequest: +(cpuMs / (c1 - c0)).toFixed(3),
    // Mean time from sending a health request to its decoded answer, as the exporter measured it.
    healthLatencyMs: +(((l1.sum - l0.sum) / Math.max(1, l1.count - l0.count)) * 1000).toFixed(2),
    systemShare: +((s1.cpuSystemMs - s0.cpuSystemMs) / cpuMs).toFixed(2),
    // The main thread, and the others busiest first (10 ms ticks; a thread that ended in the window is missing).
    mainCores: +(((t1[exp.proc.pid] ?? 0) - (t0[exp.proc.pid] ?? 0)) / wallMs).toFixed(3),
    otherThreadCores: Object.entries(t1)
      .filter(([tid]) => Number(tid) !== exp.proc.pid)
      .map(([tid, v]) => +((v - (t0[tid] ?? 0)) / wallMs).toFixed(3))
      .filter((v) => v > 0)
      .sort((a, b) => b - a),
    rssMB: Math.round(s1.rss / MB),
    peakRssMB: Math.round(s1.peakRss / MB),
    // The main thread's V8 heap at the window's end (used, and reserved: what --heap-growing-percent keeps).
    heapUsedMB: Math.round(s1.heapUsed / MB),
    heapTotalMB: Math.round(s1.heapTotal / MB),
    builds: builds.map((b) => ({
      wallMs: Math.round(b.wallMs),
      loopMs: Math.round(b.activeMs),
      cpuMs: Math.round(b.cpuMs),
      maxGapMs: Math.round(b.maxGapMs),
    })),
    ...(ttfb ? { ttfb } : {}),
    ...(memory ? { memory } : {}),
  }),
);
await exp.stop();
process.exit(0);
