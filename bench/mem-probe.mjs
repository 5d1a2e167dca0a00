// Memory of the exporter at one fleet size, for issue 17's memory work (not part of `npm run bench`):
//   node bench/mem-probe.mjs --nodes 10000 [--settle 40] [--snapshot FILE] [--alloc-profile FILE [--alloc-seconds 20]
//     [--alloc-survivors | --alloc-live | --alloc-live-gc]]
//     [--scrape 15] [--node-arg=--max-semi-space-size=8]...
// Starts the simulator and the exporter as the benchmark does (the image's flags and allocator settings, --node-arg
// adding or replacing a flag; bench/exporter.mjs), samples the
// exporter's RSS every 500 ms from its start (peak = the highest sample and VmHWM), waits for every node's first
// health answer, settles, and prints memoryUsage, V8's heap spaces and smaps_rollup and resident memory by mapping after a full GC (and
// before: RSS as it runs); with --snapshot, a heap snapshot of the main thread after that GC.
import { createServer } from 'node:net';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Children } from './lib/children.mjs';
import { fetchMetricsText, json } from './lib/http.mjs';
import { imageSettings, onImageNode, withFlags } from './lib/image.mjs';
import { processCpuMs, processMemory } from './lib/machine.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values: f } = parseArgs({
  options: {
    nodes: { type: 'string', default: '10000' },
    settle: { type: 'string', default: '40' },
    // Seconds between gzip scrapes of /metrics from the start (as Prometheus would); 0: no scrapes.
    scrape: { type: 'string', default: '0' },
    snapshot: { type: 'string' },
    'alloc-profile': { type: 'string' },
    // With --alloc-profile: only objects that survived scavenges (promoted to old space).
    'alloc-survivors': { type: 'boolean', default: false },
    // With --alloc-profile: only objects not collected by the end (--alloc-live), after a full GC (--alloc-live-gc).
    'alloc-live': { type: 'boolean', default: false },
    'alloc-live-gc': { type: 'boolean', default: false },
    // Seconds of --alloc-profile.
    'alloc-seconds': { type: 'string', default: '20' },
    'node-arg': { type: 'string', multiple: true },
    env: { type: 'string', multiple: true },
    arg: { type: 'string', multiple: true },
  },
});
const n = Number(f.nodes);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
onImageNode(join(here, '..'));
const mb = (b) => (b / 1048576).toFixed(1);
const children = new Children();
process.on('exit', () => children.killAll());

const { sim, baseUrl, token, adminUrl } = await children.simulator('simulator', n);
// A free port, so that --scrape knows where /metrics is (the listening line is not logged at --log.level warn).
const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port: p } = s.address();
    s.close(() => resolve(p));
  });
});
const { env: imageEnv, nodeFlags: imageFlags } = imageSettings(join(here, '..'));
const env = { ...imageEnv, CRIBL_LEADER_URL: baseUrl, CRIBL_TOKEN: token };
for (const kv of f.env ?? []) env[kv.slice(0, kv.indexOf('='))] = kv.slice(kv.indexOf('=') + 1);
const args = [
  '--web.listen-address', `127.0.0.1:${port}`, '--leader.max-rps', '1000000', '--leader.max-concurrency', '16',
  '--health.interval', '30s', '--discovery.interval', '60s', '--metadata.interval', '600s', '--log.level', 'warn',
  ...(f.arg ?? []),
];
const t0 = performance.now();
const exp = children.fork('exporter', join(here, 'exporter.mjs'), args, {
  execArgv: ['--expose-gc', ...withFlags(imageFlags, f['node-arg'] ?? [])],
  env,
});
let peak = 0;
const scrapeS = Number(f.scrape);
let scraper;
if (scrapeS > 0) {
  scraper = setInterval(
    () => fetchMetricsText(`http://127.0.0.1:${port}/metrics`).catch(() => undefined),
    scrapeS * 1000,
  );
}
const sampler = setInterval(() => {
  const m = processMemory(exp.proc.pid);
  if (m.rss > peak) peak = m.rss;
}, 500);
let coveredMs;
let burstCpuMsPerRequest;
for (;;) {
  const s = await json('GET', `${adminUrl}/stats`);
  const h200 = Object.values(s.requests?.['/w/{nodeId}/health'] ?? {}).length
    ? (s.requests['/w/{nodeId}/health']['200'] ?? 0)
    : 0;
  if (h200 >= n) {
    coveredMs = performance.now() - t0;
    // Exporter CPU per leader request answered, from its start to coverage (the start-up burst).
    const answered = Object.values(s.requests ?? {}).reduce(
      (n, by) => n + Object.values(by).reduce((a, b) => a + b, 0),
      0,
    );
    burstCpuMsPerRequest = processCpuMs(exp.proc.pid) / answered;
    break;
  }
  if (performance.now() - t0 > Math.max(120_000, n * 6)) break;
  await sleep(500);
}
const burstPeak = peak;
// With --node-arg=--trace-gc: the collections of the steady window, by kind.
const gcs = { markCompact: 0, scavenge: 0, other: 0 };
let counting = true;
exp.proc.stdout.on('data', (chunk) => {
  if (!counting) return;
  for (const line of String(chunk).split('\n')) {
    const isolate = /^\[\d+:(0x[0-9a-f]+)\]/.exec(line)?.[1];
    if (!isolate) continue;
    // Per isolate (the main thread's and the body worker's): scavenges counted by isolate address.
    const by = (gcs.byIsolate ??= {});
    const mine = (by[isolate] ??= { markCompact: 0, scavenge: 0 });
    if (/Mark-Compact|Mark-sweep/i.test(line) && mine.markCompact++ < 4)
      (mine.samples ??= []).push(line.replace(/^\[[^\]]*\]\s*/, ''));
    else if (/Scavenge/.test(line)) mine.scavenge++;
    if (/Mark-Compact|Mark-sweep/i.test(line)) {
      gcs.markCompact++;
      if (gcs.markCompact <= 8) (gcs.samples ??= []).push(line.replace(/^\[[^\]]*\]\s*/, ''));
    }
    else if (/Scavenge/.test(line)) gcs.scavenge++;
    else gcs.other++;
  }
});
const cpu0 = processCpuMs(exp.proc.pid);
const w0 = performance.now();
const steady = [];
while (performance.now() - w0 < Number(f.settle) * 1000) {
  await sleep(2000);
  steady.push(processMemory(exp.proc.pid).rss);
}
const cpuCores = (processCpuMs(exp.proc.pid) - cpu0) / (performance.now() - w0);
counting = false;
// With --alloc-profile FILE: 20 s of the main thread's allocations after the steady window (bench/exporter.mjs).
if (f['alloc-profile'])   await exp.call(
    'allocProfile',
    {
      seconds: Number(f['alloc-seconds']),
      file: f['alloc-profile'],
      minor: !f['alloc-survivors'],
      live: f['alloc-live'] || f['alloc-live-gc'],
      gc: f['alloc-live-gc'],
    },
    120_000,
  );
const before = await exp.call('stats');
const h = await exp.call('heap', f.snapshot ? { snapshot: f.snapshot } : {}, 600_000);
clearInterval(sampler);
if (scraper) clearInterval(scraper);
const after = processMemory(exp.proc.pid);
const out = {
  nodes: n,
  nodeArgs: f['node-arg'] ?? [],
  env: f.env ?? [],
  args: f.arg ?? [],
  coveredS: coveredMs && +(coveredMs / 1000).toFixed(1),
  peakRssSampledMB: +mb(Math.max(peak, burstPeak)),
  peakRssVmHwmMB: +mb(h.peakRss),
  steadyRssMB: { min: +mb(Math.min(...steady)), max: +mb(Math.max(...steady)), last: +mb(steady.at(-1)) },
  burstCpuMsPerRequest: burstCpuMsPerRequest && +burstCpuMsPerRequest.toFixed(3),
  steadyCpuCores: +cpuCores.toFixed(3),
  steadyGcs: gcs,
  beforeGc: { rss: +mb(before.rss), heapUsed: +mb(before.heapUsed), heapTotal: +mb(before.heapTotal),
    external: +mb(before.external), arrayBuffers: +mb(before.arrayBuffers) },
  afterGc: { rss: +mb(after.rss), heapUsed: +mb(h.mem.heapUsed), heapTotal: +mb(h.mem.heapTotal),
    external: +mb(h.mem.external), arrayBuffers: +mb(h.mem.arrayBuffers) },
  spaces: Object.fromEntries(h.spaces.map((s) => [s.name, `${mb(s.used)}/${mb(s.size)}`])),
  rollup: h.rollup?.split('\n').filter((l) => /^(Rss|Pss|Anonymous|Private_Dirty|Shared_Clean|Private_Clean)/.test(l)).map((l) => l.replace(/\s+/g, ' ')).join('; '),
  mappings: h.mappings,
  snapshot: h.file,
};
console.log(JSON.stringify(out, null, 1));
await exp.stop();
await sim.stop();
process.exit(0);
