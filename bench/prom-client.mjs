// The prom-client baseline: the same series as the exporter's snapshot families (read from a body the
// exporter served), held in a prom-client Registry of Gauges, and the time registry.metrics() takes to
// render them, as an exporter built the usual way would pay on every scrape.
//   node --expose-gc bench/prom-client.mjs <identity-file> [runs=3]
// Sends the result over IPC (or prints it as JSON without a channel).

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Gauge, Registry } from 'prom-client';
import { createGapMonitor } from './lib/gaps.mjs';
import { snapshotFamilies } from './lib/metrics-text.mjs';

const [file, runsText = '3'] = process.argv.slice(2);
// Ends with the benchmark even if it is killed.
process.once('disconnect', () => process.exit(0));
const gc = globalThis.gc ?? (() => undefined);
const rss = () => {
  gc();
  return process.memoryUsage().rss;
};

const rssStart = rss();
const families = snapshotFamilies(readFileSync(file, 'utf8'));
const registry = new Registry();
let series = 0;
const tFill = performance.now();
for (const f of families) {
  const g = new Gauge({ name: f.name, help: f.help, labelNames: f.labelNames, registers: [registry] });
  for (const s of f.samples) {
    g.set(s.labels, s.value);
    series++;
  }
  f.samples.length = 0;
}
const fillMs = performance.now() - tFill;
const rssFilled = rss();

const gaps = createGapMonitor(1);
const runs = [];
let bytes = 0;
let lines = 0;
for (let i = 0; i < Number(runsText); i++) {
  await new Promise((r) => setTimeout(r, 5));
  const gap = gaps.window();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const text = await registry.metrics();
  const wallMs = performance.now() - t0;
  const elu = performance.eventLoopUtilization(elu0);
  const maxGapMs = gap.end();
  bytes = Buffer.byteLength(text);
  lines = 0;
  for (let p = text.indexOf('\n'); p !== -1; p = text.indexOf('\n', p + 1)) lines++;
  runs.push({ wallMs, activeMs: elu.active, maxGapMs });
}
const result = { families: families.length, series, fillMs, runs, bytes, lines, rssStart, rssFilled, rssAfter: rss() };
gaps.stop();
if (process.send) process.send({ ready: true, result }, () => process.exit(0));
else console.log(JSON.stringify(result));
