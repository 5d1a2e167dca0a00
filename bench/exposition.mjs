// Exposition micro-benchmark: fills N nodes (default 50,000), then measures per-node render, a full body
// rebuild (wall, event-loop time, longest block), body sizes, prom-client's registry.metrics() for the same
// series, /metrics time-to-first-byte and total time under 2 concurrent scrapers (from cache) against a bare
// node:http server sending the same bytes, and RSS.
//
//   node --expose-gc --import tsx bench/exposition.mjs [nodes]        (sources, through tsx)
//   BENCH_FROM_DIST=1 node --expose-gc bench/exposition.mjs [nodes]   (after npm run build)
//
// Indicative numbers only; nothing here asserts timings.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

const from = process.env.BENCH_FROM ?? (process.env.BENCH_FROM_DIST ? '../dist' : '../src');
const { createLeaderSnapshot } = await import(`${from}/store/snapshot.js`);
const { createBodyCache } = await import(`${from}/exposition/body.js`);
const { createSelfMetrics } = await import(`${from}/exposition/self-metrics.js`);
const { startServer } = await import(`${from}/exposition/server.js`);
const { NODE_FAMILIES } = await import(`${from}/exposition/families.js`);
const { systemClock } = await import(`${from}/util/clock.js`);
const promClient = await import('prom-client');

const N = Number(process.argv[2] ?? 50_000);
const gc = globalThis.gc ?? (() => undefined);
const mb = (b) => `${(b / 1048576).toFixed(1)} MB`;
const ms = (x) => `${x.toFixed(1)} ms`;
const rss = () => {
  gc();
  return process.memoryUsage().rss;
};
const memLine = (label) => {
  gc();
  const m = process.memoryUsage();
  return `${label}: rss ${mb(m.rss)}, heap used ${mb(m.heapUsed)}, array buffers ${mb(m.arrayBuffers)}`;
};
const memLines = [];

function nodeState(i) {
  const edge = i % 2 === 1;
  const id = randomUUID();
  const now = Date.now();
  return {
    key: `${edge ? 'edge' : 'stream'}/${id}`,
    state: {
      product: edge ? 'edge' : 'stream',
      group: `${edge ? 'fleet' : 'group'}-${i % 50}`,
      nodeId: id,
      worker: {
        id,
        group: `group-${i % 50}`,
        firstMsgTime: now - 86_400_000 - i,
        lastMsgTime: now - (i % 10_000),
        workerProcesses: 1 + (i % 8),
        ...(edge ? {} : { deployable: true }),
        info: {
          hostname: `host-${i}.prod.example.com`,
          cpus: 4 + (i % 4) * 4,
          totalmem: 8589934592 * (1 + (i % 4)),
          architecture: 'x64',
          platform: 'linux',
          release: '6.8.0',
          node: 'v22.17.1',
          env: {},
          cribl: {
            version: '4.15.1-1b453caa',
            config: { version: 'a1b2c3d' },
            distMode: edge ? 'managed-edge' : 'worker',
            group: 'g',
            guid: id,
            startTime: now - 3_600_000,
          },
          ...(i % 3 === 0 ? { freeDiskSpace: 1e11 - i, totalDiskSpace: 2e11 } : {}),
        },
      },
      health:
        i % 100 === 7
          ? { up: false, failure: 'timeout', lastSuccessMs: now - 60_000 }
          : { up: true, status: 'healthy', lastSuccessMs: now - (i % 30_000) },
      ...(edge
        ? {
            metadata: {
              lastSuccessMs: now - (i % 300_000),
              item: {
                timestamp: now,
                cribl: { mode: 'managed-edge', version: '4.15.1' },
                os: { os_name: 'Ubuntu', os_version: '22.04.4 LTS (Jammy Jellyfish)' },
              },
            },
          }
        : {}),
    },
  };
}

async function measureLoop(fn) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  // A 1 ms ticker as a second opinion: the largest gap between ticks is the longest block.
  let last = performance.now();
  let maxGap = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
  }, 1);
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const result = await fn();
  const wall = performance.now() - t0;
  const elu = performance.eventLoopUtilization(elu0);
  // Let the timers fire once more, so that a block at the very end is recorded.
  await new Promise((r) => setTimeout(r, 20));
  clearInterval(ticker);
  h.disable();
  return {
    result,
    wall,
    active: elu.active,
    maxBlock: Math.max(h.max / 1e6, maxGap),
    p99Block: h.percentile(99) / 1e6,
  };
}

// --- fill
const rss0 = rss();
const snapshot = createLeaderSnapshot({ labels: {} });
const states = Array.from({ length: N }, (_, i) => nodeState(i));
const tFill = performance.now();
for (const { key, state } of states) snapshot.setNode(key, state);
const fillMs = performance.now() - tFill;
snapshot.setLeader({ up: true, lastDiscoveryMs: Date.now() });
const series = snapshot.renderedNodes().reduce((n, r) => n + r.bytes.reduce((c, b) => c + (b === 10 ? 1 : 0), 0), 0);
const rssFilled = rss();
memLines.push(memLine('after fill'));

// --- full rebuild (after a "full health cycle": every node re-rendered once above)
const cache = createBodyCache({
  snapshots: [snapshot],
  intervals: { discoveryMs: 60_000, healthMs: 30_000, metadataMs: 300_000 },
  clock: systemClock,
  minRebuildIntervalMs: 3_600_000,
});
await cache.rebuild(); // warm-up
for (const { key, state } of states)
  snapshot.setNode(key, {
    ...state,
    health: { ...state.health, lastSuccessMs: (state.health.lastSuccessMs ?? 0) + 30_000 },
  });
let rebuildPeak = 0;
const sampler = setInterval(() => (rebuildPeak = Math.max(rebuildPeak, process.memoryUsage().rss)), 5);
const rebuild = await measureLoop(() => cache.rebuild());
clearInterval(sampler);
const body = rebuild.result;
const rssBuilt = rss();
memLines.push(memLine('after rebuild'));

// --- serving: 2 concurrent scrapers in a worker thread, ours vs a bare server with the same bytes
const self = createSelfMetrics({ version: 'bench', nodejsVersion: process.version });
const server = await startServer({
  listenAddress: '127.0.0.1:0',
  body: cache,
  selfMetrics: self,
  ready: () => true,
  version: 'bench',
});
const gzipBytes = Buffer.concat(body.gzip);
const identityBytes = body.identity ? Buffer.concat(body.identity) : (await import('node:zlib')).gunzipSync(gzipBytes);
const bare = createServer((req, res) => {
  const gz = /gzip/.test(req.headers['accept-encoding'] ?? '');
  const b = gz ? gzipBytes : identityBytes;
  res.writeHead(200, {
    'Content-Type': 'text/plain; version=0.0.4',
    'Content-Length': b.length,
    ...(gz ? { 'Content-Encoding': 'gzip' } : {}),
  });
  res.end(b);
});
await new Promise((r) => bare.listen(0, '127.0.0.1', r));
const bareUrl = `http://127.0.0.1:${bare.address().port}/metrics`;

const clientCode = `
const { parentPort, workerData } = require('node:worker_threads');
const { request, Agent } = require('undici');
(async () => {
  const out = {};
  for (const [name, url] of Object.entries(workerData.urls)) {
    for (const enc of workerData.encodings) {
      const agent = new Agent({ connections: 2 });
      const ttfb = [], total = [];
      const one = async () => {
        const t0 = performance.now();
        const res = await request(url, { dispatcher: agent, headers: { 'accept-encoding': enc } });
        ttfb.push(performance.now() - t0);
        for await (const _ of res.body) {}
        total.push(performance.now() - t0);
      };
      for (let i = 0; i < 3; i++) await Promise.all([one(), one()]);
      ttfb.length = 0; total.length = 0;
      for (let i = 0; i < workerData.rounds; i++) await Promise.all([one(), one()]);
      const q = (a, p) => a.sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(p * a.length))];
      out[name + ' ' + enc] = { ttfbP50: q(ttfb, 0.5), ttfbP99: q(ttfb, 0.99), totalP50: q(total, 0.5), totalP99: q(total, 0.99) };
      await agent.close();
    }
  }
  parentPort.postMessage(out);
})();
`;
const serving = await measureLoop(
  () =>
    new Promise((resolve, reject) => {
      const w = new Worker(clientCode, {
        eval: true,
        workerData: {
          urls: { ours: `${server.url}/metrics`, bare: bareUrl },
          rounds: Number(process.env.BENCH_ROUNDS ?? 50),
          encodings: (process.env.BENCH_ENCODINGS ?? 'gzip,identity').split(','),
        },
      });
      w.once('message', resolve);
      w.once('error', reject);
    }),
);
await server.close();
await new Promise((r) => bare.close(r));
cache.close();
const rssServed = rss();
memLines.push(memLine('after serving'));

// --- prom-client with the same series
const registry = new promClient.Registry();
const gauges = new Map();
for (const f of NODE_FAMILIES)
  gauges.set(
    f.name,
    new promClient.Gauge({
      name: f.name,
      help: f.name,
      labelNames: [
        'product',
        'group',
        'node_id',
        'hostname',
        'version',
        'platform',
        'arch',
        'config_version',
        'status',
        'os_name',
        'os_version',
        'cribl_mode',
        'kube_namespace',
        'kube_pod',
        'reason',
      ],
      registers: [registry],
    }),
  );
const lineRe = /^([a-z_]+)\{(.*)\} (\S+)$/;
const pairRe = /([a-z_]+)="((?:[^"\\]|\\.)*)"/g;
{
  const { gunzipSync } = await import('node:zlib');
  for (const line of gunzipSync(Buffer.concat(body.gzip)).toString('utf8').split('\n')) {
    const m = lineRe.exec(line);
    if (!m) continue;
    const labels = {};
    for (const p of m[2].matchAll(pairRe)) labels[p[1]] = p[2];
    gauges.get(m[1]).set(labels, Number(m[3]));
  }
}
const prom = await measureLoop(() => registry.metrics());

// --- report
console.log(`nodes ${N}, series ${series} (${(series / N).toFixed(1)} per node), Node ${process.version}`);
console.log(`render per node (setNode)      ${((fillMs * 1000) / N).toFixed(1)} µs   (fill total ${ms(fillMs)})`);
console.log(
  `full rebuild                   wall ${ms(rebuild.wall)}, event-loop active ${ms(rebuild.active)}, longest block ${ms(rebuild.maxBlock)} (delay p99 ${ms(rebuild.p99Block)})`,
);
console.log(
  `body                           identity ${mb(body.identityBytes)} (${body.identity ? 'cached' : 'not cached: served by gunzip'}), gzip ${mb(body.gzipBytes)}`,
);
console.log(
  `prom-client registry.metrics() wall ${ms(prom.wall)}, event-loop active ${ms(prom.active)}, longest block ${ms(prom.maxBlock)}, ${mb(Buffer.byteLength(prom.result))}`,
);
console.log(
  `RSS                            start ${mb(rss0)}, after fill ${mb(rssFilled)}, after rebuild ${mb(rssBuilt)} (peak ${mb(rebuildPeak)}), after serving ${mb(rssServed)}, with prom-client copy ${mb(rss())}`,
);
for (const l of memLines) console.log(`  ${l}`);
console.log(
  `serving (2 concurrent scrapers, ${process.env.BENCH_ROUNDS ?? 50} rounds): server event-loop delay p99 ${ms(serving.p99Block)}, max ${ms(serving.maxBlock)}`,
);
for (const [k, v] of Object.entries(serving.result)) {
  console.log(
    `  ${k.padEnd(14)} ttfb p50 ${ms(v.ttfbP50)} p99 ${ms(v.ttfbP99)} | total p50 ${ms(v.totalP50)} p99 ${ms(v.totalP99)}`,
  );
}
