// The leader request path alone, in one process, against undici's request() alone on the same route, taking
// turns (A B A B …) so that both see the same machine: the client (budget, retry loop, exchange, decoder),
// withAuth and the self-metrics hooks, as the poller calls them for a node's health, C requests in flight; no
// poller, no store, no body. CPU per request from process.cpuUsage. Needs `npm run build` first (build/: tsc, one file per module).
//   node bench/req-path.mjs [--nodes 2000] [--concurrency 16] [--seconds 3] [--rounds 3] [--profile-only]

import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { Agent, Pool } from 'undici';
import { Children } from './lib/children.mjs';
import { json } from './lib/http.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const distArg = process.argv.indexOf('--dist');
const dist = distArg > 0 ? resolve(process.argv[distArg + 1]) : join(here, '..', 'build');
const { createRequestBudget } = await import(join(dist, 'leader/budget.js'));
const { createLeaderClient } = await import(join(dist, 'leader/client.js'));
const { withAuth } = await import(join(dist, 'auth/with-auth.js'));
const { createStaticTokenProvider } = await import(join(dist, 'auth/static-token.js'));
const { healthRequest } = await import(join(dist, 'collectors/node-health.js'));
const { createSelfMetrics } = await import(join(dist, 'telemetry/self-metrics.js'));
const { systemClock } = await import(join(dist, 'util/clock.js'));

const { values: o } = parseArgs({
  options: {
    nodes: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
    dist: { type: 'string' },
    // undici Agent options of the exporter's side (experiments; the exporter's own are src/http/transport.ts)
    pipelining: { type: 'string' },
    connections: { type: 'string' },
  },
});
const concurrency = Number(o.concurrency);
const ms = Number(o.seconds) * 1000;
const children = new Children();
process.on('exit', () => children.killAll());

const { sim, baseUrl, token, adminUrl } = await children.simulator('simulator', Number(o.nodes));
const origin = new URL(baseUrl).origin;
const ids = (await json('GET', `${adminUrl}/nodes?limit=${Math.min(Number(o.nodes), 5000)}`)).items.map((x) => x.id);

async function measure(one) {
  let n = 0;
  let next = 0;
  const cpu0 = process.cpuUsage();
  const end = performance.now() + ms;
  const loop = async () => {
    while (performance.now() < end) {
      await one(ids[next++ % ids.length]);
      n++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const cpu = process.cpuUsage(cpu0);
  return { n, cpuMs: (cpu.user + cpu.system) / 1000 };
}

// undici's request() alone (bench/undici-floor.mjs)
const pool = new Pool(origin, { connections: concurrency });
const floorHeaders = { authorization: `Bearer ${token}` };
const floor = async (id) => {
  const res = await pool.request({ method: 'GET', path: `/api/v1/w/${encodeURIComponent(id)}/health`, headers: floorHeaders });
  await res.body.json();
};

// the exporter's path
const logger = pino({ level: 'silent' });
const self = createSelfMetrics({ version: 'bench', nodejsVersion: process.version, defaultMetrics: false });
const metrics = self.forLeader('bench');
const budget = createRequestBudget({ maxRps: 1_000_000, burst: 1_000_000, maxConcurrency: concurrency }, systemClock, metrics);
const raw = createLeaderClient({
  baseUrl,
  name: 'bench',
  dispatcher: new Agent({
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 60_000,
    connectTimeout: 5_000,
    ...(o.pipelining ? { pipelining: Number(o.pipelining) } : {}),
    ...(o.connections ? { connections: Number(o.connections) } : {}),
  }),
  budget,
  clock: systemClock,
  random: Math.random,
  logger,
  metrics,
});
const auth = createStaticTokenProvider({ token }, { clock: systemClock, readFile: async () => '', logger });
const client = withAuth(raw, auth, { clock: systemClock, logger, metrics });
const ac = new AbortController();
let failures = 0;
const ours = async (id) => {
  let exchangeMs;
  // onExchange given to healthRequest, as the poller does: spreading the request into a new literal with it
  // (`{ ...healthRequest(…), onExchange }`) cost about a fifth of the throughput and promoted 1.7 KB more per request.
  const res = await client.request(healthRequest(id, Date.now() + 15_000, ac.signal, (t) => (exchangeMs = t)));
  if (!res.ok) failures++;
  return exchangeMs;
};

const rows = [];
for (let r = 0; r < Number(o.rounds); r++) {
  for (const [name, fn] of [
    ['floor', floor],
    ['ours', ours],
  ]) {
    if (o.only && o.only !== name) continue;
    const m = await measure(fn);
    rows.push({ round: r, name, requests: m.n, cpuMsPerRequest: +(m.cpuMs / m.n).toFixed(4), rps: Math.round(m.n / (ms / 1000)) });
  }
}
const avg = (name) => {
  const xs = rows.filter((x) => x.name === name);
  return xs.reduce((a, x) => a + x.cpuMsPerRequest, 0) / (xs.length || 1);
};
for (const row of rows) console.log(JSON.stringify(row));
console.log(
  JSON.stringify({
    floorCpuMs: +avg('floor').toFixed(4),
    oursCpuMs: +avg('ours').toFixed(4),
    ratio: +(avg('ours') / avg('floor')).toFixed(2),
    failures,
    load: loadavg().map((x) => x.toFixed(2)).join(' '),
  }),
);
await client.close();
await pool.close();
await children.stopAll();
process.exit(0);
