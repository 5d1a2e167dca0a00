// npm run bench:alternative: our exporter against what an operator would run without it, on the same simulated
// leader and the same 30 s interval: Prometheus + blackbox_exporter probing every node's /w/{id}/health through
// the leader (one target per node), versus Prometheus scraping cribl-exporter once. Debian's `prometheus` and
// `prometheus-blackbox-exporter` packages. Writes its section of BENCHMARKS.md (the block between the `KEPT
// alternative` markers, which `npm run bench` keeps; bench/lib/kept.mjs).
// A benchmark, not a test: nothing here asserts a time.
//
//   npm run bench:alternative                       2k and 10k nodes
//   npm run bench:alternative -- --sizes 2k         a subset
//   npm run bench:alternative -- --window 120       steady window in seconds (default 120, after a warm-up)
//   npm run bench:alternative -- --out -            print only (--out FILE: the section alone to FILE)
//   npm run bench:alternative -- --ours-only --exporter-env BENCH_DIST=DIR   experiments: our side only, printed
//                                                   (both windows), with the exporter's environment extended

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Children } from './lib/children.mjs';
import { keptBlock, spliceKept } from './lib/kept.mjs';
import { firstMetadataDoneS } from './lib/first-metadata.mjs';
import { imageSettings, onImageNode, runtimeNote } from './lib/image.mjs';
import { json } from './lib/http.mjs';
import { machineBusyMs, machineInfo, processCpuMs, processMemory } from './lib/machine.mjs';
import { parseSizes, sizeLabel } from './lib/stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');
const tmpRoot = join(repo, '.bench-tmp', 'alternative');
const INTERVAL_S = 30;
const image = imageSettings(repo);
// Every process on the Node.js major the image ships (bench/lib/image.mjs: BENCH_NODE=current to skip).
onImageNode(repo);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error(`[bench:alternative ${new Date().toISOString().slice(11, 19)}]`, ...a);

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    sizes: { type: 'string' },
    window: { type: 'string' },
    warmup: { type: 'string' },
    out: { type: 'string' },
    // Experiments: only our exporter's side (nothing written), and environment variables for it (e.g. BENCH_DIST).
    'ours-only': { type: 'boolean', default: false },
    'exporter-env': { type: 'string', multiple: true, default: [] },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (flags.help) {
  console.log(
    'Usage: npm run bench:alternative -- [--sizes 2k,10k] [--window S] [--warmup S] [--out FILE|-] [--ours-only] [--exporter-env K=V]...',
  );
  process.exit(0);
}
const sizes = parseSizes(flags.sizes ?? '2k,10k', '--sizes');
const windowS = Number(flags.window ?? 120);
const FIRST_METADATA_DONE_S = firstMetadataDoneS(INTERVAL_S);
const exporterEnv = Object.fromEntries(flags['exporter-env'].map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const warmupS = Number(flags.warmup ?? 75);
for (const bin of ['prometheus', 'prometheus-blackbox-exporter']) {
  if (spawnSync(bin, ['--version'], { stdio: 'ignore' }).status !== 0) {
    console.error(`bench:alternative: ${bin} is not installed (apt-get install prometheus prometheus-blackbox-exporter)`);
    process.exit(2);
  }
}

const children = new Children();
const spawned = new Set();
process.on('exit', () => {
  children.killAll();
  for (const p of spawned) p.kill('SIGKILL');
});
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => process.exit(130));

/** A free loopback port (bound and released at once). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts a non-Node binary; its stderr tail is kept for errors. */
function start(bin, args) {
  const proc = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const tail = [];
  proc.stderr.on('data', (b) => {
    tail.push(String(b));
    if (tail.length > 20) tail.shift();
  });
  spawned.add(proc);
  proc.once('exit', () => spawned.delete(proc));
  return { proc, tail };
}

async function stop(p) {
  if (p.proc.exitCode !== null || p.proc.signalCode !== null) return;
  const done = new Promise((r) => p.proc.once('exit', r));
  p.proc.kill('SIGTERM');
  const t = setTimeout(() => p.proc.kill('SIGKILL'), 10_000);
  await done;
  clearTimeout(t);
}

async function waitHttp(url, what, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > end) throw new Error(`${what} did not answer ${url} within ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

/** Value of a PromQL instant query (the first sample), or undefined. */
async function query(promUrl, q) {
  const r = await (await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`)).json();
  const v = r?.data?.result?.[0]?.value?.[1];
  return v === undefined ? undefined : Number(v);
}

/** CPU (cores) and memory of each pid over the window, and the leader's request rate. */
async function measure(pids, simAdmin) {
  const cpu0 = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, processCpuMs(pid)]));
  const busy0 = machineBusyMs();
  const stats0 = await json('GET', `${simAdmin}/stats`);
  const t0 = performance.now();
  const peak = Object.fromEntries(Object.keys(pids).map((k) => [k, 0]));
  const rssSamples = Object.fromEntries(Object.keys(pids).map((k) => [k, []]));
  while (performance.now() - t0 < windowS * 1000) {
    await sleep(5_000);
    for (const [k, pid] of Object.entries(pids)) {
      const m = processMemory(pid);
      if (m.rss !== undefined) rssSamples[k].push(m.rss);
      if (m.rss !== undefined && m.rss > peak[k]) peak[k] = m.rss;
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const stats1 = await json('GET', `${simAdmin}/stats`);
  const out = {};
  for (const [k, pid] of Object.entries(pids)) {
    const rss = rssSamples[k];
    out[k] = {
      cores: (processCpuMs(pid) - cpu0[k]) / 1000 / seconds,
      rssMB: rss.length ? rss.reduce((a, b) => a + b, 0) / rss.length / 1e6 : undefined,
      peakRssMB: peak[k] / 1e6,
    };
  }
  out.otherCores = (machineBusyMs() - busy0) / 1000 / seconds - Object.values(out).reduce((a, v) => a + (v.cores ?? 0), 0);
  out.leaderRps = (totalRequests(stats1) - totalRequests(stats0)) / seconds;
  out.seconds = seconds;
  return out;
}

function totalRequests(stats) {
  let n = 0;
  for (const byStatus of Object.values(stats?.requests ?? {})) for (const c of Object.values(byStatus)) n += c;
  return n;
}

async function nodeIds(adminUrl, n) {
  const ids = [];
  for (let offset = 0; ids.length < n; offset += 5000) {
    const page = await json('GET', `${adminUrl}/nodes?offset=${offset}&limit=5000`);
    if (!page.items.length) break;
    ids.push(...page.items.map((x) => x.id));
  }
  return ids;
}

async function prometheus(dir, scrapeConfig) {
  const port = await freePort();
  mkdirSync(dir, { recursive: true });
  const cfg = join(dir, 'prometheus.yml');
  writeFileSync(cfg, `global:\n  scrape_interval: ${INTERVAL_S}s\n  scrape_timeout: 10s\nscrape_configs:\n${scrapeConfig}`);
  const p = start('prometheus', [
    `--config.file=${cfg}`,
    `--storage.tsdb.path=${join(dir, 'tsdb')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitHttp(`${url}/-/ready`, 'prometheus');
  return { ...p, url };
}

async function runSize(n) {
  const label = sizeLabel(n);
  const dir = join(tmpRoot, `n${label}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`${label}: starting the simulator`);
  const { sim, baseUrl, token, adminUrl } = await children.simulator(`simulator ${label}`, n);
  const ids = await nodeIds(adminUrl, n);
  const result = { nodes: n, label };

  // --- our exporter + Prometheus scraping it
  log(`${label}: cribl-exporter + Prometheus, ${warmupS} s warm-up, ${windowS} s window`);
  const expPort = await freePort();
  const exp = children.fork(`exporter ${label}`, join(here, 'cli-child.mjs'), [
    '--web.listen-address',
    `127.0.0.1:${expPort}`,
    '--health.interval',
    `${INTERVAL_S}s`,
    '--log.level',
    'warn',
  ], {
    // as the image runs it (Dockerfile), like npm run bench
    execArgv: image.nodeFlags,
    env: { ...image.env, ...exporterEnv, CRIBL_LEADER_URL: baseUrl, CRIBL_TOKEN: token, PATH: process.env.PATH ?? '' },
  });
  const t0 = performance.now();
  await waitHttp(`http://127.0.0.1:${expPort}/readyz`, 'the exporter', 120_000);
  const promA = await prometheus(
    join(dir, 'ours'),
    `  - job_name: cribl-exporter\n    static_configs:\n      - targets: ['127.0.0.1:${expPort}']\n`,
  );
  await sleep(warmupS * 1000);
  const oursPids = { exporter: exp.proc.pid, prometheus: promA.proc.pid, simulator: sim.proc.pid };
  // The exporter spreads a new fleet's first metadata fetch over each node's health polls 2 to 5: the window after
  // the warm-up carries it (a fifth more leader requests at 10k than blackbox_exporter's); the next window is what
  // the exporter costs from then on. Runs before 2026-11-27 evening reported only the first.
  result.oursFirstRound = await measure(oursPids, adminUrl);
  const steadyAt = t0 + FIRST_METADATA_DONE_S * 1000;
  if (performance.now() < steadyAt) await sleep(steadyAt - performance.now());
  result.ours = await measure(oursPids, adminUrl);
  result.ours.series = await query(promA.url, 'scrape_samples_scraped{job="cribl-exporter"}');
  await stop(promA);
  await exp.stop();
  if (flags['ours-only']) {
    console.log(JSON.stringify({ nodes: n, firstRound: result.oursFirstRound.exporter, steady: result.ours.exporter }));
    await sim.stop();
    return result;
  }

  // --- blackbox_exporter + Prometheus with one target per node
  log(`${label}: blackbox_exporter + Prometheus (${ids.length} targets), ${warmupS} s warm-up, ${windowS} s window`);
  const bbPort = await freePort();
  const bbCfg = join(dir, 'blackbox.yml');
  writeFileSync(
    bbCfg,
    [
      'modules:',
      '  cribl_health:',
      '    prober: http',
      '    timeout: 10s',
      '    http:',
      '      valid_status_codes: [200, 420]',
      '      preferred_ip_protocol: ip4',
      '      headers:',
      `        Authorization: "Bearer ${token}"`,
      '',
    ].join('\n'),
  );
  const bb = start('prometheus-blackbox-exporter', [
    `--config.file=${bbCfg}`,
    `--web.listen-address=127.0.0.1:${bbPort}`,
    '--log.level=warn',
  ]);
  await waitHttp(`http://127.0.0.1:${bbPort}/-/healthy`, 'blackbox_exporter');
  const targets = join(dir, 'targets.json');
  writeFileSync(
    targets,
    JSON.stringify([{ targets: ids.map((id) => `${baseUrl}/w/${encodeURIComponent(id)}/health`) }]),
  );
  const promB = await prometheus(
    join(dir, 'blackbox'),
    [
      '  - job_name: cribl-health',
      '    metrics_path: /probe',
      '    params: {module: [cribl_health]}',
      `    file_sd_configs: [{files: ['${targets}']}]`,
      '    relabel_configs:',
      '      - {source_labels: [__address__], target_label: __param_target}',
      '      - {source_labels: [__param_target], target_label: instance}',
      `      - {target_label: __address__, replacement: '127.0.0.1:${bbPort}'}`,
      '',
    ].join('\n'),
  );
  await sleep(warmupS * 1000);
  result.blackbox = await measure({ blackbox: bb.proc.pid, prometheus: promB.proc.pid, simulator: sim.proc.pid }, adminUrl);
  result.blackbox.upTargets = await query(promB.url, 'count(probe_success{job="cribl-health"} == 1)');
  result.blackbox.targets = await query(promB.url, 'count(up{job="cribl-health"})');
  await stop(promB);
  await stop(bb);
  await sim.stop();
  return result;
}

/** First line of `bin --version` (stdout or stderr, whichever it uses). */
const versionLine = (bin) => {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`.split('\n')[0].trim();
};
const f1 = (x) => (x === undefined || Number.isNaN(x) ? 'n/a' : x.toFixed(3));
const mb = (x) => (x === undefined ? 'n/a' : `${Math.round(x)} MB`);
const ratio = (a, b) => (a && b ? `${(a / b).toFixed(2)}×` : 'n/a');

function render(results, machine, startedAt) {
  const lines = [
    '## Against the alternative: Prometheus + blackbox_exporter',
    '',
    `Generated by \`npm run bench:alternative\` (\`bench/alternative.mjs\`) on ${startedAt.slice(0, 10)}; ` +
      `${machine.cpuModel}, ${machine.cores} cores, Node.js ${machine.node}, ` +
      `${versionLine('prometheus')}, ` +
      `${versionLine('prometheus-blackbox-exporter')}.`,
    `Same simulated leader (\`simulate --nodes N --seed 1\`), same ${INTERVAL_S} s interval. Ours: the exporter with ` +
      `its defaults and Prometheus scraping it. Theirs: blackbox_exporter probing each node's \`/w/{id}/health\` ` +
      `through the leader (one Prometheus target per node, bearer token, 200 and 420 valid). ${windowS} s windows ` +
      `after a ${warmupS} s warm-up; CPU from /proc, RSS the mean of 5 s samples. Ours twice: during the first ` +
      `metadata round, and steady, from ${FIRST_METADATA_DONE_S} s after its start; the ratios are the steady state's.`,
    '',
    '| nodes | setup | exporter CPU (cores) | exporter RSS | Prometheus CPU | Prometheus RSS | both: CPU / RSS | leader req/s |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const o = r.ours;
    const b = r.blackbox;
    lines.push(
      `| ${r.label} | cribl-exporter | ${f1(o.exporter.cores)} | ${mb(o.exporter.rssMB)} | ${f1(o.prometheus.cores)} | ${mb(o.prometheus.rssMB)} | ${f1(o.exporter.cores + o.prometheus.cores)} / ${mb(o.exporter.rssMB + o.prometheus.rssMB)} | ${o.leaderRps.toFixed(0)} |`,
      ...(r.oursFirstRound
        ? [
            `| ${r.label} | cribl-exporter, first metadata round | ${f1(r.oursFirstRound.exporter.cores)} | ${mb(r.oursFirstRound.exporter.rssMB)} | ${f1(r.oursFirstRound.prometheus.cores)} | ${mb(r.oursFirstRound.prometheus.rssMB)} | ${f1(r.oursFirstRound.exporter.cores + r.oursFirstRound.prometheus.cores)} / ${mb(r.oursFirstRound.exporter.rssMB + r.oursFirstRound.prometheus.rssMB)} | ${r.oursFirstRound.leaderRps.toFixed(0)} |`,
          ]
        : []),
      `| ${r.label} | blackbox_exporter | ${f1(b.blackbox.cores)} | ${mb(b.blackbox.rssMB)} | ${f1(b.prometheus.cores)} | ${mb(b.prometheus.rssMB)} | ${f1(b.blackbox.cores + b.prometheus.cores)} / ${mb(b.blackbox.rssMB + b.prometheus.rssMB)} | ${b.leaderRps.toFixed(0)} |`,
    );
  }
  lines.push(
    '',
    '| nodes | exporter CPU / blackbox CPU (target ≤ 0.2) | with Prometheus: memory ours / theirs (target < 1) | CPU ours / theirs | exporter CPU / blackbox CPU, first metadata round |',
    '|---|---|---|---|---|',
  );
  for (const r of results) {
    const o = r.ours;
    const b = r.blackbox;
    lines.push(
      `| ${r.label} | ${ratio(o.exporter.cores, b.blackbox.cores)} | ${ratio(o.exporter.rssMB + o.prometheus.rssMB, b.blackbox.rssMB + b.prometheus.rssMB)} | ${ratio(o.exporter.cores + o.prometheus.cores, b.blackbox.cores + b.prometheus.cores)} | ${r.oursFirstRound ? ratio(r.oursFirstRound.exporter.cores, b.blackbox.cores) : 'n/a'} |`,
    );
  }
  lines.push('');
  for (const r of results) {
    lines.push(
      `${r.label}: blackbox probes up ${r.blackbox.upTargets ?? 'n/a'} of ${r.blackbox.targets ?? 'n/a'} targets; ` +
        `samples per scrape of our exporter ${r.ours.series ?? 'n/a'}; other processes on the machine ` +
        `${f1(r.ours.otherCores)} / ${f1(r.blackbox.otherCores)} cores busy during the two windows.`,
    );
  }
  lines.push('');
  return lines.join('\n');
}

const startedAt = new Date().toISOString();
const machine = { ...machineInfo(), node: runtimeNote(repo) };
mkdirSync(tmpRoot, { recursive: true });
const results = [];
for (const n of sizes) results.push(await runSize(n));
await children.stopAll();
const section = render(results, machine, startedAt);
writeFileSync(join(tmpRoot, 'results.json'), JSON.stringify({ startedAt, machine, results }, null, 2));
if (flags.out === '-') {
  console.log(section);
} else if (flags.out) {
  writeFileSync(flags.out, section);
  log(`wrote ${flags.out}`);
} else {
  const path = join(repo, 'BENCHMARKS.md');
  writeFileSync(path, spliceKept(readFileSync(path, 'utf8'), keptBlock('alternative', section)));
  log(`wrote its section of ${path}`);
}
