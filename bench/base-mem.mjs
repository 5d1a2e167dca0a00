// The exporter's baseline memory, before and independent of the fleet (issue 17, branch base-mem):
//   node bench/base-mem.mjs [--what exporter|bare] [--nodes 0|N] [--settle 20] [--runs 3] [--node-arg=...]...
//     [--env K=V]... [--arg ...]... [--no-image] [--dist DIR] [--modules] [--maps]
// Starts dist/cli.js (or DIR/cli.js, or bare `node -e 'setInterval(()=>{},1e3)'`: the floor) with the image's node
// flags and allocator env (the Dockerfile's, bench/lib/image.mjs) unless --no-image (--node-arg and --env come
// after them, so they win), against an unreachable leader (--nodes 0) or the simulator (--nodes N), waits until
// every node answered once, then --settle seconds; reads RSS from /proc, then (SIGUSR2 to bench/lib/mem-report.mjs)
// a full GC, memoryUsage, V8 spaces, code statistics and smaps_rollup (--maps: the largest mappings; --modules:
// the CommonJS files loaded). Prints one JSON line per run and the medians.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Children } from './lib/children.mjs';
import { json } from './lib/http.mjs';
import { processMemory } from './lib/machine.mjs';
import { imageSettings, onImageNode } from './lib/image.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values: f } = parseArgs({
  options: {
    what: { type: 'string', default: 'exporter' },
    nodes: { type: 'string', default: '0' },
    settle: { type: 'string', default: '20' },
    runs: { type: 'string', default: '3' },
    'node-arg': { type: 'string', multiple: true },
    env: { type: 'string', multiple: true },
    arg: { type: 'string', multiple: true },
    'no-image': { type: 'boolean', default: false },
    modules: { type: 'boolean', default: false },
    dist: { type: 'string' },
    maps: { type: 'boolean', default: false },
  },
});
const { env: IMAGE_ENV, nodeFlags: IMAGE_NODE_ARGS } = imageSettings(join(here, '..'));
onImageNode(join(here, '..'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mb = (b) => +(b / 1048576).toFixed(1);
const children = new Children();
process.on('exit', () => children.killAll());

const n = Number(f.nodes);
let leader = { baseUrl: 'http://127.0.0.1:9/api/v1', token: 'x' };
let adminUrl;
if (f.what === 'exporter' && n > 0) ({ baseUrl: leader.baseUrl, token: leader.token, adminUrl } = await children.simulator('sim', n));

const kb = (rollup, k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? NaN) / 1024;

async function once(i) {
  const file = join(tmpdir(), `base-mem-${process.pid}-${i}.json`);
  const env = { PATH: process.env.PATH, MEM_REPORT_FILE: file, ...(f['no-image'] ? {} : IMAGE_ENV) };
  for (const kv of f.env ?? []) env[kv.slice(0, kv.indexOf('='))] = kv.slice(kv.indexOf('=') + 1);
  const execArgv = ['--expose-gc', '--import', join(here, 'lib/mem-report.mjs'), ...(f['no-image'] ? [] : IMAGE_NODE_ARGS), ...(f['node-arg'] ?? [])];
  let args;
  if (f.what === 'bare') args = [...execArgv, '-e', 'console.log("listening"); setInterval(() => {}, 1e3)'];
  else {
    Object.assign(env, { CRIBL_LEADER_URL: leader.baseUrl, CRIBL_TOKEN: leader.token });
    args = [...execArgv, f.dist ? join(f.dist, 'cli.js') : join(here, '..', 'dist', 'cli.js'), '--web.listen-address', '127.0.0.1:0',
      '--leader.max-rps', '1000000', '--leader.max-concurrency', '16', '--health.interval', '30s',
      '--discovery.interval', '60s', '--metadata.interval', '600s', '--log.level', 'info', ...(f.arg ?? [])];
  }
  const proc = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const ready = new Promise((resolve) => {
    proc.stdout.on('data', (c) => {
      out += c;
      if (/listening/.test(out)) resolve();
    });
  });
  proc.stderr.on('data', (c) => process.stderr.write(c));
  await ready;
  const t0 = performance.now();
  if (adminUrl) {
    for (;;) {
      const s = await json('GET', `${adminUrl}/stats`);
      if ((s.requests?.['/w/{nodeId}/health']?.['200'] ?? 0) >= n * (i + 1)) break;
      await sleep(500);
    }
  }
  const coveredS = (performance.now() - t0) / 1000;
  await sleep(Number(f.settle) * 1000);
  const rss = processMemory(proc.pid).rss;
  proc.kill('SIGUSR2');
  let rep;
  for (let k = 0; k < 100 && !rep; k++) {
    await sleep(100);
    try {
      rep = JSON.parse(readFileSync(file, 'utf8'));
    } catch {}
  }
  const rssAfterGc = processMemory(proc.pid).rss;
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  rmSync(file, { force: true });
  const r = rep.rollup;
  const res = {
    rss: mb(rss), rssAfterGc: mb(rssAfterGc),
    heapUsed: mb(rep.mem.heapUsed), heapTotal: mb(rep.mem.heapTotal), external: mb(rep.mem.external),
    arrayBuffers: mb(rep.mem.arrayBuffers),
    sharedClean: +kb(r, 'Shared_Clean').toFixed(1), privateClean: +kb(r, 'Private_Clean').toFixed(1),
    privateDirty: +kb(r, 'Private_Dirty').toFixed(1), anon: +kb(r, 'Anonymous').toFixed(1),
    bytecode: mb(rep.code.bytecode_and_metadata_size), code: mb(rep.code.code_and_metadata_size),
    threads: rep.threads, internalModules: rep.internal, cjsFiles: rep.cjs.length,
    spaces: Object.fromEntries(rep.spaces.filter((s) => s.size).map((s) => [s.name.replace('_space', ''), `${mb(s.used)}/${mb(s.size)}`])),
    coveredS: +coveredS.toFixed(1),
  };
  if (f.maps) res.maps = rep.maps.map((m) => `${m.name} size ${Math.round(m.sizeKb)} rss ${m.rss} dirty ${m.dirty}`);
  if (f.modules) res.cjs = rep.cjs.map((p) => p.replace(/.*node_modules\//, ''));
  return res;
}

const results = [];
for (let i = 0; i < Number(f.runs); i++) {
  const r = await once(i);
  results.push(r);
  console.log(JSON.stringify(r));
}
const med = (k) => {
  const v = results.map((r) => r[k]).sort((a, b) => a - b);
  return v[Math.floor(v.length / 2)];
};
const keys = ['rss', 'rssAfterGc', 'heapUsed', 'heapTotal', 'external', 'bytecode', 'code', 'sharedClean', 'privateClean', 'privateDirty', 'anon', 'threads'];
console.log('median', JSON.stringify(Object.fromEntries(keys.map((k) => [k, med(k)]))), 'load', (await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' '));
await children.stopAll();
process.exit(0);
