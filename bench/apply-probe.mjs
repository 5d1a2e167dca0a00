// A discovery's apply at N nodes, in one process: getNode + setNode (how setNodes wrote a listing before 861b4ba,
// `old`) against setListing (`new`), five applies of a changed listing each; CPU and GC events per apply.
//   npm run build && node --max-semi-space-size=2 bench/apply-probe.mjs [N] old|new

import { createLeaderSnapshot } from '../build/store/snapshot.js';
import { SNAPSHOT_RENDERERS } from '../build/collectors/index.js';
import { PerformanceObserver } from 'node:perf_hooks';
const N = +(process.argv[2] ?? 50000), mode = process.argv[3];
const w = (i, t) => ({ id: `w${i}`, group: `g${i % 20}`, firstMsgTime: 1717200000000, lastMsgTime: 1717200060500 + t, workerProcesses: 4,
  info: { hostname: `host-${i}`, cpus: 8, totalmem: 16777216000, architecture: 'x64', platform: 'linux', freeDiskSpace: 1e11, totalDiskSpace: 2e11,
    cribl: { version: '4.15.1-1b453caa', config: { version: 'abc1234' }, distMode: 'worker', startTime: 1717199000000 } }, status: 'healthy', disconnected: false, deployable: true });
const s = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
for (let i = 0; i < N; i++) { const x = w(i, 0); s.setNode(`k${i}`, { product: 'stream', group: x.group, nodeId: x.id, worker: x }); s.setNodeHealth(`k${i}`, { up: true, status: 'healthy', lastSuccessMs: 1.7e12, startTime: 1717199000000 }); s.setNodeMetadata(`k${i}`, { lastSuccessMs: 1.7e12, item: { timestamp: 1.7e12, cribl: { mode: 'worker', version: '4.15.1', config_version: 'abc', group: 'g' }, os: { os_name: 'Linux', os_version: '6' } } }); }
let gcMs = 0, gcs = 0; new PerformanceObserver((l) => { for (const e of l.getEntries()) { gcMs += e.duration; gcs++; } }).observe({ entryTypes: ['gc'] });
const listings = []; for (let r = 1; r <= 5; r++) { const m = new Map(); for (let i = 0; i < N; i++) m.set(`k${i}`, w(i, r)); listings.push(m); }
await new Promise((r) => setTimeout(r, 100)); gcMs = 0; gcs = 0;
const c0 = process.cpuUsage(); const t0 = performance.now();
for (const m of listings) for (const [k, x] of m) {
  if (mode === 'old') { const st = s.getNode(k); s.setNode(k, { ...st, product: 'stream', group: x.group, worker: x }); }
  else s.setListing(k, 'stream', x.group, x);
}
const ms = performance.now() - t0; const cpu = process.cpuUsage(c0);
await new Promise((r) => setTimeout(r, 100));
console.log(mode, `${N} nodes: ${(ms / 5).toFixed(0)} ms per apply, cpu ${((cpu.user + cpu.system) / 5e3).toFixed(0)} ms, gc ${gcs} events ${(gcMs / 5).toFixed(0)} ms per apply`);
