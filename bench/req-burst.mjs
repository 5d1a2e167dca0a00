// The exporter's CPU per leader request in its start-up burst, against undici's request() alone on the same
// route in the same run: the quick loop behind bench/notes-req.md (issue 17). One size, no steady window.
// The exporter's CPU is taken between its first node poll and every node answered (process.cpuUsage of all its
// threads, read over the bench IPC channel), divided by the requests the simulator counted in that time; the
// floor is bench/undici-floor.mjs (5 s) before the exporter starts. Needs `npm run build` first.
// The exporter runs with the image's flags and allocator settings (as bench/run.mjs); --node-arg adds or replaces a flag.
//   node bench/req-burst.mjs [--nodes 10000] [--concurrency 16] [--profile] [--repeat 1] [--node-arg=FLAG]...

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Children } from './lib/children.mjs';
import { json } from './lib/http.mjs';
import { imageSettings, onImageNode, withFlags } from './lib/image.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dir = join(here, '..', '.bench-tmp', 'req-burst');
const { values: o } = parseArgs({
  options: {
    nodes: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '16' },
    profile: { type: 'boolean', default: false },
    repeat: { type: 'string', default: '1' },
    'node-arg': { type: 'string', multiple: true, default: [] },
  },
});
const n = Number(o.nodes);
const { env: imageEnv, nodeFlags: imageFlags } = imageSettings(join(here, '..'));
onImageNode(join(here, '..'));
const nodeFlags = withFlags(imageFlags, o['node-arg']);
const concurrency = Number(o.concurrency);
const children = new Children();
process.on('exit', () => children.killAll());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function counts(stats) {
  let health200 = 0;
  let answered = 0;
  for (const [route, by] of Object.entries(stats.requests ?? {})) {
    for (const [status, c] of Object.entries(by)) {
      answered += c;
      if (route.includes('health') && route.includes('/w/') && status === '200') health200 += c;
    }
  }
  return { health200, answered };
}

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const { sim, baseUrl, token, adminUrl } = await children.simulator('simulator', n);
const origin = new URL(baseUrl).origin;
const ids = (await json('GET', `${adminUrl}/nodes?limit=${Math.min(n, 5000)}`)).items.map((x) => x.id);
const idsFile = join(dir, 'ids.json');
writeFileSync(idsFile, JSON.stringify(ids));

const results = [];
for (let rep = 0; rep < Number(o.repeat); rep++) {
  const uf = children.fork('undici floor', join(here, 'undici-floor.mjs'), [
    origin,
    token,
    idsFile,
    String(concurrency),
    '5',
  ]);
  const floor = (await uf.waitForMessage((m) => m?.ready, 60_000, 'result')).result;
  await uf.done;
  await json('POST', `${adminUrl}/stats/reset`);
  const load = loadavg().map((x) => x.toFixed(2)).join(' ');
  const exp = children.fork(
    'exporter',
    join(here, 'exporter.mjs'),
    [
      '--web.listen-address',
      '127.0.0.1:0',
      '--leader.max-rps',
      '1000000',
      '--leader.max-concurrency',
      String(concurrency),
      '--health.interval',
      '30s',
      '--discovery.interval',
      '60s',
      '--metadata.interval',
      '600s',
      '--log.level',
      'info',
    ],
    {
      execArgv: [...nodeFlags, ...(o.profile ? ['--cpu-prof', '--cpu-prof-dir', join(dir, 'profiles')] : [])],
      env: { ...imageEnv, CRIBL_LEADER_URL: baseUrl, CRIBL_TOKEN: token },
    },
  );
  const t0 = performance.now();
  let first;
  let last;
  for (;;) {
    const c = counts(await json('GET', `${adminUrl}/stats`));
    if (!first && c.answered > 20) first = { at: performance.now(), ...c, st: await exp.call('stats') };
    if (first && c.health200 >= n) {
      last = { at: performance.now(), ...c, st: await exp.call('stats') };
      break;
    }
    if (performance.now() - t0 > Math.max(60_000, n * 4)) throw new Error('no coverage in time');
    await sleep(100);
  }
  await exp.stop();
  const cpuMs = last.st.cpuUserMs + last.st.cpuSystemMs - (first.st.cpuUserMs + first.st.cpuSystemMs);
  const requests = last.answered - first.answered;
  const r = {
    nodes: n,
    requests,
    burstS: +((last.at - first.at) / 1000).toFixed(2),
    rps: Math.round(requests / ((last.at - first.at) / 1000)),
    cpuMsPerRequest: +(cpuMs / requests).toFixed(4),
    floorCpuMsPerRequest: +floor.cpuMsPerRequest.toFixed(4),
    ratio: +(cpuMs / requests / floor.cpuMsPerRequest).toFixed(2),
    floorRps: Math.round(floor.rps),
    flags: nodeFlags.join(' '),
    load,
  };
  results.push(r);
  console.log(JSON.stringify(r));
}
await children.stopAll();
process.exit(0);
