// The exporter under benchmark, in its own process: runs runCommand from dist/commands.js exactly as
// dist/cli.js does (same argv, environment, logger on stdout, SIGTERM handling), plus a bench-only IPC
// channel that reports what cannot be seen from outside:
//   - event-loop gaps from a 1 ms timer (lib/gaps.mjs: the longest block, + about 1 ms),
//   - event-loop utilisation and CPU time (process.cpuUsage, all threads),
//   - every /metrics body build: start, wall time, event-loop active time and longest gap during it, and what the
//     build says of itself (generation, bytes, gzipBytes; runs and reusedRuns where the engine reports them),
//   - a forced body rebuild on request ("rebuild"; `fresh`: one that renders every node anew),
//   - memory (process.memoryUsage, VmHWM from /proc/self/status, reset through /proc/self/clear_refs, resident
//     memory by mapping).
// Nothing here changes what the exporter does. The body engine is reached through three things only:
// app.body.rebuild(options?: { fresh?: boolean }) (wrapped: the engine calls it for its scheduled builds too),
// app.body.whenIdle(), and the fields of what a build resolves to. The 1 ms timer is not free (lib/gaps.mjs,
// STEADY_GAP_TIMER_MS); the "gapTimer" command sets its interval for a window.

import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { createGapMonitor } from './lib/gaps.mjs';
import { residentMb } from './lib/smaps.mjs';

// BENCH_DIST (through --exporter-env): another build of dist/ to measure, e.g. a variant of a constant
// (`node scripts/bundle.mjs --outdir DIR`, with DIR/../package.json and node_modules reachable).
const dist = process.env.BENCH_DIST ? new URL(`file://${process.env.BENCH_DIST}/`) : new URL('../dist/', import.meta.url);
const { runCommand } = await import(new URL('commands.js', dist).href);
const { readFileSafely } = await import(new URL('util/files.js', dist).href);
const { version } = createRequire(import.meta.url)('../package.json');

const gaps = createGapMonitor(1);
let loopWindow = gaps.window();

let app;
const builds = [];

function instrumentBuilds(body) {
  const original = body.rebuild.bind(body);
  let current;
  body.rebuild = (options) => {
    const forced = forcing;
    const t0 = performance.now();
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = process.cpuUsage();
    const gap = gaps.window();
    const p = original(options);
    if (p === current) {
      gap.end();
      return p;
    }
    current = p;
    const record = (ok, built) => {
      const maxGapMs = gap.end();
      const elu = performance.eventLoopUtilization(elu0);
      const cpu = process.cpuUsage(cpu0);
      builds.push({
        ok,
        startMs: t0,
        wallMs: performance.now() - t0,
        activeMs: elu.active,
        cpuMs: (cpu.user + cpu.system) / 1000,
        maxGapMs,
        forced,
        ...buildStats(built),
      });
      if (builds.length > 1000) builds.shift();
      if (current === p) current = undefined;
    };
    p.then(
      (built) => record(true, built),
      () => record(false),
    );
    return p;
  };
}

let forcing = false;

/**
 * What a build says of itself: generation, identity and gzip bytes (a body's `identityBytes`, or build stats'
 * `bytes`), and runs / reusedRuns only where the engine reports them.
 */
function buildStats(built) {
  if (!built || typeof built !== 'object') return {};
  const out = {};
  const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const pick = { generation: built.generation, bytes: built.bytes ?? built.identityBytes, gzipBytes: built.gzipBytes };
  for (const k of ['runs', 'reusedRuns']) pick[k] = built[k];
  for (const [k, v] of Object.entries(pick)) if (num(v) !== undefined) out[k] = v;
  return out;
}

function vmHwmBytes() {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Resident memory (MB) by mapping kind (bench/lib/smaps.mjs, residentMb). */
function residentByMapping() {
  try {
    return residentMb(readFileSync('/proc/self/smaps', 'utf8'));
  } catch {
    return undefined;
  }
}

const handlers = {
  /** Counters since start (the parent takes differences) and the loop histogram since the last reset. */
  stats({ resetLoop = false, resetPeak = false }) {
    const mem = process.memoryUsage();
    const elu = performance.eventLoopUtilization();
    const cpu = process.cpuUsage();
    const out = {
      atMs: performance.now(),
      rss: mem.rss,
      peakRss: vmHwmBytes(),
      heapUsed: mem.heapUsed,
      heapTotal: mem.heapTotal,
      external: mem.external,
      arrayBuffers: mem.arrayBuffers,
      eluActiveMs: elu.active,
      eluIdleMs: elu.idle,
      cpuUserMs: cpu.user / 1000,
      cpuSystemMs: cpu.system / 1000,
      loop: { maxGapMs: loopWindow.peek(), intervalMs: gaps.intervalMs },
    };
    if (resetLoop) {
      loopWindow.end();
      loopWindow = gaps.window();
    }
    if (resetPeak) {
      try {
        // "5" resets the peak RSS (VmHWM) to the current RSS (Linux ≥ 4.0).
        writeFileSync('/proc/self/clear_refs', '5');
      } catch {
        // Not permitted here: peakRss stays the lifetime peak.
      }
    }
    return out;
  },
  /**
   * Memory detail: a full GC first when --expose-gc is on, V8's heap spaces, the process's smaps_rollup, resident
   * memory by mapping, and a heap snapshot of the main thread when `snapshot` names a file.
   */
  async heap({ snapshot }) {
    globalThis.gc?.();
    const v8 = await import('node:v8');
    const mem = process.memoryUsage();
    let rollup;
    try {
      rollup = readFileSync('/proc/self/smaps_rollup', 'utf8');
    } catch {
      rollup = undefined;
    }
    const spaces = v8.getHeapSpaceStatistics().map((s) => ({
      name: s.space_name,
      size: s.space_size,
      used: s.space_used_size,
    }));
    const file = snapshot ? v8.writeHeapSnapshot(snapshot) : undefined;
    return { mem, spaces, rollup, mappings: residentByMapping(), file, peakRss: vmHwmBytes() };
  },
  /** Sets the gap timer's interval (ms); returns the previous one. */
  gapTimer({ intervalMs }) {
    return gaps.setInterval(intervalMs);
  },
  /** Body builds recorded since the last call. */
  builds() {
    return builds.splice(0);
  },
  /**
   * Waits for a build in flight, then builds once more and returns that build's record; `fresh`: a build that renders
   * every node anew, taking nothing from the last build (the first body's cost, or a change to every node's).
   */
  async rebuild({ fresh = false } = {}) {
    if (!app) throw new Error('exporter not started yet');
    await app.body.whenIdle();
    forcing = true;
    const before = builds.length;
    try {
      await app.body.rebuild(fresh ? { fresh } : undefined);
    } finally {
      forcing = false;
    }
    // The record is pushed by the build's own continuation, which ran before this one.
    for (let i = 0; i < 100 && builds.length === before; i++) await new Promise((r) => setTimeout(r, 5));
    return builds.at(-1);
  },
};

const ac = new AbortController();
const stop = () => ac.abort(new Error('stop'));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.once('disconnect', stop);

process.on('message', async (m) => {
  const handler = handlers[m?.cmd];
  try {
    if (!handler) throw new Error(`unknown command ${m?.cmd}`);
    const result = await handler(m);
    process.send?.({ id: m.id, result });
  } catch (e) {
    process.send?.({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
});

const code = await runCommand({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  readFile: readFileSafely,
  signal: ac.signal,
  version,
  nodejsVersion: process.version,
  onStarted: (started) => {
    app = started;
    instrumentBuilds(started.body);
  },
});
process.exitCode = code;
setImmediate(() => process.exit(code)).unref();
