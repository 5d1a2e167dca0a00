// The floor of a Node.js client on the exporter's route: undici's request() alone (the HTTP client the
// design card prescribes), C requests in flight on a Pool of C connections, each body parsed as JSON,
// nothing else (no budget, no auth, no rendering). Shows how much of autocannon's rate any undici-based
// exporter can reach on this machine, and how much of that floor our pipeline keeps.
// With [rps], the requests are paced at that rate (released by timers of 10 ms or more), as the exporter's own
// rate: below saturation a request costs a client more, since the process idles between requests and each wake-up
// costs CPU (about 0.12 ms on the bench VM; bench/notes-rate.md in git history at bbf1e93).
// With [warm-up seconds], the first seconds are run but not counted (JIT compilation and the pool's connections
// are then paid for; at a low rate they were most of a 5 s run's CPU).
//   node bench/undici-floor.mjs <origin> <token> <ids-file> <connections> <seconds> [rps] [warm-up seconds]
// Sends { rps, cpuMsPerRequest, ... } over IPC (or prints it as JSON without a channel).

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

process.once('disconnect', () => process.exit(0));
const [origin, token, idsFile, connectionsText, secondsText, rpsText, warmupText] = process.argv.slice(2);
const pace = rpsText && rpsText !== 'max' ? 1000 / Number(rpsText) : 0;
const warmupMs = Number(warmupText ?? 0) * 1000;
const ids = JSON.parse(readFileSync(idsFile, 'utf8'));
const connections = Number(connectionsText);
const durationMs = Number(secondsText) * 1000;
const pool = new Pool(origin, { connections });
const headers = { authorization: `Bearer ${token}` };

let ok = 0;
let failed = 0;
let next = 0;
const t0 = performance.now();
const end = t0 + warmupMs + durationMs;
/** Where counting starts: at once, or at the end of the warm-up. */
let base = { cpu: process.cpuUsage(), at: t0, done: 0 };
if (warmupMs > 0) setTimeout(() => (base = { cpu: process.cpuUsage(), at: performance.now(), done: ok + failed }), warmupMs);
let sent = 0;
let ticking;
/**
 * Resolves in `ms` (at least 10 ms), or with the timer already set by another loop: one timer for all the loops
 * waiting, none while requests are due (a timer per request would cost more than the request).
 */
function tick(ms) {
  ticking ??= new Promise((r) =>
    setTimeout(
      () => {
        ticking = undefined;
        r();
      },
      Math.max(10, ms),
    ),
  );
  return ticking;
}
async function loop() {
  while (performance.now() < end) {
    if (pace) {
      const at = t0 + sent++ * pace;
      for (let wait = at - performance.now(); wait > 0; wait = at - performance.now()) await tick(wait);
    }
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
const wallMs = performance.now() - base.at;
const cpu = process.cpuUsage(base.cpu);
const done = ok + failed - base.done;
await pool.close();
const result = {
  rps: done / (wallMs / 1000),
  // Every request, the warm-up's included (the rates and costs count only those after it).
  ok,
  failed,
  durationS: wallMs / 1000,
  cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / Math.max(1, done),
  systemMsPerRequest: cpu.system / 1000 / Math.max(1, done),
};
if (process.send) process.send({ ready: true, result }, () => process.exit(0));
else console.log(JSON.stringify(result));
