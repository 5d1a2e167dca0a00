// GC promotion per leader request, without the app (no body, no server): the real leader client, driven by the
// poller (with the real store) or by a plain paced loop, or undici's request() by the same loop, against the
// simulator. Run it under --trace-gc-nvp and read the promoted bytes per request over the 30 s window that starts
// 40 s in (bench/notes-gc.md, eighth round):
//   npm run build
//   DRIVER=client node --max-semi-space-size=2 --heap-growing-percent=50 --trace-gc-nvp bench/promotion-probe.mjs > /tmp/nvp.txt
// Environment: DRIVER (unset: the poller; `client`: 20 requests every 10 ms through the leader client, not awaited;
// `undici`: the same loop with undici's Pool.request(); `new` / `legacy`: Pool.dispatch with a minimal handler on
// undici's new / legacy handler interface), FAKE=1 (the poller with a client that answers after 3 ms
// without any HTTP), N (nodes, 10000), HI (the poller's health interval in ms, 5000), MC (the budget's concurrency,
// 16), Q (the poller's quantum in ms), POOL=1 (the client on an undici Pool instead of an Agent), RAW=1 (without
// withAuth), SAMET=1 (headers and body timeouts equal). Prints the requests the simulator answered in the window on
// stderr.
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { Agent } from 'undici';
import { Children } from './lib/children.mjs';
import { json } from './lib/http.mjs';
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'build');
const { createRequestBudget } = await import(join(dist, 'leader/budget.js'));
const { createLeaderClient } = await import(join(dist, 'leader/client.js'));
const { withAuth } = await import(join(dist, 'auth/with-auth.js'));
const { createStaticTokenProvider } = await import(join(dist, 'auth/static-token.js'));
const { createSelfMetrics } = await import(join(dist, 'telemetry/self-metrics.js'));
const { systemClock } = await import(join(dist, 'util/clock.js'));
const { Poller, POLL_QUANTUM_MS } = await import(join(dist, 'polling/poller.js'));
const { createLeaderSnapshot } = await import(join(dist, 'store/snapshot.js'));
const { SNAPSHOT_RENDERERS } = await import(join(dist, 'collectors/index.js'));
const N = Number(process.env.N ?? 10000), HI = Number(process.env.HI ?? 5000), MC = Number(process.env.MC ?? 16);
const children = new Children();
process.on('exit', () => children.killAll());
const { baseUrl, token, adminUrl } = await children.simulator('simulator', N);
const ids = (await json('GET', `${adminUrl}/nodes?limit=${N}`)).items.map((x) => x.id);
const logger = pino({ level: 'silent' });
const self = createSelfMetrics({ version: 'bench', nodejsVersion: process.version, defaultMetrics: false });
const metrics = self.forLeader('bench');
const budget = createRequestBudget({ maxRps: 1_000_000, burst: 1_000_000, maxConcurrency: MC }, systemClock, metrics);
const raw = createLeaderClient({ ...(process.env.SAMET ? { limits: { headersTimeoutMs: 30_000, bodyTimeoutMs: 30_000 } } : {}), baseUrl, name: 'bench', dispatcher: process.env.POOL ? new (await import('undici')).Pool(new URL(baseUrl).origin, { connections: 16 }) : new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 60_000, connectTimeout: 5_000 }), budget, clock: systemClock, random: Math.random, logger, metrics });
const auth = createStaticTokenProvider({ token }, { clock: systemClock, readFile: async () => '', logger });
const real = process.env.RAW ? raw : withAuth(raw, auth, { clock: systemClock, logger, metrics });
let fakeCount = 0;
const fake = { request: (req) => new Promise((resolve) => setTimeout(() => { fakeCount++; req.onExchange?.(3); resolve({ ok: true, status: 200, body: { status: 'healthy', startTime: 1 } }); }, 3)) };
const client = process.env.FAKE ? fake : real;
const snapshot = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
const poller = new Poller({ client, snapshot, clock: systemClock, logger, healthIntervalMs: HI, metadataIntervalMs: 600_000, maxOutstanding: 64, quantumMs: process.env.Q !== undefined ? Number(process.env.Q) : POLL_QUANTUM_MS, metrics: process.env.NOMETRICS ? undefined : undefined });
const nodes = new Map(ids.map((id) => [`stream/${id}`, { product: 'stream', worker: { id, group: 'default', firstMsgTime: 1, lastMsgTime: 2, workerProcesses: 1, info: { hostname: `h-${id}`, cpus: 1, totalmem: 1, architecture: 'x64', platform: 'linux', cribl: { version: '4', config: {}, distMode: 'worker', startTime: 1 } } } }]));
const ac = new AbortController();
const { Pool } = await import('undici');
const pool = new Pool(new URL(baseUrl).origin, { connections: 16 });
/** One request on pool.dispatch with a minimal handler: undici's new handler interface, or the legacy one. */
function dispatchOne(id, kind) {
  const opts = { origin: new URL(baseUrl).origin, method: 'GET', path: `/api/v1/w/${encodeURIComponent(id)}/health`, headers: { authorization: `Bearer ${token}` } };
  const chunks = [];
  const handler = kind === 'new'
    ? { onRequestStart() {}, onResponseStart() {}, onResponseData(_c, chunk) { chunks.push(chunk); }, onResponseEnd() { JSON.parse(Buffer.concat(chunks).toString()); }, onResponseError() {} }
    : { onConnect() {}, onHeaders() { return true; }, onData(chunk) { chunks.push(chunk); return true; }, onComplete() { JSON.parse(Buffer.concat(chunks).toString()); }, onError() {} };
  pool.dispatch(opts, handler);
}
if (process.env.DRIVER) {
  const { healthRequest } = await import(join(dist, 'collectors/node-health.js'));
  let i = 0;
  setInterval(() => {
    for (let k = 0; k < 20; k++) {
      const id = ids[i++ % ids.length];
      let ms;
      if (process.env.DRIVER === 'new' || process.env.DRIVER === 'legacy') {
        dispatchOne(id, process.env.DRIVER);
        continue;
      }
      const p = process.env.DRIVER === 'undici'
        ? pool.request({ method: 'GET', path: `/api/v1/w/${encodeURIComponent(id)}/health`, headers: { authorization: `Bearer ${token}` } }).then((r) => r.body.json())
        : client.request(healthRequest(id, Date.now() + 15_000, ac.signal, (t) => { ms = t; }));
      if (process.env.DRIVER === 'await') p.then((r) => r.ok);
    }
  }, 10);
} else {
  await poller.setNodes(nodes);
  void poller.run(ac.signal);
}
let n0 = 0;
setTimeout(async () => { const s = await json('GET', `${adminUrl}/stats`); n0 = (process.env.FAKE ? fakeCount : 0) + Object.values(s.requests ?? {}).flatMap((b) => Object.values(b)).reduce((a, c) => a + c, 0); console.error('window start'); }, 40_000);
setTimeout(async () => { const s = await json('GET', `${adminUrl}/stats`); const n1 = (process.env.FAKE ? fakeCount : 0) + Object.values(s.requests ?? {}).flatMap((b) => Object.values(b)).reduce((a, c) => a + c, 0); console.error(JSON.stringify({ requests: n1 - n0, seconds: 30 })); ac.abort(); process.exit(0); }, 70_000);
