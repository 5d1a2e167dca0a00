// Where a thread's time went within a window, from a V8 .cpuprofile (`node --cpu-prof`), by kind of code: the
// "why" of BENCHMARKS.md's CPU verdicts (bench/run.mjs, the profiled run). Pure: a parsed profile in, figures out.
//
// A profile's times are V8's monotonic clock in µs, the clock of `process.hrtime()` (CLOCK_MONOTONIC on Linux) in
// every process of the machine, so a window the benchmark marks with `monotonicUs()` cuts the exporter's profile.

/** Now, on the clock of a .cpuprofile's `startTime` (µs). */
export function monotonicUs() {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * The kinds of self time, in the order the report lists them: `[kind, short name, what it holds]`. A sample is
 * counted for the function it was in (self time), not for its callers.
 */
export const CPU_KINDS = [
  ['gc', 'GC', 'garbage collection (V8, on this thread)'],
  ['socket', 'socket writes', "socket writes (the kernel's send of each request, and on one machine the leader's wake-up)"],
  ['undici', 'undici', "undici and its HTTP parser (llhttp's WebAssembly)"],
  ['node', "Node.js's JS", "Node.js's own JavaScript (timers, streams, buffers, promise jobs, zlib's binding)"],
  ['exporter', 'the exporter', "the exporter's code (dist/ or build/)"],
  ['libraries', 'libraries', 'other libraries (pino, prom-client, zod)'],
  ['runtime', 'runtime', 'V8 and native runtime outside JavaScript (compilation, the event loop: `(program)`)'],
  ['bench', 'bench probes', "the benchmark's own probes in the process (bench/)"],
  ['other', 'other', 'anything else'],
];

// Native functions that write to a socket (StreamBase's writes: the syscall runs inside them).
const SOCKET_WRITES = new Set([
  'writeLatin1String',
  'writeUtf8String',
  'writeAsciiString',
  'writeUcs2String',
  'writeBuffer',
  'writev',
]);

/** The kind of a profile node's self time, from its call frame (`functionName`, `url`). */
export function kindOf({ functionName, url }) {
  if (functionName === '(garbage collector)') return 'gc';
  if (functionName === '(program)') return 'runtime';
  if (!url) {
    if (SOCKET_WRITES.has(functionName)) return 'socket';
    if (functionName === '(runMicrotasks)' || functionName === 'runMicrotasks') return 'node';
    return 'runtime';
  }
  if (url.startsWith('wasm://') || url.includes('/node_modules/undici/')) return 'undici';
  if (url.startsWith('node:')) return 'node';
  if (url.includes('/node_modules/')) return 'libraries';
  if (/\/(dist|build|src)\//.test(url)) return 'exporter';
  if (url.includes('/bench/')) return 'bench';
  return 'other';
}

/**
 * Self time by kind within [fromUs, toUs] (the profile's clock, µs): `{ busyMs, idleMs, ms: { [kind]: ms } }`, a
 * sample counted with the time until the next one (V8's own convention). Idle samples (`(idle)`: the thread waiting
 * in the event loop) are counted apart.
 */
export function timeByKind(profile, fromUs = -Infinity, toUs = Infinity) {
  const kinds = new Map();
  for (const n of profile.nodes) {
    kinds.set(n.id, n.callFrame.functionName === '(idle)' ? 'idle' : kindOf(n.callFrame));
  }
  const ms = Object.fromEntries(CPU_KINDS.map(([k]) => [k, 0]));
  let idleMs = 0;
  let t = profile.startTime;
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) {
    t += timeDeltas[i] ?? 0;
    if (t < fromUs || t > toUs) continue;
    const dtMs = (timeDeltas[i + 1] ?? 0) / 1000;
    const kind = kinds.get(samples[i]) ?? 'other';
    if (kind === 'idle') idleMs += dtMs;
    else ms[kind] += dtMs;
  }
  const busyMs = Object.values(ms).reduce((a, b) => a + b, 0);
  return { busyMs, idleMs, ms };
}
