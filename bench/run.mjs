// npm run bench: the exporter against a simulated leader at 1k, 2k, 10k and 50k nodes, each in its own
// process, and the figures of BENCHMARKS.md and bench/sizing.json. A benchmark, not a test: nothing here asserts a time.
// Sizes from 100k on (asked for with --sizes, e.g. --sizes 100k,250k) are Edge-heavy (bench/scale.mjs: the
// simulator's examples/scenarios/edge-scale.yaml, the exporter on its default flags).
//
//   npm run bench                                   everything; writes BENCHMARKS.md and bench/sizing.json
//   npm run bench -- --sizes 1k,10k                 a subset of sizes (also BENCH_SIZES=1k,10k)
//   npm run bench -- --only sizes,fair,rate-limit,leader-cost   only these parts (default: all)
//   npm run bench -- --out -                        print only (also --out other.md: writes other.md and
//                                                   other.sizing.json); a partial run prints unless --out is given
//   npm run bench -- --concurrency 16               leader concurrency of the exporter and of autocannon
//   npm run bench -- --profile                      also write the exporter's CPU profiles (.bench-tmp/)
//   npm run bench -- --json                         also print the raw results as JSON
//   npm run bench -- --skip-fair                    without the 20k default-flags run and the rate-limit run
//   npm run bench -- --skip-leader-cost             without the leader-cost run
//   npm run bench -- --skip-explain                 without the profiled runs that say where the CPU goes
//   npm run bench -- "--leader-cost-sim-args=--scenario FILE"   the simulator's flags of the
//                                                   leader-cost run (default: --scenario bench/leader-cost.yaml)
//   npm run bench -- --exporter-env K=V             extra environment of the exporter (experiments, e.g.
//                                                   MALLOC_ARENA_MAX=2); repeatable, recorded in the report
//   npm run bench -- --from-json .bench-tmp/results.json   re-render the report of an earlier run
//
// Per size: simulator (dist/cli.js simulate) → autocannon on its /w/{id}/health → exporter (bench/exporter.mjs,
// i.e. dist/commands.js with a bench-only IPC channel) → time to full coverage and its request rate →
// the first metadata round's window (CPU, requests) → steady window of two health intervals once every node's
// first metadata fetch is done (leader cost, CPU, event loop, builds, memory) → forced body rebuilds while the
// leader holds every answer (so that only the rebuild runs): the usual one, then full renders → 2 concurrent scrapers
// against the exporter and against a bare node:http server with the same bytes → the status page (GET /) →
// prom-client's registry.metrics() over the same series → the exporter once more under V8's CPU profiler, for where
// its CPU goes (the profiler costs CPU of its own, so this run's figures are not the ones judged). Then once per run:
// a bare node's resident memory (bench/bare-node.mjs), bench/fair.mjs (20,000 nodes with the default budget flags;
// a leader-imposed rate limit, issue 40) and bench/leader-cost.mjs (requests per discovery by endpoint, issue 39).
// Only 127.0.0.1; every child is killed on exit.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Agent } from 'undici';
import { runFair } from './fair.mjs';
import { runLeaderCost } from './leader-cost.mjs';
import { EDGE_HEAVY_FROM, runScaleSize } from './scale.mjs';
import { keptSections } from './lib/kept.mjs';
import { sizingOf } from './lib/sizing.mjs';
import { firstMetadataDoneS } from './lib/first-metadata.mjs';
import { STEADY_GAP_TIMER_MS } from './lib/gaps.mjs';
import { imageSettings, onImageNode, runtimeNote } from './lib/image.mjs';
import { Children, jsonLine } from './lib/children.mjs';
import {
  closeHttp,
  fetchMetricsText,
  json,
  periodicScrapes,
  scrapeBudgetMs,
  scrapeRounds,
  timedGet,
} from './lib/http.mjs';
import { machineBusyMs, machineInfo, processCpuMs, processMemory, threadKindCpuMs } from './lib/machine.mjs';
import { monotonicUs, timeByKind } from './lib/cpu-profile.mjs';
import { countHealthUp, countSeries, sampleValue } from './lib/metrics-text.mjs';
import { renderReport, STEADY_TARGET } from './lib/report.mjs';
import { parseSizes, sizeLabel, summarize } from './lib/stats.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');
const tmpRoot = join(repo, '.bench-tmp');

const INTERVALS = { healthS: 30, discoveryS: 60, metadataS: 600 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a);

// ---------------------------------------------------------------- options

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    sizes: { type: 'string' },
    concurrency: { type: 'string' },
    out: { type: 'string' },
    profile: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'from-json': { type: 'string' },
    'exporter-env': { type: 'string', multiple: true },
    'skip-fair': { type: 'boolean', default: false },
    'skip-explain': { type: 'boolean', default: false },
    'skip-leader-cost': { type: 'boolean', default: false },
    'leader-cost-sim-args': { type: 'string' },
    only: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (flags.help) {
  console.log(
    'Usage: npm run bench -- [--sizes 1k,2k,10k,50k (100k and up: Edge-heavy, bench/scale.mjs)] [--only sizes,fair,rate-limit,leader-cost] [--concurrency N] [--out FILE|-] [--profile] [--json] [--exporter-env K=V]... [--skip-fair] [--skip-leader-cost] [--skip-explain] [--leader-cost-sim-args ARGS] [--from-json FILE]',
  );
  process.exit(0);
}
const DEFAULT_OUT = join(repo, 'BENCHMARKS.md');
const PARTS = ['sizes', 'fair', 'rate-limit', 'leader-cost'];
/** Where the report goes: `--out` (`-`: nowhere), else BENCHMARKS.md when the run is complete, else stdout only. */
const outFileFor = (complete) =>
  flags.out === '-' ? undefined : flags.out ? flags.out : complete ? DEFAULT_OUT : undefined;
/** bench/sizing.json beside BENCHMARKS.md; beside another report, its name with .sizing.json. */
const sizingFileFor = (out) => (out === DEFAULT_OUT ? join(here, 'sizing.json') : out.replace(/(\.md)?$/, '.sizing.json'));
/** The kept sections (Mechanisms, the comparison) of the report being rewritten, or of BENCHMARKS.md. */
const keptOf = (out) => {
  for (const file of [out, DEFAULT_OUT]) {
    try {
      if (file) return keptSections(readFileSync(file, 'utf8'));
    } catch {
      // Not there yet: the next one.
    }
  }
  return {};
};
/** Writes the report and its sizing JSON, or prints the report. */
const writeReport = (run, out) => {
  const markdown = renderReport(run, { kept: keptOf(out) });
  if (!out) {
    console.log(markdown);
    return;
  }
  writeFileSync(out, markdown);
  const sizingFile = sizingFileFor(out);
  writeFileSync(sizingFile, `${JSON.stringify(sizingOf(run), null, 2)}\n`);
  log(`wrote ${out} (${Buffer.byteLength(markdown)} bytes) and ${sizingFile}`);
};
// Re-renders the report of an earlier run (.bench-tmp/results.json) without running anything.
if (flags['from-json']) {
  writeReport(JSON.parse(readFileSync(flags['from-json'], 'utf8')), outFileFor(true));
  process.exit(0);
}
// Every process of the run on the Node.js major the image ships (bench/lib/image.mjs: BENCH_NODE=current to skip).
onImageNode(repo);
let sizes;
let parts;
let concurrency;
// The sizes up to 50k measure every node's families, so each product's node detail is pinned to full (through the
// environment, which builds older than that setting ignore): at auto a product of over 25,000 nodes is at basic,
// whose rotating health polls cannot cover the fleet within the coverage deadline. --exporter-env overrides it.
const PER_NODE_ENV = { CRIBL_EDGE_NODE_DETAIL: 'full', CRIBL_STREAM_NODE_DETAIL: 'full' };
const exporterEnv = {};
// The image's allocator and V8 settings (Dockerfile); --exporter-env overrides the variables.
const { env: imageEnv, nodeFlags: imageNodeFlags } = imageSettings(repo);
try {
  for (const kv of flags['exporter-env'] ?? []) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(kv);
    if (!m) throw new Error(`--exporter-env: "${kv}" is not KEY=VALUE`);
    exporterEnv[m[1]] = m[2];
  }
  sizes = parseSizes(flags.sizes ?? process.env.BENCH_SIZES ?? '1k,2k,10k,50k', flags.sizes ? '--sizes' : 'BENCH_SIZES');
  parts = new Set(flags.only ? flags.only.split(',').map((x) => x.trim()) : PARTS);
  for (const p of parts) if (!PARTS.includes(p)) throw new Error(`--only: "${p}" is none of ${PARTS.join(', ')}`);
  if (flags['skip-fair']) {
    parts.delete('fair');
    parts.delete('rate-limit');
  }
  if (flags['skip-leader-cost']) parts.delete('leader-cost');
  if (!parts.has('sizes')) sizes = [];
  concurrency = Number(flags.concurrency ?? process.env.BENCH_CONCURRENCY ?? 16);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
    throw new Error(`--concurrency: "${flags.concurrency}" is not a whole number between 1 and 256`);
} catch (e) {
  console.error(`bench: ${e.message}`);
  process.exit(2);
}

// ---------------------------------------------------------------- cleanup: no child outlives the benchmark

const children = new Children();
process.on('exit', () => children.killAll());
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    log(`${sig}: stopping`);
    children.killAll();
    process.exit(130);
  });
}

// ---------------------------------------------------------------- one size

function routeCounts(stats) {
  const sum = (route, ok = false) =>
    Object.entries(stats.requests?.[route] ?? {}).reduce((n, [status, c]) => n + (!ok || status === '200' ? c : 0), 0);
  const answered = Object.values(stats.requests ?? {}).reduce(
    (n, by) => n + Object.values(by).reduce((a, b) => a + b, 0),
    0,
  );
  return {
    total: stats.totalRequests,
    answered,
    listing: sum('/products/{product}/workers') + sum('/master/workers'),
    groups: sum('/products/{product}/groups') + sum('/master/groups'),
    // Per discovery besides the listing (issue 12): the leader's own /health, one commit history per group, the
    // git settings.
    leaderHealth: sum('/health'),
    versions: sum('/m/{group}/version'),
    gitSettings: sum('/system/settings/git-settings'),
    health: sum('/w/{nodeId}/health'),
    health200: sum('/w/{nodeId}/health', true),
    metadata: sum('/w/{nodeId}/edge/metadata'),
    metadata200: sum('/w/{nodeId}/edge/metadata', true),
    nonOk: Object.values(stats.requests ?? {}).reduce(
      (n, by) => n + Object.entries(by).reduce((a, [s, c]) => a + (s === '200' ? 0 : c), 0),
      0,
    ),
    retryAfterViolations: stats.retryAfterViolations,
  };
}

async function runAutocannon({ origin, token, ids, connections, durationS }) {
  let i = 0;
  const result = await autocannon({
    url: origin,
    connections,
    duration: durationS,
    headers: { authorization: `Bearer ${token}` },
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => ({ ...req, path: `/api/v1/w/${encodeURIComponent(ids[i++ % ids.length])}/health` }),
      },
    ],
  });
  return {
    rps: result['2xx'] / result.duration,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    durationS: result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
  };
}


/** Requests of the status page measured per size (one more before them, not counted). */
const STATUS_PAGE_REQUESTS = 20;

/**
 * GET / (the status page) one request at a time: each one's full response time, and the exporter's event-loop
 * active time between two IPC reads around it (the page's render, plus whatever else the loop ran meanwhile).
 */
async function statusPageTimes(exp, url, dispatcher) {
  const total = [];
  const mainMs = [];
  let bytes;
  for (let i = 0; i <= STATUS_PAGE_REQUESTS; i++) {
    const s0 = await exp.call('stats');
    const got = await timedGet(url, { dispatcher, encoding: 'identity', accept: 'text/html' });
    const s1 = await exp.call('stats');
    if (i === 0) continue;
    total.push(got.totalMs);
    mainMs.push(s1.eluActiveMs - s0.eluActiveMs);
    bytes = got.bytes;
  }
  return { total: summarize(total), mainMs: summarize(mainMs), bytes };
}

/** The slowest scrapes of the profiled run the report takes apart (of 50: about the p99's and the two above it). */
const SLOWEST_SCRAPES = 3;

/**
 * The exporter once more, under V8's CPU profiler (`--cpu-prof`): where its CPU goes in the start-up burst (first node
 * poll → every node's first health answer), at the steady target's size in a steady window like the main run's, and
 * in rounds of gzip scrapes after the first metadata round (the slowest scrapes: what the main thread did meanwhile).
 * Per window: leader requests answered, CPU by thread kind from /proc (bench/lib/machine.mjs: the main thread, V8's
 * platform threads, libuv's pool, the others) and the main thread's self time by kind of code
 * (bench/lib/cpu-profile.mjs), the windows cut on the profile's own clock. The profiler costs CPU of its own (about a
 * fifth more): the main run's figures are the ones judged, these say what they are made of.
 */

async function explainCpu(n, { adminUrl, baseUrl, token, args, dir }) {
  const profDir = join(dir, 'explain');
  rmSync(profDir, { recursive: true, force: true });
  mkdirSync(profDir, { recursive: true });
  await json('POST', `${adminUrl}/stats/reset`);
  const exp = children.fork(`exporter ${sizeLabel(n)}, profiled`, join(here, 'exporter.mjs'), args, {
    execArgv: [...imageNodeFlags, '--cpu-prof', '--cpu-prof-dir', profDir],
    env: { ...imageEnv, ...PER_NODE_ENV, ...exporterEnv, CRIBL_LEADER_URL: baseUrl, CRIBL_TOKEN: token },
  });
  const pid = exp.proc.pid;
  const t0 = performance.now();
  const metricsUrl = (await exp.waitForLine(jsonLine('cribl-exporter listening'), 60_000, 'listening line')).match.url;
  const mark = async () => {
    const counts = routeCounts(await json('GET', `${adminUrl}/stats`));
    return { us: monotonicUs(), threads: threadKindCpuMs(pid), counts };
  };
  let first;
  let covered;
  const deadline = Math.max(60_000, n * 4);
  for (;;) {
    const m = await mark();
    if (!first && m.counts.health + m.counts.metadata > 0) first = m;
    if (first && m.counts.health200 >= n) {
      covered = m;
      break;
    }
    if (performance.now() - t0 > deadline) break;
    await sleep(100);
  }
  // As in the main run: gzip scrapes every 15 s (builds follow them), until the first metadata round's end.
  const agent = new Agent({ connections: 1 });
  const scrapingUntil = periodicScrapes(metricsUrl, agent);
  let steady;
  let scrapes;
  if (covered) {
    await scrapingUntil(t0 + firstMetadataDoneS(INTERVALS.healthS) * 1000);
    if (n === STEADY_TARGET.nodes) {
      const a = await mark();
      await scrapingUntil(performance.now() + 2 * INTERVALS.healthS * 1000);
      steady = [a, await mark()];
    }
    // Then rounds of gzip scrapes as the main run's, each one's start on the profile's clock: what the main thread
    // did while the slowest waited for their first byte.
    const got = await scrapeRounds([{ name: 'exporter', url: metricsUrl }], {
      encoding: 'gzip',
      budgetMs: scrapeBudgetMs(n),
    });
    const { ttfbMs, startUs } = got.get('exporter');
    scrapes = ttfbMs.map((ms, i) => ({ ttfbMs: ms, startUs: startUs[i] }));
  }
  await agent.close();
  // SIGTERM: the exporter exits on its own, and node writes the profiles as it does.
  await exp.stop(60_000);
  const file = readdirSync(profDir).find((f) => f.includes(`.${pid}.0.`) && f.endsWith('.cpuprofile'));
  const profile = file ? JSON.parse(readFileSync(join(profDir, file), 'utf8')) : undefined;
  const window = (a, b) =>
    a && b
      ? {
          wallMs: (b.us - a.us) / 1000,
          requests: b.counts.answered - a.counts.answered,
          threadsMs: Object.fromEntries(Object.entries(b.threads).map(([k, v]) => [k, v - (a.threads[k] ?? 0)])),
          main: profile ? timeByKind(profile, a.us, b.us) : undefined,
        }
      : undefined;
  // The slowest scrapes: the main thread's time while each waited for its first byte, by kind.
  const slowest = (scrapes ?? [])
    .toSorted((x, y) => y.ttfbMs - x.ttfbMs)
    .slice(0, SLOWEST_SCRAPES)
    .map((x) => ({ ttfbMs: x.ttfbMs, main: profile ? timeByKind(profile, x.startUs, x.startUs + x.ttfbMs * 1000) : undefined }));
  return {
    burst: window(first, covered),
    steady: steady && window(...steady),
    scrapes: scrapes && { ttfb: summarize(scrapes.map((x) => x.ttfbMs)), slowest },
    profile: file && join(profDir, file),
  };
}

async function runSize(n) {
  const label = sizeLabel(n);
  const dir = join(tmpRoot, `n${label}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const r = { nodes: n, label, concurrency, intervals: INTERVALS };
  const scrapeAgent = new Agent({ connections: 1 });

  // --- simulator
  log(`${label}: starting the simulator`);
  const { sim, baseUrl, token, adminUrl } = await children.simulator(`simulator ${label}`, n);
  const origin = new URL(baseUrl).origin;
  const ids = (await json('GET', `${adminUrl}/nodes?limit=${Math.min(n, 5000)}`)).items.map((x) => x.id);

  // --- autocannon on the same route, same concurrency, before the exporter exists
  log(`${label}: autocannon on /w/{id}/health, ${concurrency} connections, 5 s`);
  const simCpuA = processCpuMs(sim.proc.pid);
  const ac = await runAutocannon({ origin, token, ids, connections: concurrency, durationS: 5 });
  ac.simCpuShare = (processCpuMs(sim.proc.pid) - simCpuA) / (ac.durationS * 1000);
  r.autocannon = ac;

  // --- undici's request() alone on the same route, same concurrency: the floor of a Node.js client
  log(`${label}: undici request() alone on /w/{id}/health, ${concurrency} in flight, 5 s`);
  const idsFile = join(dir, 'ids.json');
  writeFileSync(idsFile, JSON.stringify(ids));
  const uf = children.fork(`undici floor ${label}`, join(here, 'undici-floor.mjs'), [
    origin,
    token,
    idsFile,
    String(concurrency),
    '5',
  ]);
  r.undiciFloor = (await uf.waitForMessage((m) => m?.ready, 60_000, 'result')).result;
  await uf.done;
  // --- the same, warm and paced at the exporter's nominal steady rate (health and metadata of every node per
  // interval): what undici alone costs per request at that rate, for the steady window's CPU per request. At a
  // low rate a request costs a client more (the leader idles between requests and is woken by each; timers).
  const steadyRps = n / INTERVALS.healthS + n / INTERVALS.metadataS;
  log(`${label}: undici request() alone paced at ${Math.round(steadyRps)} req/s, 3 s warm-up, 10 s`);
  const pf = children.fork(`undici paced ${label}`, join(here, 'undici-floor.mjs'), [
    origin,
    token,
    idsFile,
    String(concurrency),
    '10',
    String(steadyRps),
    '3',
  ]);
  r.undiciPaced = (await pf.waitForMessage((m) => m?.ready, 60_000, 'result')).result;
  await pf.done;
  await json('POST', `${adminUrl}/stats/reset`);

  // --- exporter
  const execArgv = [...imageNodeFlags, ...(flags.profile ? ['--cpu-prof', '--cpu-prof-dir', join(dir, 'profiles')] : [])];
  const args = [
    '--web.listen-address',
    '127.0.0.1:0',
    '--leader.max-rps',
    '1000000',
    '--leader.max-concurrency',
    String(concurrency),
    '--health.interval',
    `${INTERVALS.healthS}s`,
    '--discovery.interval',
    `${INTERVALS.discoveryS}s`,
    '--metadata.interval',
    `${INTERVALS.metadataS}s`,
    '--log.level',
    'info',
  ];
  r.exporterArgs = args;
  log(`${label}: starting the exporter`);
  const busy0 = machineBusyMs();
  const simCpu0 = processCpuMs(sim.proc.pid);
  const t0 = performance.now();
  const exp = children.fork(`exporter ${label}`, join(here, 'exporter.mjs'), args, {
    execArgv,
    env: { ...imageEnv, ...PER_NODE_ENV, ...exporterEnv, CRIBL_LEADER_URL: baseUrl, CRIBL_TOKEN: token },
  });
  const firstDiscovery = exp
    .waitForLine(jsonLine('first discovery complete'), 600_000, 'first discovery')
    .then(async (d) => {
      r.discovery = {
        atMs: d.at - t0,
        requests: d.match.requests,
        counts: routeCounts(await json('GET', `${adminUrl}/stats`)),
        // Groups and fleets the simulated leader lists: what the version requests are per.
        listedGroups: Object.values(await json('GET', `${adminUrl}/groups`)).flat().length,
      };
    });
  firstDiscovery.catch(() => undefined);
  const listening = await exp.waitForLine(jsonLine('cribl-exporter listening'), 60_000, 'listening line');
  const metricsUrl = listening.match.url;
  r.listeningMs = listening.at - t0;

  // --- coverage: every node's first health answer (simulator count), then visible in /metrics
  const deadline = Math.max(60_000, n * 4);
  log(`${label}: waiting for coverage (at most ${Math.round(deadline / 1000)} s)`);
  const samples = [];
  let firstPoll;
  let covered;
  let visible;
  let metadataDone;
  let lastVisibleCheck = 0;
  for (;;) {
    const at = performance.now() - t0;
    const c = routeCounts(await json('GET', `${adminUrl}/stats`));
    samples.push({ at, ...c });
    // The exporter's CPU at the first node poll: CPU per leader request counts the burst from there (start-up, module
    // loading and the first discovery are not per request; at 1k they were most of the burst's CPU).
    if (!firstPoll && c.health + c.metadata > 0) firstPoll = { at, ...c, expStats: await exp.call('stats') };
    if (!covered && c.health200 >= n)
      covered = {
        at,
        ...c,
        expStats: await exp.call('stats'),
        simCpuMs: processCpuMs(sim.proc.pid) - simCpu0,
        busyMs: machineBusyMs() - busy0,
      };
    if (!metadataDone && c.metadata200 >= n) metadataDone = { at, ...c };
    if (covered && !visible && at - lastVisibleCheck > (n >= 20_000 ? 3000 : 1000)) {
      lastVisibleCheck = at;
      const text = await fetchMetricsText(metricsUrl, scrapeAgent);
      const up = countHealthUp(text);
      if (up >= n) visible = { at: performance.now() - t0, up };
    }
    // Metadata is not waited for: the poller spreads a new fleet's first metadata fetch over health cycles 2–5.
    if (covered && visible) break;
    if (at > deadline) break;
    await sleep(200);
  }
  await firstDiscovery.catch((e) => log(`${label}: ${e.message}`));
  r.coverage = {
    deadlineMs: deadline,
    firstPollMs: firstPoll?.at,
    answeredMs: covered?.at,
    visibleMs: visible?.at,
    metadataDoneMs: metadataDone?.at,
    healthAnsweredAtDeadline: samples.at(-1)?.health200,
    // Leader requests per second during the burst (first node poll → every node answered).
    rate:
      covered && firstPoll ? (covered.answered - firstPoll.answered) / ((covered.at - firstPoll.at) / 1000) : undefined,
    healthRate:
      covered && firstPoll ? (covered.health - firstPoll.health) / ((covered.at - firstPoll.at) / 1000) : undefined,
    exporterCpuShare: covered ? (covered.expStats.cpuUserMs + covered.expStats.cpuSystemMs) / covered.at : undefined,
    // Exporter CPU (all threads) per leader request answered between the first node poll and coverage.
    cpuMsPerRequest:
      covered && firstPoll && covered.answered > firstPoll.answered
        ? (covered.expStats.cpuUserMs +
            covered.expStats.cpuSystemMs -
            firstPoll.expStats.cpuUserMs -
            firstPoll.expStats.cpuSystemMs) /
          (covered.answered - firstPoll.answered)
        : undefined,
    exporterEluShare: covered
      ? covered.expStats.eluActiveMs / (covered.expStats.eluActiveMs + covered.expStats.eluIdleMs)
      : undefined,
    simCpuShare: covered ? covered.simCpuMs / covered.at : undefined,
    // Busy CPU of the whole machine (all cores, every process) over the same time, in cores.
    machineBusyCores: covered ? covered.busyMs / covered.at : undefined,
    nonOk: samples.at(-1)?.nonOk,
  };
  if (!covered || !visible)
    log(`${label}: coverage not reached in time (answered ${samples.at(-1)?.health200 ?? 0} of ${n})`);

  // --- the first metadata round: after one health interval to settle, two health intervals with Prometheus-like
  // gzip scrapes every 15 s (the window that runs before 2026-11-27 evening called steady). A new fleet's first
  // metadata fetch is spread over each node's health polls 2 to 5 (src/polling/poller.ts, FIRST_METADATA_SPREAD), so
  // this window carries a quarter of the fleet's metadata per health interval on top of its health polls.
  const settleMs = INTERVALS.healthS * 1000;
  const windowMs = 2 * INTERVALS.healthS * 1000;
  let selfText = '';
  /** Sleeps until `until` (performance.now() time), scraping gzip every 15 s meanwhile. */
  const scrapingUntil = periodicScrapes(metricsUrl, scrapeAgent, {
    onText: (text) => {
      selfText = text;
    },
  });
  log(`${label}: settling (${settleMs / 1000} s), then the first metadata round's window (${windowMs / 1000} s)`);
  await scrapingUntil(performance.now() + settleMs);
  {
    const c0 = routeCounts(await json('GET', `${adminUrl}/stats`));
    const s0 = await exp.call('stats');
    const w0 = performance.now();
    await scrapingUntil(w0 + windowMs);
    const wallMs = performance.now() - w0;
    const s1 = await exp.call('stats');
    const c1 = routeCounts(await json('GET', `${adminUrl}/stats`));
    r.firstMetadataRound = {
      wallMs,
      startS: (w0 - t0) / 1000,
      healthRequests: c1.health - c0.health,
      metadataRequests: c1.metadata - c0.metadata,
      answered: c1.answered - c0.answered,
      exporterCpuCores: (s1.cpuUserMs + s1.cpuSystemMs - s0.cpuUserMs - s0.cpuSystemMs) / wallMs,
    };
  }
  // --- steady window: once every node's first metadata fetch is done (bench/lib/first-metadata.mjs), two health
  // intervals (one discovery interval), scrapes every 15 s throughout. This is what the exporter costs from then on,
  // until the metadata schedule (10 min).
  const steadyFrom = t0 + firstMetadataDoneS(INTERVALS.healthS) * 1000;
  log(`${label}: until every first metadata fetch is done (${Math.round((steadyFrom - t0) / 1000)} s from the start), then the steady window (${windowMs / 1000} s)`);
  await scrapingUntil(steadyFrom);
  r.buildsBeforeSteady = await exp.call('builds');
  // The steady window's gap timer (bench/lib/gaps.mjs: why it is what it is); its gaps read up to that much long.
  await exp.call('gapTimer', { intervalMs: STEADY_GAP_TIMER_MS });
  // Counters run on from the exporter's start (cumulative metadata per node), the window takes differences.
  const c0 = routeCounts(await json('GET', `${adminUrl}/stats`));
  const s0 = await exp.call('stats', { resetLoop: true, resetPeak: true });
  const simCpuS0 = processCpuMs(sim.proc.pid);
  const busyS0 = machineBusyMs();
  const benchCpuS0 = process.cpuUsage();
  const w0 = performance.now();
  const healthSeries = [];
  // RSS every 5 s through the window: the steady figure is their mean (one sample at the end moved by up to 16 MB at 2k
  // from run to run, with the moment of the last build and GC).
  const rssSamples = [processMemory(exp.proc.pid).rss];
  while (performance.now() - w0 < windowMs) {
    await scrapingUntil(Math.min(performance.now() + 5000, w0 + windowMs));
    rssSamples.push(processMemory(exp.proc.pid).rss);
    healthSeries.push([
      Math.round(performance.now() - w0),
      routeCounts(await json('GET', `${adminUrl}/stats`)).health - c0.health,
    ]);
  }
  const wallMs = performance.now() - w0;
  const s1 = await exp.call('stats', { resetLoop: true });
  await exp.call('gapTimer', { intervalMs: 1 });
  const steadyBuilds = await exp.call('builds');
  const c1 = routeCounts(await json('GET', `${adminUrl}/stats`));
  const counts = Object.fromEntries(Object.entries(c1).map(([k, v]) => [k, v - (c0[k] ?? 0)]));
  const benchCpu = process.cpuUsage(benchCpuS0);
  const starts = steadyBuilds.map((b) => b.startMs);
  r.steady = {
    wallMs,
    counts,
    healthPerNodePerInterval: counts.health / n / (wallMs / (INTERVALS.healthS * 1000)),
    metadataRequests: counts.metadata,
    // Every metadata request since the exporter started, per node: at most 1 before the metadata interval.
    metadataPerNodeSinceStart: c1.metadata / n,
    secondsSinceStart: (performance.now() - t0) / 1000,
    listingRequests: counts.listing + counts.groups,
    exporterCpuCores: (s1.cpuUserMs + s1.cpuSystemMs - s0.cpuUserMs - s0.cpuSystemMs) / wallMs,
    exporterElu: (s1.eluActiveMs - s0.eluActiveMs) / (s1.eluActiveMs - s0.eluActiveMs + s1.eluIdleMs - s0.eluIdleMs),
    simCpuCores: (processCpuMs(sim.proc.pid) - simCpuS0) / wallMs,
    benchCpuCores: (benchCpu.user + benchCpu.system) / 1000 / wallMs,
    machineBusyCores: (machineBusyMs() - busyS0) / wallMs,
    loopMaxGapMs: s1.loop.maxGapMs,
    gapTimerMs: STEADY_GAP_TIMER_MS,
    // Mean of the window's samples; the last of them and their range beside it.
    rss: rssSamples.reduce((a, b) => a + b, 0) / rssSamples.length,
    rssEnd: s1.rss,
    rssMin: Math.min(...rssSamples),
    rssMax: Math.max(...rssSamples),
    rssSampleCount: rssSamples.length,
    peakRss: s1.peakRss,
    heapUsed: s1.heapUsed,
    heapTotal: s1.heapTotal,
    external: s1.external,
    arrayBuffers: s1.arrayBuffers,
    builds: steadyBuilds,
    healthSeries,
    meanBuildIntervalMs: starts.length > 1 ? (starts.at(-1) - starts[0]) / (starts.length - 1) : undefined,
    healthCycleSeconds: sampleValue(selfText, 'cribl_exporter_health_cycle_duration_seconds'),
    healthCycleOverrun: sampleValue(selfText, 'cribl_exporter_health_cycle_overrun'),
    cachedBodyBytes: sampleValue(selfText, 'cribl_exporter_body_bytes', { encoding: 'identity' }),
    cachedBodyGzipBytes: sampleValue(selfText, 'cribl_exporter_body_bytes', { encoding: 'gzip' }),
  };
  r.lifetimePeakRss = s0.peakRss;
  // Resident memory by mapping at the window's end (the node binary's pages, V8's heap, malloc's): what RSS is made of.
  r.steady.mappings = (await exp.call('heap', {})).mappings;

  // --- forced rebuilds while the leader holds every answer for 8 s: only the build runs. First the usual build (it
  // takes every run of nodes from the last build, rendering only the volatile families), then, in a second quiet
  // window, full renders (`fresh`: nothing taken: the first body, or a change to every node)
  const quietRebuilds = async (fresh) => {
    await json('PATCH', `${adminUrl}/faults`, { latency: { '*': { fixed: '8s' } } });
    await sleep(1000);
    const q0 = routeCounts(await json('GET', `${adminUrl}/stats`));
    // Up to three, while they fit in the quiet time (the answers held since the fault come back after 8 s).
    const rebuilds = [];
    const quiet0 = performance.now();
    do rebuilds.push(await exp.call('rebuild', { fresh }, 120_000));
    while (rebuilds.length < 3 && performance.now() - quiet0 + rebuilds.at(-1).wallMs < 6000);
    const q1 = routeCounts(await json('GET', `${adminUrl}/stats`));
    await json('PATCH', `${adminUrl}/faults`, { latency: {} });
    const median = (key) =>
      [...rebuilds.map((b) => b[key])].sort((a, b) => a - b)[Math.floor((rebuilds.length - 1) / 2)];
    await sleep(9000);
    return {
      activeMs: median('activeMs'),
      wallMs: median('wallMs'),
      cpuMs: median('cpuMs'),
      maxGapMs: Math.max(...rebuilds.map((b) => b.maxGapMs)),
      runs: rebuilds,
      leaderAnswersDuring: q1.answered - q0.answered,
    };
  };
  log(`${label}: forced rebuild in a quiet exporter`);
  r.rebuild = await quietRebuilds(false);
  log(`${label}: forced full render in a quiet exporter`);
  r.rebuildFull = await quietRebuilds(true);

  // --- scrapes: exporter vs a bare server with the same bytes, 2 concurrent scrapers
  log(`${label}: scrapes (2 concurrent, identity and gzip) vs a bare node:http server`);
  const idBody = await timedGet(metricsUrl, { dispatcher: scrapeAgent, encoding: 'identity', keep: true });
  const gzBody = await timedGet(metricsUrl, { dispatcher: scrapeAgent, encoding: 'gzip', keep: true });
  const idFile = join(dir, 'body.txt');
  const gzFile = join(dir, 'body.txt.gz');
  writeFileSync(idFile, idBody.body);
  writeFileSync(gzFile, gzBody.body);
  const text = idBody.body.toString('utf8');
  const series = countSeries(text);
  r.body = {
    identityBytes: idBody.bytes,
    gzipBytes: gzBody.bytes,
    series: series.all,
    snapshotSeries: series.snapshot,
    contentType: String(idBody.headers['content-type']),
  };
  const bare = children.fork(`bare server ${label}`, join(here, 'bare-server.mjs'), [
    idFile,
    gzFile,
    r.body.contentType,
  ]);
  const bareUrl = (await bare.waitForMessage((m) => m?.ready, 60_000, 'ready message')).url;
  r.scrape = {};
  for (const encoding of ['identity', 'gzip']) {
    await exp.call('stats', { resetLoop: true });
    const got = await scrapeRounds(
      [
        { name: 'exporter', url: metricsUrl },
        { name: 'bare', url: bareUrl },
      ],
      { encoding, budgetMs: scrapeBudgetMs(n) },
    );
    const loop = (await exp.call('stats')).loop;
    const e = got.get('exporter');
    const b = got.get('bare');
    r.scrape[encoding] = {
      exporter: { ttfb: summarize(e.ttfbMs), total: summarize(e.totalMs), bytes: e.bytes },
      bare: { ttfb: summarize(b.ttfbMs), total: summarize(b.totalMs), bytes: b.bytes },
      loopMaxGapMs: loop.maxGapMs,
    };
  }
  await bare.stop();

  // --- the status page (GET /): the full response as a browser would wait for it, and the exporter's event-loop time
  // for each (issue 41: < 150 ms at 10,000 nodes)
  log(`${label}: the status page (GET /), ${STATUS_PAGE_REQUESTS} requests`);
  try {
    r.statusPage = await statusPageTimes(exp, new URL('/', metricsUrl).href, scrapeAgent);
  } catch (e) {
    r.statusPage = { error: e instanceof Error ? e.message : String(e) };
  }

  // --- prom-client over the same series
  log(`${label}: prom-client registry.metrics() over the same series`);
  const pc = children.fork(`prom-client ${label}`, join(here, 'prom-client.mjs'), [idFile, '3'], {
    execArgv: ['--expose-gc', '--max-old-space-size=8192'],
  });
  r.promClient = (await pc.waitForMessage((m) => m?.ready, 900_000, 'result')).result;
  await pc.done;

  // --- stop
  r.finalRss = (await exp.call('stats')).rss;
  await exp.stop();
  if (!flags['skip-explain']) {
    log(`${label}: the exporter again, under V8's CPU profiler (where its CPU goes)`);
    // The judged figures stand without it: a failure here is reported in place of the explanation.
    try {
      r.explain = await explainCpu(n, { adminUrl, baseUrl, token, args, dir });
    } catch (e) {
      r.explain = { error: e instanceof Error ? e.message : String(e) };
      log(`${label}: the profiled run failed: ${r.explain.error}`);
    }
  }
  await sim.stop();
  await scrapeAgent.close();
  rmSync(idFile, { force: true });
  rmSync(gzFile, { force: true });
  if (flags.profile) r.profileDir = join(dir, 'profiles');
  return r;
}

// ---------------------------------------------------------------- main

const started = new Date();
const machine = { ...machineInfo(), node: runtimeNote(repo) };
// Which code was measured: the commit, and whether src/ had uncommitted changes (dist/ is built from the tree).
const git = (...a) => {
  try {
    return execFileSync('git', a, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
};
const code = {
  commit: git('rev-parse', '--short', 'HEAD'),
  dirtySrc: (git('status', '--porcelain', '--', 'src') ?? '') !== '',
};
const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
log(
  `parts ${[...parts].join(', ')}; sizes ${sizes.map(sizeLabel).join(', ') || 'none'}; concurrency ${concurrency}; ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}`,
);
const results = [];
/** The Edge-heavy sizes (bench/scale.mjs). */
const scale = [];
let fair;
let leaderCost;
let failure;
let bareNode;
try {
  if (!flags['skip-explain'] && sizes.some((n) => n < EDGE_HEAVY_FROM)) {
    // What the runtime holds before any of the exporter is loaded, beside the sizes' memory by mapping.
    const bare = children.fork('bare node', join(here, 'bare-node.mjs'), [], { execArgv: imageNodeFlags, env: imageEnv });
    bareNode = (await bare.waitForMessage((m) => m?.ready, 60_000, 'result')).result;
    await bare.done;
  }
  for (const n of sizes) {
    const t = performance.now();
    if (n >= EDGE_HEAVY_FROM) {
      const ctx = { children, here, repo, log, exporterEnv, imageEnv, imageNodeFlags };
      scale.push(await runScaleSize(n, ctx));
      scale.at(-1).benchSeconds = (performance.now() - t) / 1000;
      log(`${sizeLabel(n)}: done in ${Math.round(scale.at(-1).benchSeconds)} s`);
      continue;
    }
    results.push(await runSize(n));
    results.at(-1).benchSeconds = (performance.now() - t) / 1000;
    log(`${sizeLabel(n)}: done in ${Math.round(results.at(-1).benchSeconds)} s`);
  }
  if (parts.has('fair') || parts.has('rate-limit')) {
    const t = performance.now();
    fair = await runFair({ children, here, log, coverage: parts.has('fair'), limit: parts.has('rate-limit') });
    fair.benchSeconds = (performance.now() - t) / 1000;
    log(`fair polling: done in ${Math.round(fair.benchSeconds)} s`);
  }
  if (parts.has('leader-cost')) {
    const t = performance.now();
    const simArgs = flags['leader-cost-sim-args']?.split(/\s+/).filter(Boolean);
    try {
      leaderCost = await runLeaderCost({ children, here, log, simArgs });
    } catch (e) {
      leaderCost = { error: e instanceof Error ? e.message : String(e) };
      log(`leader cost: ${leaderCost.error}`);
    }
    leaderCost.benchSeconds = (performance.now() - t) / 1000;
    log(`leader cost: done in ${Math.round(leaderCost.benchSeconds)} s`);
  }
} catch (e) {
  failure = e;
  log(`failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  if (e instanceof Error && e.cause) log("cause:", e.cause);
} finally {
  await children.stopAll();
  await closeHttp();
}
const run = {
  date: started.toISOString(),
  durationSeconds: (Date.now() - started.getTime()) / 1000,
  command,
  machine: { ...machine, loadavgEnd: machineInfo().loadavg },
  concurrency,
  code,
  exporterEnv,
  imageEnv,
  imageNodeFlags,
  results,
  scale,
  bareNode,
  fair,
  leaderCost,
  failure: failure ? (failure instanceof Error ? failure.message : String(failure)) : undefined,
};
mkdirSync(tmpRoot, { recursive: true });
writeFileSync(join(tmpRoot, 'results.json'), JSON.stringify(run, null, 2));
if (flags.json) console.log(JSON.stringify(run, null, 2));
// Complete: every default size and every part (the profiled run may be skipped).
const complete =
  !flags.sizes &&
  !process.env.BENCH_SIZES &&
  PARTS.every((p) => parts.has(p)) &&
  results.length + scale.length === sizes.length &&
  !failure;
writeReport(run, results.length > 0 || scale.length > 0 || fair || leaderCost ? outFileFor(complete) : undefined);
process.exitCode = failure ? 1 : 0;
