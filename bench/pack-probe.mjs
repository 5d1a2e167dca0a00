// What feeding a build to the body worker costs (issue 17, tenth round; not part of `npm run bench`):
//   npm run build && node --max-semi-space-size=2 bench/pack-probe.mjs [build dir] [nodes=50000] [rounds=5]
// Fills a NodeTable of a build/ (tsc's modules) with `nodes` states (6 groups, fleet-wide versions and platforms, a hostname and
// an id of its own per node), then packs it 1,000 slots at a time and posts each pack to a worker that only answers,
// as builder.ts does; prints per round the main thread's time in pack + postMessage and the process's CPU (all
// threads: the worker's copy included). Pass another build/ to compare
// (`npx tsc -p tsconfig.build.json --outDir DIR`).
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = pathToFileURL(resolve(process.argv[2] ?? join(here, '..', 'build'))).href;
const n = Number(process.argv[3] ?? 50_000);
const rounds = Number(process.argv[4] ?? 5);
const PER_MESSAGE = 1000;
const { NodeTable, packTransferList } = await import(`${dist}/store/node-table.js`);
const { compactWorker } = await import(`${dist}/collectors/listing.js`);

const table = new NodeTable();
const groups = ['default', 'edge-fleet', 'prod', 'dev', 'k8s', 'linux'];
const slots = [];
for (let i = 0; i < n; i++) {
  const group = groups[i % groups.length];
  const worker = compactWorker({
    id: `node-${i}-5f3c1a2b`,
    group,
    status: 'healthy',
    lastMsgTime: 1e12,
    firstMsgTime: 1e12,
    workerProcesses: 4,
    info: {
      hostname: `host-${i}.example.internal`,
      platform: 'linux',
      architecture: 'x64',
      cpus: 8,
      totalmem: 1e10,
      freeDiskSpace: 1e9,
      totalDiskSpace: 1e11,
      cribl: { version: '4.8.2-abcdef', distMode: 'worker', config: { version: 'abc1234' } },
    },
  });
  const slot = table.alloc();
  table.write(slot, {
    product: i % 2 ? 'stream' : 'edge',
    group,
    nodeId: worker.id,
    worker,
    health: { up: true, status: 'healthy', lastSuccessMs: 1e12, startTime: 1e12 },
    metadata: {
      item: { timestamp: 1, os: { os_name: 'Ubuntu', os_version: '22.04' }, cribl: { mode: 'worker', group } },
      lastSuccessMs: 1,
    },
  });
  slots.push(slot);
}

const echo = `require('node:worker_threads').parentPort.on('message', function () { this.postMessage(1); });`;
const w = new Worker(echo, { eval: true });
const messages = Math.ceil(n / PER_MESSAGE);
for (let r = 0; r < rounds; r++) {
  let got = 0;
  const done = new Promise((res) => {
    w.on('message', function on() {
      if (++got < messages) return;
      w.off('message', on);
      res();
    });
  });
  const cpu0 = process.cpuUsage();
  let mainMs = 0;
  for (let at = 0; at < n; at += PER_MESSAGE) {
    const t0 = performance.now();
    const packed = table.pack(slots.slice(at, at + PER_MESSAGE));
    w.postMessage(packed, packTransferList(packed));
    mainMs += performance.now() - t0;
  }
  await done;
  const cpu = process.cpuUsage(cpu0);
  const all = (cpu.user + cpu.system) / 1000;
  console.log(`round ${r + 1}: pack + postMessage ${mainMs.toFixed(0)} ms of the main thread; ${all.toFixed(0)} ms CPU`);
}
await w.terminate();
