// What the exporter keeps per node (issue 51): the store's items and listing facts, the health facts, the poller's
// entries and heaps, measured in process with the real discovery step, poller and store against a fake leader (no
// HTTP, no body engine: those are the benchmark's). Pages of 1,000 Edge entries are serialized and parsed as the
// client parses them, so that the listing's strings are what a real discovery holds.
//   node --expose-gc --import tsx bench/memory-per-node.mjs [--nodes 250000] [--level minimal] [--pad 0]
// Prints one JSON line: heap bytes per node after the first discovery, after every node's health answer, the peak
// during a second discovery (the new listing beside the old), and RSS.

import { parseArgs } from 'node:util';
import pino from 'pino';
import { COLLECTORS } from '../src/collectors/registry.ts';
import { listing } from '../src/collectors/listing/index.ts';
import { parseConfig } from '../src/config/parse.ts';
import { settingsOf } from '../src/config/types.ts';
import { Discoverer } from '../src/discovery/discovery.ts';
import { CollectorRuns } from '../src/polling/collector-runs.ts';
import { DiscoveryStep } from '../src/polling/discovery-step.ts';
import { NodePoll, nodeCollectors } from '../src/polling/node-poll.ts';
import { Poller } from '../src/polling/poller.ts';
import { LeaderSnapshot } from '../src/store/snapshot.ts';

const { values: args } = parseArgs({
  options: {
    nodes: { type: 'string', default: '250000' },
    level: { type: 'string', default: 'minimal' },
    // Bytes of a field the exporter drops, added to every entry: the listing's JSON grows, what is kept does not.
    pad: { type: 'string', default: '0' },
  },
});
const NODES = Number(args.nodes);
const LEVEL = args.level;
const PAGE = 1000;
const PAD = 'x'.repeat(Number(args.pad));
const VERSIONS = ['4.12.2', '4.13.3', '4.14.1', '4.15.0', '4.16.1'];
const FLEETS = ['default_fleet', 'retail-stores', 'factories', 'branch-offices', 'kiosks'];

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
const gc = () => {
  globalThis.gc();
  globalThis.gc();
};

/** One Edge listing entry, as a 4.17+ leader lists it (the fields it sends that the exporter drops included). */
function entry(i, round) {
  const id = `edge-${i.toString(16).padStart(8, '0')}-${(i * 2654435761) % 1e9}`;
  const version = VERSIONS[i % VERSIONS.length];
  return {
    id,
    group: FLEETS[i % FLEETS.length],
    firstMsgTime: 1717200000000 + i,
    lastMsgTime: 1717200060000 + round * 60_000 + (i % 60_000),
    workerProcesses: 1,
    status: 'healthy',
    disconnected: i % 50 === 0,
    deployable: true,
    type: 'edge',
    nodeUpgradeStatus: { state: 1, timestamp: 1717100000000 },
    info: {
      hostname: `store-${i}.retail.example.com`,
      platform: 'linux',
      architecture: 'x64',
      release: '6.8.0-1012-aws',
      cpus: 4,
      totalmem: 8_589_934_592,
      freeDiskSpace: 20_000_000_000 - i,
      totalDiskSpace: 64_000_000_000,
      node: 'v22.17.1',
      hostOs: { os: 'linux' },
      env: { CRIBL_DIST_MODE: 'managed-edge', ...(PAD ? { PADDING: PAD } : {}) },
      conn_ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      cribl: {
        version,
        distMode: 'managed-edge',
        group: FLEETS[i % FLEETS.length],
        guid: id,
        startTime: 1717200000000 + (i % 1000),
        config: { version: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0' },
      },
    },
  };
}

/** A leader that lists NODES Edge nodes in pages (their JSON parsed as the client parses a body) and answers health. */
function fakeLeader(round) {
  let bytes = 0;
  let pages = 0;
  const client = {
    baseUrl: 'http://leader.test/api/v1',
    async request(req) {
      req.onSent?.();
      let json;
      if (req.path === '/products/edge/workers') {
        const offset = req.query.offset;
        const items = [];
        for (let i = offset; i < Math.min(NODES, offset + PAGE); i++) items.push(entry(i, round.value));
        const text = JSON.stringify({ count: items.length, items, totalCount: NODES });
        bytes += Buffer.byteLength(text);
        pages++;
        json = JSON.parse(text);
      } else if (req.path.endsWith('/health') && req.path.startsWith('/w/')) {
        json = { status: 'healthy', startTime: 1717200000000, role: 'primary' };
      } else if (req.path.endsWith('/groups')) {
        json = { count: FLEETS.length, items: FLEETS.map((id) => ({ id, isFleet: true })) };
      } else {
        return { ok: false, status: 404, reason: 'http_4xx', message: `${req.path}: 404` };
      }
      try {
        return { ok: true, status: 200, body: req.decode(json, 200, {}) };
      } catch (e) {
        return { ok: false, reason: 'decode', message: String(e) };
      }
    },
    close: async () => undefined,
    cost: () => ({ bytes, pages }),
  };
  return client;
}

const mb = (n) => Math.round((n / 1048576) * 10) / 10;

async function main() {
  const config = parseConfig({
    argv: ['--leader.url', 'http://127.0.0.1:1/api/v1', '--products', 'edge', '--edge.node-detail', LEVEL],
    env: {},
    readFile: () => '',
  });
  const logger = pino({ level: 'silent' });
  const clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
  const round = { value: 0 };
  const client = fakeLeader(round);
  gc();
  const base = process.memoryUsage();
  const snapshot = new LeaderSnapshot({});
  const settings = (c) => settingsOf(config, c);
  const runs = new CollectorRuns({ client, store: snapshot, clock, logger, settingsOf: settings, target: { cloud: false } });
  const poll = new NodePoll({ client, store: snapshot, clock, logger, ...nodeCollectors(COLLECTORS, settings, (c) => runs.enabled(c)) });
  const poller = new Poller({ poll, snapshot, listing: listing.name, clock, logger, maxOutstanding: 64 });
  const step = new DiscoveryStep({
    discoverer: new Discoverer({ client, products: ['edge'], logger }),
    poller,
    collectors: COLLECTORS,
    runs,
    snapshot,
    clock,
    logger,
    metrics: { discovery: () => undefined, nodes: () => undefined },
    discoveryIntervalMs: config.discovery.discoveryMs,
    shard: config.shard,
    maxNodes: 0,
    nodeDetail: { edge: LEVEL, stream: 'auto' },
  });
  const signal = new AbortController().signal;
  let peak = 0;
  let rssPeak = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.heapUsed);
    rssPeak = Math.max(rssPeak, m.rss);
  }, 5);
  const t0 = performance.now();
  await step.discover(signal);
  const discoveryMs = performance.now() - t0;
  const firstCost = client.cost();
  const firstPeak = peak;
  gc();
  const listed = process.memoryUsage();
  // Every node answers its health poll once (a rotation's worth, or a full level's round).
  await poller.runHealthCycle(signal);
  gc();
  const polled = process.memoryUsage();
  if (process.env.HEAP_SNAPSHOT) (await import('node:v8')).writeHeapSnapshot(process.env.HEAP_SNAPSHOT);
  // A second discovery: every entry new (a later heartbeat), the old facts replaced.
  round.value = 1;
  peak = 0;
  await step.discover(signal);
  const secondPeak = peak;
  clearInterval(sampler);
  gc();
  const steady = process.memoryUsage();
  const per = (m) => Math.round((m.heapUsed - base.heapUsed) / NODES);
  console.log(
    JSON.stringify({
      nodes: NODES,
      level: LEVEL,
      padBytes: PAD.length,
      held: snapshot.size,
      bytesPerNode: { listed: per(listed), polled: per(polled), steady: per(steady) },
      heapMB: {
        base: mb(base.heapUsed),
        listed: mb(listed.heapUsed),
        polled: mb(polled.heapUsed),
        steady: mb(steady.heapUsed),
        firstDiscoveryPeak: mb(firstPeak),
        secondDiscoveryPeak: mb(secondPeak),
      },
      rssMB: { base: mb(base.rss), steady: mb(steady.rss), peak: mb(rssPeak) },
      leaderCostPerDiscovery: { pages: firstCost.pages, listingBytes: firstCost.bytes },
      firstDiscoverySeconds: Math.round(discoveryMs / 100) / 10,
    }),
  );
}

await main();
