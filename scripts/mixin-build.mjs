#!/usr/bin/env node
// Generates the shipped alerting rules, recording rules, PrometheusRule and Grafana dashboard from the monitoring
// mixin in deploy/mixin/, with the jsonnet binary (Debian package `jsonnet`; nothing is downloaded):
//   node scripts/mixin-build.mjs        # rewrites them in the repository (npm run mixin)
//   node scripts/mixin-build.mjs DIR    # writes them under DIR instead (test/deploy/mixin.test.ts compares)
// The files are the fields of deploy/mixin/build.jsonnet. jsonnet evaluates, this script only serialises: Debian's
// jsonnet 0.18 takes about 6 s per file in std.manifestYamlDoc / std.manifestJsonEx (measured), its own JSON output
// takes 0.4 s for all of them, and the `yaml` package (a dependency already) keeps the rules' fields in the order
// people read them.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(process.argv[2] ?? root);

const r = spawnSync('jsonnet', [join(root, 'deploy/mixin/build.jsonnet')], { encoding: 'utf8', maxBuffer: 1 << 26 });
if (r.error) {
  const why = r.error.code ?? r.error.message;
  console.error(`mixin-build: cannot run jsonnet (${why}); install it: apt-get install jsonnet`);
  process.exit(1);
}
if (r.status !== 0) {
  console.error(`mixin-build: jsonnet failed:\n${r.stderr}`);
  process.exit(1);
}

// Fields first in this order (jsonnet sorts them alphabetically), the rest after them as they come.
const FIRST = [
  'apiVersion',
  'kind',
  'metadata',
  'spec',
  'name',
  'alert',
  'record',
  'expr',
  'for',
  'labels',
  'annotations',
  'summary',
  'description',
  'runbook_url',
];
const rank = (k) => (FIRST.includes(k) ? FIRST.indexOf(k) : FIRST.length);
function ordered(v) {
  if (Array.isArray(v)) return v.map(ordered);
  if (v === null || typeof v !== 'object') return v;
  const keys = Object.keys(v).sort((a, b) => rank(a) - rank(b));
  return Object.fromEntries(keys.map((k) => [k, ordered(v[k])]));
}

const GENERATED = '# Generated from deploy/mixin by `npm run mixin` (scripts/mixin-build.mjs); do not edit.\n';
const files = JSON.parse(r.stdout);
for (const [file, { header = '', content }] of Object.entries(files)) {
  const text = file.endsWith('.json')
    ? `${JSON.stringify(content, null, 2)}\n`
    : GENERATED + header.replace(/^(?=.)/gm, '# ') + stringify(ordered(content), { lineWidth: 0 });
  mkdirSync(dirname(join(out, file)), { recursive: true });
  writeFileSync(join(out, file), text);
  console.log(`mixin-build: wrote ${file}`);
}
