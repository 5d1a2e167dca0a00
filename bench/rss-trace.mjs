// The exporter's RSS every 100 ms from its start, for issue 17's memory work (not part of `npm run bench`):
//   [EXTRA_FLAGS='--heap-growing-percent=50'] node bench/rss-trace.mjs [nodes=2000] [seconds=70] [dist dir]
// The simulator and bench/exporter.mjs as the benchmark starts them (the image's flags, EXTRA_FLAGS replacing or
// adding some), a gzip scrape every 15 s from 5 s on; prints the mean RSS after 20 s, the CPU used, the peak, the
// per-second maxima (the saw-tooth between full GCs) and the builds' start times.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Children, jsonLine } from './lib/children.mjs';
import { imageSettings, onImageNode, withFlags } from './lib/image.mjs';
import { processMemory } from './lib/machine.mjs';
const n = Number(process.argv[2] ?? 2000);
const secs = Number(process.argv[3] ?? 70);
const dist = process.argv[4];
const here = dirname(fileURLToPath(import.meta.url));
const children = new Children();
process.on('exit', () => children.killAll());
const { env, nodeFlags: img } = imageSettings(join(here, '..'));
onImageNode(join(here, '..'));
const nodeFlags = withFlags(img, (process.env.EXTRA_FLAGS ?? '').split(' ').filter(Boolean));
console.log(nodeFlags.join(' '));
const { baseUrl, token } = await children.simulator('simulator', n);
const exp = children.fork('exporter', join(here, 'exporter.mjs'), [
  '--web.listen-address', '127.0.0.1:0', '--leader.max-rps', '1000000', '--leader.max-concurrency', '16',
  '--health.interval', '30s', '--discovery.interval', '60s', '--metadata.interval', '600s', '--log.level', 'info'],
  { execArgv: nodeFlags, env: { ...env, CRIBL_LEADER_URL: baseUrl, CRIBL_TOKEN: token, ...(dist ? { BENCH_DIST: dist } : {}) } });
const t0 = performance.now();
const listening = await exp.waitForLine(jsonLine('cribl-exporter listening'), 60_000, 'listening line');
const url = listening.match.url;
const samples = [];
let nextScrape = 5000;
const scrapes = [];
while (performance.now() - t0 < secs * 1000) {
  const t = performance.now() - t0;
  samples.push([Math.round(t), processMemory(exp.proc.pid).rss]);
  if (t >= nextScrape) { nextScrape += 15000; scrapes.push(Math.round(t)); fetch(url, { headers: { 'accept-encoding': 'gzip' } }).then((r) => r.arrayBuffer()).catch(() => {}); }
  await new Promise((r) => setTimeout(r, 100));
}
const builds = await exp.call('builds');
const stats = await exp.call('stats');
const peak = samples.reduce((a, b) => (b[1] > a[1] ? b : a));
const mb = (x) => (x / 1048576).toFixed(1);
const after = samples.filter(([t]) => t > 20000).map(([, r]) => r);
const mean = after.length ? mb(after.reduce((a, b) => a + b, 0) / after.length) : 'n/a (a run of 20 s or less)';
console.log('mean>20s', mean, 'cpu s', ((stats.cpuUserMs + stats.cpuSystemMs) / 1000).toFixed(2));
console.log('peak', mb(peak[1]), 'at', peak[0], 'ms; stats peak', mb(stats.peakRss));
// per second max
const per = new Map();
for (const [t, r] of samples) { const s = Math.floor(t / 1000); per.set(s, Math.max(per.get(s) ?? 0, r)); }
console.log([...per].map(([s, r]) => `${s}:${mb(r)}`).join(' '));
console.log('builds', builds.map((b) => `${Math.round(b.startMs ?? 0)}(${Math.round(b.wallMs)}ms)`).join(' '));
console.log('scrapes', scrapes.join(' '));
await exp.stop();
process.exit(0);
