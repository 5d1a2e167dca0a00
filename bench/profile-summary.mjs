// Summarises a V8 .cpuprofile (from `npm run bench -- --profile`): self time by file and by function,
// optionally within a time range, and the longest busy stretches (no idle sample), which is where the
// event loop was blocked, with the functions that filled them.
//   node bench/profile-summary.mjs <file.cpuprofile> [--top 25] [--from S] [--to S] [--blocks 5]
// dist/ is minified (scripts/bundle.mjs), so its functions show as `#y dist/chunk-….js`: for src/'s names, profile
// an unminified bundle (`node scripts/bundle.mjs --unminified --outdir $PWD/xpdist`): `--exporter-env
// BENCH_DIST=$PWD/xpdist` for bench/run.mjs, `--env BENCH_DIST=$PWD/xpdist` for steady-probe.mjs. tsc's build/ cannot
// stand in for dist/: it has no commands.js (the commands are src/commands/, one module each).

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: o, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    from: { type: 'string' },
    to: { type: 'string' },
    blocks: { type: 'string', default: '5' },
  },
});
const file = positionals[0];
if (!file) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [--top N] [--from S] [--to S] [--blocks N]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const top = Number(o.top);
const fromUs = o.from === undefined ? -Infinity : Number(o.from) * 1e6;
const toUs = o.to === undefined ? Infinity : Number(o.to) * 1e6;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const name = (id) => {
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const short = url.replace(/^.*\/(node_modules\/[^/]+(?:\/[^/]+)?|dist|src)\//, '$1/');
  return `${functionName || '(anonymous)'}${short ? ` ${short}:${lineNumber + 1}` : ''}`;
};
const fileOf = (id) => {
  const { functionName, url } = byId.get(id).callFrame;
  const short = url.replace(/^.*\/(node_modules\/[^/]+(?:\/[^/]+)?|dist|src)\//, '$1/');
  return short.replace(/^(node_modules\/[^/]+).*/, '$1') || `(${functionName})`;
};
const isIdle = (id) => byId.get(id).callFrame.functionName === '(idle)';

// Samples with their times since the start of the profile.
const samples = [];
let t = 0;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i] ?? 0;
  const dt = profile.timeDeltas[i + 1] ?? 0;
  if (t >= fromUs && t <= toUs) samples.push({ id: profile.samples[i], t, dt });
}

const sum = (list, key) => {
  const m = new Map();
  for (const s of list) m.set(key(s.id), (m.get(key(s.id)) ?? 0) + s.dt);
  return m;
};
const print = (title, m, total) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`);
  }
};
const total = samples.reduce((a, s) => a + s.dt, 0);
const busy = samples.filter((s) => !isIdle(s.id));
const busyUs = busy.reduce((a, s) => a + s.dt, 0);
console.log(
  `${file}: ${(total / 1e6).toFixed(1)} s in range, ${(busyUs / 1e6).toFixed(1)} s busy (${((100 * busyUs) / total).toFixed(0)} %)`,
);
print('self time by file (busy only)', sum(busy, fileOf), busyUs);
print('self time by function (busy only)', sum(busy, name), busyUs);

// Inclusive time per function (each sample counts once for every distinct frame on its stack).
const inclusive = new Map();
for (const s of busy) {
  const seen = new Set();
  for (let id = s.id; id !== undefined; id = parent.get(id)) {
    const k = name(id);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + s.dt);
  }
}
print('inclusive time by function (busy only)', inclusive, busyUs);

// Longest stretches without an idle sample.
const blocks = [];
let cur;
for (const s of samples) {
  if (isIdle(s.id)) {
    if (cur) blocks.push(cur);
    cur = undefined;
  } else {
    cur ??= { start: s.t, us: 0, list: [] };
    cur.us += s.dt;
    cur.list.push(s);
  }
}
if (cur) blocks.push(cur);
blocks.sort((a, b) => b.us - a.us);
for (const b of blocks.slice(0, Number(o.blocks))) {
  const inc = new Map();
  for (const s of b.list) {
    const seen = new Set();
    for (let id = s.id; id !== undefined; id = parent.get(id)) {
      const k = name(id);
      if (seen.has(k)) continue;
      seen.add(k);
      inc.set(k, (inc.get(k) ?? 0) + s.dt);
    }
  }
  console.log(
    `\nbusy stretch at ${(b.start / 1e6).toFixed(2)} s: ${(b.us / 1000).toFixed(1)} ms; heaviest frames (inclusive):`,
  );
  for (const [k, us] of [...inc]
    .filter(([k]) => !k.startsWith('(root)'))
    .sort((x, y) => y[1] - x[1])
    .slice(0, 12)) {
    console.log(`  ${(us / 1000).toFixed(1).padStart(7)} ms  ${k}`);
  }
}
