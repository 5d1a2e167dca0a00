// The floor of a Node.js client on the exporter's route: undici's request() alone (the HTTP client the
// design card prescribes), C requests in flight on a Pool of C connections, each body parsed as JSON,
// nothing else (no budget, no auth, no rendering). Shows how much of autocannon's rate any undici-based
// exporter can reach on this machine, and how much of that floor our pipeline keeps.
//   node bench/undici-floor.mjs <origin> <token> <ids-file> <connections> <seconds>
// Sends { rps, cpuMsPerRequest, ... } over IPC (or prints it as JSON without a channel).

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

process.once('disconnect', () => process.exit(0));
const [origin, token, idsFile, connectionsText, secondsText] = process.argv.slice(2);
const ids = JSON.parse(readFileSync(idsFile, 'utf8'));
const connections = Number(connectionsText);
const durationMs = Number(secondsText) * 1000;
const pool = new Pool(origin, { connections });
const headers = { authorization: `Bearer ${token}` };

let ok = 0;
let failed = 0;
let next = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const end = t0 + durationMs;
async function loop() {
  while (performance.now() < end) {
    const id = ids[next++ % ids.length];
    try {
      const res = await pool.request({ method: 'GET', path: `/api/v1/w/${encodeURIComponent(id)}/health`, headers });
      await res.body.json();
      if (res.statusCode === 200) ok++;
      else failed++;
    } catch {
      failed++;
    }
  }
}
await Promise.all(Array.from({ length: connections }, loop));
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
await pool.close();
const result = {
  rps: ok / (wallMs / 1000),
  ok,
  failed,
  durationS: wallMs / 1000,
  cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / Math.max(1, ok + failed),
};
if (process.send) process.send({ ready: true, result }, () => process.exit(0));
else console.log(JSON.stringify(result));
