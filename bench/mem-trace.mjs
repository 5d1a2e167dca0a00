// What the exporter's RSS is made of over time (issue 17, the 2k peak; not part of `npm run bench`):
//   node bench/mem-trace.mjs [nodes=2000] [seconds=150] [every=10]
// The simulator and bench/exporter.mjs as the benchmark starts them (the image's flags and allocator settings), a
// gzip scrape every 15 s from 5 s on; every `every` s prints RSS, V8's heap total, external and ArrayBuffers (the
// harness's memoryUsage), and /proc/PID/smaps summed by kind: the brk heap, anonymous mappings, file mappings.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Children, jsonLine } from './lib/children.mjs';
import { imageSettings, onImageNode } from './lib/image.mjs';
import { parseSmaps } from './lib/smaps.mjs';

const n = Number(process.argv[2] ?? 2000);
const secs = Number(process.argv[3] ?? 150);
const every = Number(process.argv[4] ?? 10);
const here = dirname(fileURLToPath(import.meta.url));
const children = new Children();
process.on('exit', () => children.killAll());
const { env, nodeFlags } = imageSettings(join(here, '..'));
onImageNode(join(here, '..'));
const { baseUrl, token } = await children.simulator('simulator', n);
const exp = children.fork('exporter', join(here, 'exporter.mjs'), [
  '--web.listen-address', '127.0.0.1:0', '--leader.max-rps', '1000000', '--leader.max-concurrency', '16',
  '--health.interval', '30s', '--discovery.interval', '60s', '--metadata.interval', '600s', '--log.level', 'info'],
  { execArgv: nodeFlags, env: { ...env, CRIBL_LEADER_URL: baseUrl, CRIBL_TOKEN: token } });
const t0 = performance.now();
const listening = await exp.waitForLine(jsonLine('cribl-exporter listening'), 60_000, 'listening line');
const url = listening.match.url;
const mb = (kb) => (kb / 1024).toFixed(1);

function smaps(pid) {
  const kinds = { brk: 0, anon: 0, node: 0, lib: 0, other: 0 };
  for (const { name, rss } of parseSmaps(readFileSync(`/proc/${pid}/smaps`, 'utf8'))) {
    const kind = name === '[heap]' ? 'brk' : name.startsWith('[anon') ? 'anon'
      : name.endsWith('/node') ? 'node' : name.includes('.so') ? 'lib' : 'other';
    kinds[kind] += rss;
  }
  return kinds;
}

let nextScrape = 5000;
let nextPrint = 0;
console.log('t_s rss heapTotal heapUsed external arrayBuffers | brk anon node lib other (MB)');
while (performance.now() - t0 < secs * 1000) {
  const t = performance.now() - t0;
  if (t >= nextScrape) {
    nextScrape += 15000;
    fetch(url, { headers: { 'accept-encoding': 'gzip' } }).then((r) => r.arrayBuffer()).catch(() => {});
  }
  if (t >= nextPrint) {
    nextPrint += every * 1000;
    const s = await exp.call('stats');
    const k = smaps(exp.proc.pid);
    const m = (b) => (b / 1048576).toFixed(1);
    console.log(`${(t / 1000).toFixed(0)} ${m(s.rss)} ${m(s.heapTotal)} ${m(s.heapUsed)} ${m(s.external)} ${m(s.arrayBuffers)} | ${mb(k.brk)} ${mb(k.anon)} ${mb(k.node)} ${mb(k.lib)} ${mb(k.other)}`);
  }
  await new Promise((r) => setTimeout(r, 100));
}
await exp.stop();
process.exit(0);
