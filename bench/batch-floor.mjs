// undici's request() alone at a fixed rate, the requests released evenly (a timer per request, B = 0) or in batches
// every B ms: what batching the wake-ups saves a client (bench/notes-gc.md). Not part of `npm run bench`.
//   node bench/batch-floor.mjs <origin> <token> <ids-file> <connections> <seconds> <rps> <B ms> <warm-up seconds>
// (ids-file: a JSON array of node ids, e.g. from the simulator's /_sim/nodes; PIPE=N sets undici's pipelining.)
// Prints { rps, B, cpuMsPerReq, cores } over the counted seconds.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
const [origin, token, idsFile, conns, secs, rpsT, batchMsT, warmT] = process.argv.slice(2);
const ids = JSON.parse(readFileSync(idsFile, 'utf8'));
const pool = new Pool(origin, { connections: Number(conns), pipelining: Number(process.env.PIPE ?? 1) });
const headers = { authorization: `Bearer ${token}` };
const rps = Number(rpsT), B = Number(batchMsT), warm = Number(warmT) * 1000, dur = Number(secs) * 1000;
let done = 0, next = 0, sent = 0;
function one() {
  const id = ids[next++ % ids.length];
  pool.request({ method: 'GET', path: `/api/v1/w/${encodeURIComponent(id)}/health`, headers })
    .then((r) => r.body.json()).then(() => done++, () => done++);
}
const t0 = performance.now();
let base;
setTimeout(() => (base = { cpu: process.cpuUsage(), at: performance.now(), done }), warm);
const period = B > 0 ? B : 1000 / rps;
function tick() {
  const now = performance.now();
  const want = Math.floor(((now - t0) / 1000) * rps);
  while (sent < want) { sent++; one(); }
  if (now - t0 < warm + dur) setTimeout(tick, Math.max(1, t0 + (Math.floor((now - t0) / period) + 1) * period - performance.now()));
  else setTimeout(() => { const c = process.cpuUsage(base.cpu); const n = done - base.done; console.log(JSON.stringify({ rps: n / ((performance.now() - base.at) / 1000), B, cpuMsPerReq: ((c.user + c.system) / 1000 / n).toFixed(3), cores: ((c.user + c.system) / 1000 / (performance.now() - base.at)).toFixed(4) })); pool.close(); }, 200);
}
tick();
