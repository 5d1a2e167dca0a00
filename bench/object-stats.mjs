// Summarizes V8's --trace-gc-object-stats output: what each mark-compact found dead (old-space garbage: what the
// young generation promoted and then dropped), by instance type, per mark-compact, for each isolate.
//   node bench/steady-probe.mjs --nodes 50000 --window 20 --node-arg=--track-gc-object-stats \
//     --node-arg=--trace-gc-object-stats --stdout /tmp/ostats.txt
//   node bench/object-stats.mjs /tmp/ostats.txt [--top 25] [--from S]
// (--from: only mark-compacts at least S seconds after the isolate started; the tracing itself costs about a third
// more CPU, so compare types and counts, not the run's cores.)
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, from: { type: 'string', default: '0' } },
});
const file = positionals[0];
if (!file) {
  process.stderr.write('usage: node bench/object-stats.mjs FILE [--top N] [--from S]\n');
  process.exit(2);
}
const fromMs = Number(values.from) * 1000;
/** isolate -> { gcs: Map<id, time>, dead: Map<type, {bytes, count, gcs: Set}> } */
const isolates = new Map();
const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.startsWith('{ "isolate"')) continue;
  let d;
  try {
    d = JSON.parse(line);
  } catch {
    continue;
  }
  let iso = isolates.get(d.isolate);
  if (!iso) isolates.set(d.isolate, (iso = { times: new Map(), dead: new Map() }));
  if (d.type === 'gc_descriptor') iso.times.set(d.id, d.time);
  if (d.type !== 'instance_type_data' || d.key !== 'dead' || d.overall === undefined) continue;
  if ((iso.times.get(d.id) ?? 0) < fromMs) continue;
  const t = iso.dead.get(d.instance_type_name) ?? { bytes: 0, count: 0 };
  t.bytes += d.overall;
  t.count += d.count;
  iso.dead.set(d.instance_type_name, t);
}
for (const [name, iso] of isolates) {
  const gcs = [...iso.times.values()].filter((t) => t >= fromMs).length;
  if (gcs === 0) continue;
  const total = [...iso.dead.values()].reduce((a, t) => a + t.bytes, 0);
  console.log(`isolate ${name}: ${gcs} mark-compacts, ${(total / gcs / 1e6).toFixed(1)} MB dead per mark-compact`);
  const rows = [...iso.dead].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(values.top));
  for (const [type, t] of rows) {
    const mb = (t.bytes / gcs / 1e6).toFixed(3).padStart(8);
    console.log(`  ${mb} MB ${String(Math.round(t.count / gcs)).padStart(8)} objects  ${type}`);
  }
}
