// BENCHMARKS.md from the raw results of bench/run.mjs: targets with a verdict each, figures per size,
// ratios measured in the same run, sizing, and how each figure was measured. Pure: results in, text out.

import { CPU_KINDS } from './cpu-profile.mjs';
import { RESIDENT_FLOOR_KB } from './smaps.mjs';
import { STEADY_GAP_TIMER_MS } from './gaps.mjs';
import { fmtInt, fmtMiB, fmtMs, fmtRatio, fmtS, sizeLabel } from './stats.mjs';

const MB = 1e6;

/** Helpers shared by the verdicts: the largest run, and "NOT met" text with the overshoot. */
function over(value, limit, unit, fmt = (x) => x.toFixed(1)) {
  return `${fmt(value)}${unit} against ≤ ${fmt(limit)}${unit} (${fmtRatio(value / limit)} the target)`;
}

/** Longest stretch of a [ms, cumulative count] series in which the count did not grow (undefined without samples). */
export function longestIdle(series) {
  if (!series?.length) return undefined;
  let longest = 0;
  let since = 0;
  let last = 0;
  for (const [at, count] of series) {
    if (count > last) {
      since = at;
      last = count;
    } else longest = Math.max(longest, at - since);
  }
  return longest;
}

/** `{health, versions, git, total}` of a routeCounts result; undefined when it did not count them (older runs). */
function extraRequests(c) {
  if (!c || c.leaderHealth === undefined) return undefined;
  const health = c.leaderHealth;
  const versions = c.versions ?? 0;
  const git = c.gitSettings ?? 0;
  return { health, versions, git, total: health + versions + git };
}

/** Figures derived from one size's raw result (undefined where not measured). */
export function derive(r) {
  const builds = r.steady?.builds ?? [];
  const scrape = (enc) => r.scrape?.[enc];
  const ratio = (enc, q) => scrape(enc) && scrape(enc).exporter.total[q] / scrape(enc).bare.total[q];
  const pcRuns = r.promClient?.runs ?? [];
  const pcWall = pcRuns.length
    ? [...pcRuns.map((x) => x.wallMs)].sort((a, b) => a - b)[Math.floor(pcRuns.length / 2)]
    : undefined;
  const series = r.body?.series;
  const cov = r.coverage ?? {};
  return {
    coverageMs: cov.answeredMs,
    visibleMs: cov.visibleMs,
    listingPer500: r.discovery ? ((r.discovery.counts.listing + r.discovery.counts.groups) / r.nodes) * 500 : undefined,
    listingPagesPer500: r.discovery ? (r.discovery.counts.listing / r.nodes) * 500 : undefined,
    // Issue 12: the leader's /health, one commit history per group, git settings; first discovery and steady window.
    extraPerDiscovery: extraRequests(r.discovery?.counts),
    extraSteady: extraRequests(r.steady?.counts),
    healthPerNode: r.steady?.healthPerNodePerInterval,
    healthIdleMs: longestIdle(r.steady?.healthSeries),
    steadyMetadata: r.steady?.metadataRequests,
    identityBytes: r.body?.identityBytes,
    gzipBytes: r.body?.gzipBytes,
    series,
    bytesPerSeries: series ? r.body.identityBytes / series : undefined,
    gzipBytesPerSeries: series ? r.body.gzipBytes / series : undefined,
    seriesPerNode: r.body ? r.body.snapshotSeries / r.nodes : undefined,
    rebuildActiveMs: r.rebuild?.activeMs,
    rebuildWallMs: r.rebuild?.wallMs,
    rebuildMaxGapMs: r.rebuild?.maxGapMs,
    rebuildCpuMs: r.rebuild?.cpuMs,
    rebuildRuns: r.rebuild?.runs?.length ?? (r.rebuild ? 1 : 0),
    // Full renders (runs from 2026-11-28 on): nothing taken from the last build.
    rebuildFullActiveMs: r.rebuildFull?.activeMs,
    rebuildFullWallMs: r.rebuildFull?.wallMs,
    rebuildFullMaxGapMs: r.rebuildFull?.maxGapMs,
    rebuildFullRuns: r.rebuildFull?.runs?.length ?? 0,
    insituBuilds: builds.length,
    meanBuildIntervalMs: r.steady?.meanBuildIntervalMs,
    insituBuildWallMaxMs: builds.length ? Math.max(...builds.map((b) => b.wallMs)) : undefined,
    insituBuildMaxGapMs: builds.length ? Math.max(...builds.map((b) => b.maxGapMs)) : undefined,
    steadyMaxGapMs: r.steady?.loopMaxGapMs,
    ttfbP99: (enc) => scrape(enc)?.exporter.ttfb.p99,
    bareTtfb: (enc) => scrape(enc)?.bare?.ttfb,
    ratioP50: (enc) => ratio(enc, 'p50'),
    ratioP99: (enc) => ratio(enc, 'p99'),
    // The mean of the steady window's samples (runs before 2026-11-27: one sample at its end).
    rss: r.steady?.rss,
    rssRange: r.steady?.rssMin !== undefined ? [r.steady.rssMin, r.steady.rssMax] : undefined,
    peakRss: Math.max(r.steady?.peakRss ?? 0, r.lifetimePeakRss ?? 0) || undefined,
    heapUsed: r.steady?.heapUsed,
    heapTotal: r.steady?.heapTotal,
    arrayBuffers: r.steady?.arrayBuffers,
    exporterRate: cov.rate,
    autocannonRps: r.autocannon?.rps,
    throughputShare: cov.rate !== undefined && r.autocannon ? cov.rate / r.autocannon.rps : undefined,
    undiciFloorRps: r.undiciFloor?.rps,
    undiciFloorShare: r.undiciFloor && r.autocannon ? r.undiciFloor.rps / r.autocannon.rps : undefined,
    undiciFloorCpuMs: r.undiciFloor?.cpuMsPerRequest,
    // Steady window: the exporter's CPU (all its work: polls, discovery, builds, scrapes) per leader request, and
    // undici alone paced at the exporter's nominal rate, warm.
    steadyCpuMsPerRequest:
      r.steady?.counts?.answered > 0 ? (r.steady.exporterCpuCores * r.steady.wallMs) / r.steady.counts.answered : undefined,
    undiciPacedCpuMs: r.undiciPaced?.cpuMsPerRequest,
    undiciPacedRps: r.undiciPaced?.rps,
    floorKept: cov.rate !== undefined && r.undiciFloor ? cov.rate / r.undiciFloor.rps : undefined,
    // From the first node poll to coverage (runs before 2026-11-24: the whole burst from the process start).
    cpuMsPerRequest:
      cov.cpuMsPerRequest ??
      (cov.rate && cov.exporterCpuShare !== undefined ? (cov.exporterCpuShare * 1000) / cov.rate : undefined),
    promClientWallMs: pcWall,
    // Against a full render where the run has one (prom-client renders every series each time).
    promClientVsRebuild:
      pcWall !== undefined && (r.rebuildFull ?? r.rebuild) ? pcWall / (r.rebuildFull ?? r.rebuild).activeMs : undefined,
    promClientVsTtfb: pcWall !== undefined && scrape('gzip') ? pcWall / scrape('gzip').exporter.ttfb.p50 : undefined,
  };
}

/**
 * One verdict per target of the issue, judged on the largest size measured (the targets are stated for
 * 50,000 nodes): { target, status: 'met' | 'NOT met' | 'not measured', detail }.
 */
export function judgeTargets(r) {
  const d = derive(r);
  const out = [];
  const add = (target, ok, detail, why) => {
    if (ok === undefined) out.push({ target, status: 'not measured', detail: detail ?? 'no figure in this run' });
    else
      out.push({ target, status: ok ? 'met' : 'NOT met', detail: ok ? detail : `${detail}${why ? `; ${why}` : ''}` });
  };
  const loopNote = (gap) => (gap !== undefined ? `longest event-loop gap while serving ${fmtMs(gap)}` : undefined);

  for (const enc of ['identity', 'gzip']) {
    const p99 = d.ttfbP99(enc);
    add(
      `/metrics ${enc}: time to first byte p99 ≤ 10 ms (2 concurrent scrapers)`,
      p99 === undefined ? undefined : p99 <= 10,
      p99 === undefined ? undefined : p99 <= 10 ? `p99 ${fmtMs(p99)}` : `p99 ${over(p99, 10, ' ms')}`,
      [
        loopNote(r.scrape?.[enc]?.loopMaxGapMs),
        d.bareTtfb(enc)
          ? `a bare node:http server on the same machine in the same run: p50 ${fmtMs(d.bareTtfb(enc).p50)}, p99 ${fmtMs(d.bareTtfb(enc).p99)}`
          : undefined,
      ]
        .filter(Boolean)
        .join('; ') || undefined,
    );
  }
  for (const enc of ['identity', 'gzip']) {
    const p50 = d.ratioP50(enc);
    const p99 = d.ratioP99(enc);
    const ok = p50 === undefined ? undefined : p50 <= 1.5 && p99 <= 1.5;
    add(
      `/metrics ${enc}: whole response within 1.5× of a bare node:http server with the same bytes`,
      ok,
      p50 === undefined
        ? undefined
        : `p50 ${fmtRatio(p50)}, p99 ${fmtRatio(p99)} of the bare server (${fmtMs(r.scrape[enc].exporter.total.p50)} vs ${fmtMs(r.scrape[enc].bare.total.p50)} at p50)`,
      enc === 'identity' && r.steady?.cachedBodyBytes > 32 * 1048576
        ? 'the identity body is over the 32 MiB identity cache, so each identity scrape gunzips the cached gzip'
        : loopNote(r.scrape?.[enc]?.loopMaxGapMs),
    );
  }
  // Judged on the full render where the run has one (every node rendered: the first body, or a change to every
  // node's state), else on the quiet rebuild (which, from 2026-11-27, takes every run from the last build).
  const full = d.rebuildFullActiveMs !== undefined;
  const active = full ? d.rebuildFullActiveMs : d.rebuildActiveMs;
  const wall = full ? d.rebuildFullWallMs : d.rebuildWallMs;
  const kind = full ? 'full render' : 'quiet rebuild';
  add(
    'rebuild after a full health cycle: ≤ 500 ms of event-loop time',
    active === undefined ? undefined : active <= 500,
    active === undefined
      ? undefined
      : active <= 500
        ? `${fmtMs(active)} (wall ${fmtMs(wall)}), ${kind}${full ? `; the usual build ${fmtMs(d.rebuildActiveMs)}` : ''}`
        : `${kind}: ${over(active, 500, ' ms')}`,
  );
  const gap = full ? Math.max(d.rebuildFullMaxGapMs, d.rebuildMaxGapMs ?? 0) : d.rebuildMaxGapMs;
  const counted = full
    ? `${d.rebuildFullRuns} full renders and ${d.rebuildRuns} usual builds, quiet`
    : `${d.rebuildRuns} quiet rebuilds`;
  add(
    'rebuild never blocks the event loop > 50 ms at a time',
    gap === undefined ? undefined : gap <= 50,
    gap === undefined
      ? undefined
      : gap <= 50
        ? `longest gap ${fmtMs(gap)} over ${counted} (${fmtMs(d.insituBuildMaxGapMs)} during ${d.insituBuilds} builds while polling, which includes other work's blocks, read with a ${r.steady?.gapTimerMs ?? 1} ms timer)`
        : `longest gap ${over(gap, 50, ' ms')} over ${counted}`,
    d.insituBuilds
      ? `${fmtMs(d.insituBuildMaxGapMs)} during ${d.insituBuilds} builds while polling (those include other work's blocks; ${r.steady?.gapTimerMs ?? 1} ms timer)`
      : undefined,
  );
  const rssWorst = Math.max(d.rss ?? 0, d.peakRss ?? 0) || undefined;
  add(
    'RSS ≤ 400 MB',
    rssWorst === undefined ? undefined : rssWorst <= 400 * MB,
    rssWorst === undefined
      ? undefined
      : rssWorst <= 400 * MB
        ? `${(d.rss / MB).toFixed(0)} MB steady, ${(rssWorst / MB).toFixed(0)} MB peak`
        : `peak ${over(rssWorst / MB, 400, ' MB', (x) => x.toFixed(0))}, ${(d.rss / MB).toFixed(0)} MB steady`,
    rssWorst !== undefined && rssWorst > 400 * MB && d.heapTotal !== undefined
      ? `V8 heap ${(d.heapUsed / MB).toFixed(0)} MB used of ${(d.heapTotal / MB).toFixed(0)} MB, ArrayBuffers ${(d.arrayBuffers / MB).toFixed(0)} MB; the rest is native memory (allocator, zlib, undici)`
      : undefined,
  );
  add(
    'bytes per series reported and kept small',
    d.bytesPerSeries === undefined ? undefined : true,
    d.bytesPerSeries === undefined
      ? undefined
      : `${d.bytesPerSeries.toFixed(0)} B identity, ${d.gzipBytesPerSeries.toFixed(1)} B gzip per series (${d.seriesPerNode.toFixed(1)} series per node)`,
  );
  const covLimit = 30_000;
  add(
    'start → every node’s first health answer ≤ 30 s (unthrottled leader)',
    r.coverage ? d.coverageMs !== undefined && d.coverageMs <= covLimit : undefined,
    d.coverageMs === undefined
      ? `not reached within ${fmtS(r.coverage?.deadlineMs)} (${fmtInt(r.coverage?.healthAnsweredAtDeadline)} of ${fmtInt(r.nodes)} answered)`
      : d.coverageMs <= covLimit
        ? `${fmtS(d.coverageMs, 1)}`
        : `${fmtS(d.coverageMs, 1)} against ≤ 30 s (${fmtRatio(d.coverageMs / covLimit)} the target)`,
    r.coverage?.rate !== undefined
      ? `the exporter sent ${fmtInt(r.coverage.rate)} leader requests/s at ${(r.coverage.exporterEluShare * 100).toFixed(0)} % event-loop utilisation: CPU-bound at ${d.cpuMsPerRequest.toFixed(2)} ms CPU per request`
      : undefined,
  );
  add(
    'listing ≤ 1 request per 500 nodes',
    d.listingPer500 === undefined ? undefined : d.listingPer500 <= 1,
    d.listingPer500 === undefined
      ? undefined
      : `${d.listingPer500.toFixed(2)} requests per 500 nodes per discovery (${r.discovery.counts.listing} pages + ${r.discovery.counts.groups} group listings)`,
    'the group listings come on top of one page per 500 nodes',
  );
  const extra = d.extraPerDiscovery;
  const groups = r.discovery?.listedGroups;
  add(
    'per discovery, besides the listing: one /health, at most one version request per group, one git settings read',
    extra === undefined
      ? undefined
      : extra.health === 1 && extra.git <= 1 && (groups === undefined || extra.versions <= groups),
    extra === undefined
      ? undefined
      : `${extra.health} + ${extra.versions} + ${extra.git} = ${extra.total} requests (/health + /m/{group}/version for ${groups ?? '?'} groups + git settings)`,
  );
  add(
    'steady state ≤ 1 health request per node per health interval',
    d.healthPerNode === undefined ? undefined : d.healthPerNode <= 1.01,
    d.healthPerNode === undefined
      ? undefined
      : `${d.healthPerNode.toFixed(3)} per node per interval${
          d.healthPerNode < 0.95
            ? `; fewer than one because no health request went out for ${fmtS(d.healthIdleMs, 0)} of the window: a health cycle was skipped (see the analysis: scheduler)`
            : ''
        }`,
  );
  const meta = r.steady?.metadataPerNodeSinceStart;
  add(
    'metadata only on its schedule and after restarts',
    meta === undefined ? undefined : meta <= 1,
    meta === undefined
      ? undefined
      : `${meta.toFixed(3)} metadata requests per node in the ${Math.round(r.steady.secondsSinceStart)} s since start (the first fetch, spread over health cycles 2–5; schedule ${r.intervals.metadataS / 60} min; no restarts)`,
    'more than one per node before the schedule means repeated fetches',
  );
  add(
    'throughput ≥ 80 % of autocannon (same concurrency, same simulator route)',
    d.throughputShare === undefined ? undefined : d.throughputShare >= 0.8,
    d.throughputShare === undefined
      ? undefined
      : `${fmtInt(d.exporterRate)} req/s vs autocannon ${fmtInt(d.autocannonRps)} req/s = ${(d.throughputShare * 100).toFixed(0)} %`,
    [
      d.cpuMsPerRequest !== undefined
        ? `the exporter spends ${d.cpuMsPerRequest.toFixed(2)} ms of CPU per leader request (autocannon about ${((1000 * 1) / d.autocannonRps).toFixed(2)} ms of wall per request per core)`
        : undefined,
      d.undiciFloorRps !== undefined
        ? `undici's request() alone, doing nothing but parse each answer, gets ${fmtInt(d.undiciFloorRps)} req/s = ${(d.undiciFloorShare * 100).toFixed(0)} % of autocannon at ${d.undiciFloorCpuMs.toFixed(3)} ms of CPU per request; the exporter keeps ${(d.floorKept * 100).toFixed(0)} % of that floor`
        : undefined,
    ]
      .filter(Boolean)
      .join('; ') || undefined,
  );
  return out;
}

/** Issue 17's steady-state target: the fleet size it is judged at and its bound (cores). */
export const STEADY_TARGET = { nodes: 50_000, cores: 0.25 };

/** Memory targets of issue 17 per fleet size (MB = 10^6 bytes, as the issue states them). */
const RSS_TARGETS_17 = [
  [50_000, 400],
  [10_000, 150],
  [2_000, 100],
];

/**
 * Verdicts of issue 17, judged per size from the run's own results (a size the run lacks is "not run"):
 * RSS steady and at peak per size, exporter CPU per leader request against undici's request() alone on the same
 * route in the same run, steady CPU at 50k. The kept targets and the blackbox comparison are judged elsewhere.
 */
export function judgeIssue17(results) {
  const out = [];
  const bySize = (n) => results.find((r) => r.nodes === n);
  const verdict = (target, ok, detail) =>
    out.push(ok === undefined ? { target, status: 'not measured', detail } : { target, status: ok ? 'met' : 'NOT met', detail });
  const notRun = (target, n) =>
    out.push({ target, status: 'not run', detail: `no ${sizeLabel(n)} size in this run (\`--sizes ${sizeLabel(n)}\`)` });
  for (const [n, limit] of RSS_TARGETS_17) {
    const target = `${fmtInt(n)} nodes: RSS ≤ ${limit} MB steady and at peak (start-up burst included)`;
    const r = bySize(n);
    if (!r) {
      notRun(target, n);
      continue;
    }
    const d = derive(r);
    if (d.rss === undefined || d.peakRss === undefined) {
      verdict(target, undefined, 'no memory figure in this run');
      continue;
    }
    const steady = d.rss / MB;
    const peak = Math.max(d.rss, d.peakRss) / MB;
    const mb = (x) => x.toFixed(0);
    const part = (label, v) => (v <= limit ? `${mb(v)} MB ${label}` : `${mb(v)} MB ${label} (${fmtRatio(v / limit)} the target)`);
    const range = d.rssRange ? ` (mean of the window; ${mb(d.rssRange[0] / MB)}–${mb(d.rssRange[1] / MB)} MB)` : '';
    verdict(
      target,
      steady <= limit && peak <= limit,
      `${part('steady', steady)}${range}, ${part('peak', peak)} against ≤ ${limit} MB`,
    );
  }
  for (const r of [...results].sort((a, b) => a.nodes - b.nodes)) {
    const target = `${fmtInt(r.nodes)} nodes: exporter CPU per leader request (start-up burst, from the first node poll) ≤ 2× undici's request() alone, same route, same run`;
    const d = derive(r);
    if (d.cpuMsPerRequest === undefined || d.undiciFloorCpuMs === undefined) {
      verdict(target, undefined, 'no CPU-per-request figure for the exporter or for undici in this run');
      continue;
    }
    const x = d.cpuMsPerRequest / d.undiciFloorCpuMs;
    verdict(
      target,
      x <= 2,
      `${d.cpuMsPerRequest.toFixed(3)} ms against undici's ${d.undiciFloorCpuMs.toFixed(3)} ms = ${fmtRatio(x)} undici` +
        (x <= 2 ? '' : ` (${fmtRatio(x / 2)} the target)`),
    );
  }
  if (results.length === 0)
    out.push({
      target: "exporter CPU per leader request (start-up burst, from the first node poll) ≤ 2× undici's request() alone",
      status: 'not run',
      detail: 'no size in this run',
    });
  const steadyTarget = `${fmtInt(STEADY_TARGET.nodes)} nodes: steady state ≤ ${STEADY_TARGET.cores} cores`;
  const big = bySize(STEADY_TARGET.nodes);
  if (!big) notRun(steadyTarget, STEADY_TARGET.nodes);
  else {
    const cores = big.steady?.exporterCpuCores;
    const limit = STEADY_TARGET.cores;
    verdict(
      steadyTarget,
      cores === undefined ? undefined : cores <= limit,
      cores === undefined
        ? 'no steady window in this run'
        : cores <= limit
          ? `${cores.toFixed(3)} cores over the steady window`
          : `${over(cores, limit, ' cores', (v) => v.toFixed(3))} over the steady window`,
    );
  }
  out.push({
    target: 'keep every target met before (coverage, listing, health requests, rebuild, gzip scrape, TTFB)',
    status: 'see',
    detail: 'judged in the issue-7 and fair-polling tables above',
  });
  out.push({
    target: 'against Prometheus + blackbox_exporter: exporter CPU ≤ 1/5 of blackbox’s at 2k and 10k, memory with Prometheus below theirs',
    status: 'see',
    detail:
      'judged by `npm run bench:alternative` in the section “Against the alternative” below (bench/ALTERNATIVE.md)',
  });
  return out;
}

function table(head, rows) {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** The figures of every size side by side. */
/** Cells of one row; a figure the run lacks (a failed or partial run) shows as n/a. */
function cells(results, ds, f) {
  return results.map((r, i) => {
    try {
      return f(r, ds[i]);
    } catch {
      return 'n/a';
    }
  });
}

/** The gap timer's interval in the steady window (1 ms in runs before it was coarsened). */
function steadyGapTimerMs(results) {
  return results.find((r) => r.steady)?.steady.gapTimerMs ?? 1;
}

function figures(results) {
  const timer = steadyGapTimerMs(results);
  const ds = results.map(derive);
  const col = (f) => cells(results, ds, f);
  const scr = (enc, who, q, what) => (r) => fmtMs(r.scrape?.[enc]?.[who]?.[what]?.[q]);
  const rows = [
    ['time to every node’s first health answer', ...col((r, d) => fmtS(d.coverageMs, 1))],
    ['… and all of them visible in /metrics', ...col((r, d) => fmtS(d.visibleMs, 1))],
    ['leader requests/s during that burst', ...col((r) => fmtInt(r.coverage?.rate))],
    [
      'exporter CPU during the burst (cores) / event-loop utilisation',
      ...col((r) =>
        r.coverage?.exporterCpuShare !== undefined
          ? `${r.coverage.exporterCpuShare.toFixed(2)} / ${(r.coverage.exporterEluShare * 100).toFixed(0)} %`
          : 'n/a',
      ),
    ],
    ['simulator CPU during the burst (cores)', ...col((r) => r.coverage?.simCpuShare?.toFixed(2) ?? 'n/a')],
    [
      'listing requests per discovery (pages + groups)',
      ...col((r) => (r.discovery ? `${r.discovery.counts.listing} + ${r.discovery.counts.groups}` : 'n/a')),
    ],
    ['… per 500 nodes', ...col((r, d) => d.listingPer500?.toFixed(2) ?? 'n/a')],
    [
      'added per discovery: leader /health + group versions + git settings (first discovery / steady window)',
      ...col((r, d) => {
        const show = (x) => (x ? `${x.health} + ${x.versions} + ${x.git}` : 'n/a');
        return d.extraPerDiscovery ? `${show(d.extraPerDiscovery)} / ${show(d.extraSteady)}` : 'n/a';
      }),
    ],
    [
      'health requests per node per interval (steady, 2 intervals)',
      ...col((r, d) => d.healthPerNode?.toFixed(3) ?? 'n/a'),
    ],
    [
      'longest stretch without a health request in the steady window (5 s samples)',
      ...col((r, d) => fmtS(d.healthIdleMs, 0)),
    ],
    [
      'metadata requests in the steady window / per node since start',
      ...col(
        (r) => `${fmtInt(r.steady?.metadataRequests)} / ${r.steady.metadataPerNodeSinceStart?.toFixed(3) ?? 'n/a'}`,
      ),
    ],
    [
      'last health cycle (target 30 s)',
      ...col((r) =>
        r.steady?.healthCycleSeconds !== undefined
          ? `${r.steady.healthCycleSeconds.toFixed(1)} s${r.steady.healthCycleOverrun ? ' (overrun)' : ''}`
          : 'n/a',
      ),
    ],
    ['series (whole /metrics)', ...col((r, d) => fmtInt(d.series))],
    ['series per node', ...col((r, d) => d.seriesPerNode?.toFixed(1) ?? 'n/a')],
    ['body identity', ...col((r, d) => fmtMiB(d.identityBytes))],
    ['body gzip', ...col((r, d) => fmtMiB(d.gzipBytes))],
    [
      'bytes per series identity / gzip',
      ...col((r, d) =>
        d.bytesPerSeries !== undefined ? `${d.bytesPerSeries.toFixed(0)} / ${d.gzipBytesPerSeries.toFixed(1)}` : 'n/a',
      ),
    ],
    ...quietBuildRows(col, 'rebuild', 'rebuildRuns', 'rebuild, quiet', '', 'rebuilds'),
    ...quietBuildRows(col, 'rebuildFull', 'rebuildFullRuns', 'full render, quiet', '; nothing taken from the last build', 'renders'),
    [
      `builds while polling (steady window): count / mean interval / longest wall / longest gap (${timer} ms timer)`,
      ...col((r, d) =>
        d.insituBuilds
          ? `${d.insituBuilds} / ${fmtS(d.meanBuildIntervalMs, 1)} / ${fmtMs(d.insituBuildWallMaxMs, 0)} / ${fmtMs(d.insituBuildMaxGapMs)}`
          : 'none completed',
      ),
    ],
    [
      `longest event-loop gap in the steady window (any cause; ${timer} ms timer)`,
      ...col((r) => fmtMs(r.steady?.loopMaxGapMs)),
    ],
    [
      'scrape identity TTFB p50 / p99',
      ...col(
        (r) => `${scr('identity', 'exporter', 'p50', 'ttfb')(r)} / ${scr('identity', 'exporter', 'p99', 'ttfb')(r)}`,
      ),
    ],
    [
      '… a bare node:http server, same run',
      ...col((r) => `${scr('identity', 'bare', 'p50', 'ttfb')(r)} / ${scr('identity', 'bare', 'p99', 'ttfb')(r)}`),
    ],
    [
      'scrape identity total p50 / p99',
      ...col(
        (r) => `${scr('identity', 'exporter', 'p50', 'total')(r)} / ${scr('identity', 'exporter', 'p99', 'total')(r)}`,
      ),
    ],
    [
      'scrape gzip TTFB p50 / p99',
      ...col((r) => `${scr('gzip', 'exporter', 'p50', 'ttfb')(r)} / ${scr('gzip', 'exporter', 'p99', 'ttfb')(r)}`),
    ],
    [
      '… a bare node:http server, same run',
      ...col((r) => `${scr('gzip', 'bare', 'p50', 'ttfb')(r)} / ${scr('gzip', 'bare', 'p99', 'ttfb')(r)}`),
    ],
    [
      'scrape gzip total p50 / p99',
      ...col((r) => `${scr('gzip', 'exporter', 'p50', 'total')(r)} / ${scr('gzip', 'exporter', 'p99', 'total')(r)}`),
    ],
    ['scrapes per encoding (2 concurrent)', ...col((r) => fmtInt(r.scrape?.gzip?.exporter.ttfb.n))],
    [
      'longest event-loop gap while serving identity / gzip',
      ...col((r) => `${fmtMs(r.scrape?.identity?.loopMaxGapMs)} / ${fmtMs(r.scrape?.gzip?.loopMaxGapMs)}`),
    ],
    [
      'RSS steady (mean of the window) / peak',
      ...col((r, d) =>
        d.rss !== undefined ? `${(d.rss / MB).toFixed(0)} MB / ${(d.peakRss / MB).toFixed(0)} MB` : 'n/a',
      ),
    ],
    [
      'RSS in the steady window, min–max of 5 s samples',
      ...col((r, d) =>
        d.rssRange ? `${(d.rssRange[0] / MB).toFixed(0)}–${(d.rssRange[1] / MB).toFixed(0)} MB` : 'n/a',
      ),
    ],
    [
      'V8 heap used / total, ArrayBuffers (steady)',
      ...col((r) =>
        r.steady?.heapTotal !== undefined
          ? `${(r.steady.heapUsed / MB).toFixed(0)} / ${(r.steady.heapTotal / MB).toFixed(0)} MB, ${(r.steady.arrayBuffers / MB).toFixed(0)} MB`
          : 'n/a',
      ),
    ],
    [
      'exporter CPU, steady window (cores) / event-loop utilisation',
      ...col((r) =>
        r.steady ? `${r.steady.exporterCpuCores.toFixed(3)} / ${(r.steady.exporterElu * 100).toFixed(1)} %` : 'n/a',
      ),
    ],
    [
      'exporter CPU in the first metadata round (cores; leader req/s: health + metadata), the window runs before 2026-11-27 evening called steady',
      ...col((r) =>
        r.firstMetadataRound
          ? `${r.firstMetadataRound.exporterCpuCores.toFixed(3)} (${fmtInt((r.firstMetadataRound.healthRequests * 1000) / r.firstMetadataRound.wallMs)} + ${fmtInt((r.firstMetadataRound.metadataRequests * 1000) / r.firstMetadataRound.wallMs)} req/s, ${Math.round(r.firstMetadataRound.startS)}–${Math.round(r.firstMetadataRound.startS + r.firstMetadataRound.wallMs / 1000)} s from the start)`
          : 'n/a',
      ),
    ],
    [
      'other processes on the machine, steady window (cores busy)',
      ...col((r) =>
        r.steady
          ? Math.max(
              0,
              r.steady.machineBusyCores -
                r.steady.exporterCpuCores -
                r.steady.simCpuCores -
                (r.steady.benchCpuCores ?? 0),
            ).toFixed(2)
          : 'n/a',
      ),
    ],
  ];
  return table(['', ...results.map((r) => sizeLabel(r.nodes))], rows);
}

function ratios(results) {
  const ds = results.map(derive);
  const col = (f) => cells(results, ds, f);
  const scr = (enc) => (r, d) =>
    d.ratioP50(enc) !== undefined
      ? `${fmtRatio(d.ratioP50(enc))} / ${fmtRatio(d.ratioP99(enc))} (bare ${fmtMs(r.scrape[enc].bare.total.p50)} / ${fmtMs(r.scrape[enc].bare.total.p99)})`
      : 'n/a';
  const rows = [
    ['/metrics identity total vs bare node:http, same bytes (p50 / p99)', ...col(scr('identity'))],
    ['/metrics gzip total vs bare node:http, same bytes (p50 / p99)', ...col(scr('gzip'))],
    [
      'exporter leader requests/s vs autocannon on /w/{id}/health',
      ...col((r, d) =>
        d.throughputShare !== undefined
          ? `${(d.throughputShare * 100).toFixed(0)} % (${fmtInt(d.exporterRate)} vs ${fmtInt(d.autocannonRps)} req/s)`
          : 'n/a',
      ),
    ],
    [
      'undici request() alone on /w/{id}/health (same concurrency) vs autocannon; exporter vs that',
      ...col((r, d) =>
        d.undiciFloorRps !== undefined
          ? `${(d.undiciFloorShare * 100).toFixed(0)} % (${fmtInt(d.undiciFloorRps)} req/s, ${d.undiciFloorCpuMs.toFixed(3)} ms CPU/request); exporter ${(d.floorKept * 100).toFixed(0)} % of it`
          : 'n/a',
      ),
    ],
    [
      'steady window: exporter CPU per leader request (all its work) vs undici alone paced at that rate, warm',
      ...col((r, d) =>
        d.steadyCpuMsPerRequest !== undefined && d.undiciPacedCpuMs !== undefined
          ? `${d.steadyCpuMsPerRequest.toFixed(3)} vs ${d.undiciPacedCpuMs.toFixed(3)} ms (${fmtInt(d.undiciPacedRps)} req/s) = ${fmtRatio(d.steadyCpuMsPerRequest / d.undiciPacedCpuMs)}`
          : 'n/a',
      ),
    ],
    [
      'prom-client registry.metrics(), same series: wall per call (blocking)',
      ...col((r, d) =>
        d.promClientWallMs !== undefined
          ? `${fmtMs(d.promClientWallMs, 0)}, longest gap ${fmtMs(Math.max(...r.promClient.runs.map((x) => x.maxGapMs)))}`
          : 'n/a',
      ),
    ],
    [
      '… vs our full render (event-loop time; before 2026-11-28 the quiet rebuild)',
      ...col((r, d) => (d.promClientVsRebuild !== undefined ? `${fmtRatio(d.promClientVsRebuild, 1)} slower` : 'n/a')),
    ],
    [
      '… vs our scrape TTFB p50 (gzip, per scrape)',
      ...col((r, d) => (d.promClientVsTtfb !== undefined ? `${fmtRatio(d.promClientVsTtfb, 0)} slower` : 'n/a')),
    ],
    [
      'prom-client RSS holding the series',
      ...col((r) => (r.promClient ? `${(r.promClient.rssFilled / MB).toFixed(0)} MB` : 'n/a')),
    ],
  ];
  return table(['', ...results.map((r) => sizeLabel(r.nodes))], rows);
}

function sizing(results) {
  try {
    return sizingText(results);
  } catch {
    return 'The sizing figures are incomplete in this run.';
  }
}

function sizingText(results) {
  const r = results.find((x) => x.nodes === 1000);
  if (!r?.steady)
    return 'The 1k size was not part of this run: run `npm run bench -- --sizes 1k` for the sizing figures.';
  const cores = r.steady.exporterCpuCores;
  const rss = r.steady.rss / MB;
  const peak = derive(r).peakRss / MB;
  const burst = r.coverage?.exporterCpuShare;
  const per = results
    .filter((x) => x.steady)
    .map(
      (x) =>
        `${sizeLabel(x.nodes)}: ${x.steady.exporterCpuCores.toFixed(3)} cores${x.steady.healthPerNodePerInterval < 0.95 ? ' (understated: a health cycle was skipped in the window)' : ''}, ${(x.steady.rss / MB).toFixed(0)} MB RSS (peak ${(derive(x).peakRss / MB).toFixed(0)} MB)`,
    )
    .join('; ');
  // Requests: the average with headroom; memory limit: twice the peak (Mi = 2^20 bytes, as Kubernetes counts).
  const MiB = 1048576;
  const cpuRequest = Math.max(50, Math.ceil((cores * 1.5 * 1000) / 50) * 50);
  const memRequest = Math.ceil((r.steady.rss * 1.25) / MiB / 32) * 32;
  const memLimit = Math.max(256, Math.ceil((derive(r).peakRss * 2) / MiB / 64) * 64);
  return [
    `At 1,000 nodes (health every ${r.intervals.healthS} s, discovery every ${r.intervals.discoveryS} s, metadata every ${r.intervals.metadataS / 60} min, Prometheus scraping gzip every 15 s), the exporter used **${cores.toFixed(3)} cores** on average over two health intervals (one discovery) once every node's first metadata fetch was done${r.firstMetadataRound ? ` (${r.firstMetadataRound.exporterCpuCores.toFixed(3)} cores in the minutes before, while that first fetch is spread over the health polls)` : ''}, **${rss.toFixed(0)} MB RSS** steady and **${peak.toFixed(0)} MB** at peak (start-up burst included; the burst itself used ${burst !== undefined ? `${burst.toFixed(2)} cores` : 'n/a'} for ${fmtS(r.coverage?.answeredMs, 1)} with an unthrottled leader; with the default --leader.max-rps 50 it is spread over ${Math.ceil(r.nodes / 50)} s instead).`,
    '',
    `Suggested Kubernetes resources for about 1,000 nodes: \`requests: {cpu: ${cpuRequest}m, memory: ${memRequest}Mi}\`, \`limits: {memory: ${memLimit}Mi}\` (no CPU limit: throttling stretches the health cycle and the body builds; if one is required, give at least 500m so the start-up burst and discovery are not throttled). Scale with the fleet: ${per}.`,
  ].join('\n');
}

/**
 * The two rows of one kind of quiet build (`key`: `rebuild`, the usual build, or `rebuildFull`, the full render; `runs`:
 * derive's count of them): its median event-loop time, wall and CPU, and its longest event-loop gap.
 */
function quietBuildRows(col, key, runs, name, note, what) {
  return [
    [
      `${name} (median${note}): event-loop time / wall / CPU all threads`,
      ...col((r) => {
        const b = r[key];
        return b ? `${fmtMs(b.activeMs, 0)} / ${fmtMs(b.wallMs, 0)} / ${fmtMs(b.cpuMs, 0)}` : 'n/a';
      }),
    ],
    [
      `${name}: longest event-loop gap (${what})`,
      ...col((r, d) => (r[key] ? `${fmtMs(r[key].maxGapMs)} (${d[runs]})` : 'n/a')),
    ],
  ];
}

const METHOD = `- **Runtime.** Every process runs on the Node.js major the image ships (the Dockerfile's \`NODE_MAJOR\`): when \`npm run bench\` is started on another, it runs itself again on node@MAJOR from the npm registry (\`bench/lib/image.mjs\`; \`BENCH_NODE=/path/to/node\` names one, \`BENCH_NODE=current\` keeps the current node and the report says so). Memory depends on the runtime: at 2,000 nodes the same exporter held 88 MB on Node.js 20, 99–104 MB on 22 and 119 MB on 24 (\`bench/steady-probe.mjs\`, 2026-11-28).
- **Processes.** The simulator (\`node dist/cli.js simulate --nodes N --seed 1\`), the exporter and, for the ratios, a bare node:http server and a prom-client process run as separate processes; the benchmark process only drives them and scrapes. The exporter is \`bench/exporter.mjs\`: \`runCommand\` from \`dist/commands.js\`, exactly what \`dist/cli.js\` runs, plus a bench-only IPC channel for event-loop, CPU and memory figures and a hook that times every body build (it wraps \`app.body.rebuild\`; it changes nothing the exporter does). Only 127.0.0.1 is used; every child is killed when the benchmark exits.
- **Exporter flags.** \`--leader.max-rps 1000000 --leader.max-concurrency C\` (an unthrottled leader), \`--health.interval 30s --discovery.interval 60s --metadata.interval 600s\`, token auth, JSON logs at info.
- **Coverage.** From forking the exporter to the moment the simulator has answered \`/w/{id}/health\` with 200 for every node (read from \`/_sim/stats\` every 200 ms; every node starts healthy); "visible" is when a scrape of /metrics shows \`cribl_node_health_up 1\` for every node. The request rate is the simulator's answers per second from the first node poll to coverage.
- **Leader cost.** Listing: requests of the first discovery (\`/products/{product}/workers\` pages, page size 500, plus \`/products/{product}/groups\`) per 500 nodes. Steady state: once every node's first metadata fetch is done (a new fleet's first fetch is spread over each node's health polls 2 to 5, so the window starts five health intervals and 20 s after the exporter's start), the simulator's counters over two health intervals (60 s, so exactly one discovery falls inside), divided by nodes × 2. The window before it (one health interval after coverage, two intervals long: what runs before 2026-11-27 evening measured as the steady state) is reported as the first metadata round. Metadata: every metadata request since the exporter started, per node (the poller spreads the first fetch over health cycles 2–5, then only every metadata interval or after a restart).
- **Event loop.** Inside the exporter a 1 ms interval timer notes the time between its ticks (\`bench/lib/gaps.mjs\`); the longest gap is the longest the loop went without reaching its timers: the longest block, plus about 1 ms, or the process not being scheduled (the machine is shared). \`monitorEventLoopDelay\` is not used for windows because its \`reset()\` forgets a block already under way. The timer is not free: at 1 ms it cost the exporter's main thread about 0.015 cores at 2,000 nodes in a probe (0.045–0.059 against 0.024–0.040 cores with a coarse timer, \`bench/steady-probe.mjs --gap-timer MS\`, four runs each, alternated), but a full run with a 50 ms timer in the steady window measured no lower steady CPU; the steady window's timer ticks every ${STEADY_GAP_TIMER_MS} ms (\`STEADY_GAP_TIMER_MS\` in \`bench/lib/gaps.mjs\`), the rebuild and scrape windows' every 1 ms. Event-loop time is \`performance.eventLoopUtilization()\` active time.
- **Rebuild.** "Quiet": the simulator holds every answer for 8 s (a latency fault), so that no poll completes, and meanwhile the exporter rebuilds the whole body on request, up to three times; the median event-loop time and the longest gap are the rebuild's own. Nodes are rendered at build time (from their states as the build starts), in runs of about 1,000: "rebuild, quiet" is the usual build, which takes every run of nodes that did not change from the last build and renders only the families that change with every poll (heartbeat, free disk, last answers); "full render" (in a second quiet window, up to three, \`fresh\`) takes nothing from the last build, as the first body or a change to every node's state: posting the states to the body worker (from \`WORKER_MIN_NODES\` in src/exposition/body.ts) or rendering them inline, plus gzip. The rebuild targets are judged on the full render. "While polling": every build the body cache made by itself during the steady window; their event-loop time and gaps include the polling and discovery interleaved with them.
- **Scrapes.** 2 concurrent scrapers (one undici Agent with 2 connections per target), Prometheus 3's Accept header (OpenMetrics), rounds of 2 parallel GETs; time to first byte is the time to the response headers. Rounds of the exporter and of the bare server alternate, so both see the same machine load. The bare server sends the exact bytes the exporter sent (captured from one identity and one gzip scrape), with Content-Length.
- **CPU per leader request.** The exporter's CPU (all threads, \`process.cpuUsage()\`) from the first node poll to every node's first health answer, divided by the leader requests answered in between (the simulator's counters): the start-up burst without the process start and the first listing.
- **autocannon.** Before the exporter starts: 5 s of \`GET /api/v1/w/{id}/health\` (ids rotating) at C connections against the same simulator process.
- **undici floor.** Right after autocannon: 5 s of the same route with undici's \`Pool.request()\` (C connections, C requests in flight, each answer parsed with \`body.json()\`, nothing else) in a child process (\`bench/undici-floor.mjs\`): what any exporter built on the prescribed HTTP client can reach on this machine.
- **undici paced.** Then 3 s of warm-up and 10 s of the same, paced at the exporter's nominal steady rate (released by one timer of 10 ms or more for all requests waiting) (every node's health per health interval plus its metadata per metadata interval): what undici alone costs per request at that rate, warm. The steady window's row divides the exporter's CPU in the window (all its work: polls, discovery, builds, scrapes) by the leader requests answered in it.
- **prom-client.** The snapshot families of the exporter's identity body (everything but its self-metrics) parsed into prom-client Gauges with the same names, HELP, labels and values in a fresh Registry; \`await registry.metrics()\` is timed three times (median shown).
- **Memory.** RSS from \`process.memoryUsage()\`; peak is VmHWM from /proc, reset at the start of the steady window (the lifetime peak, including the start-up burst, is used when larger).
- **Where the CPU goes.** After each size's measurements, the exporter once more against the same simulator (its counters reset), with the image's flags and \`--cpu-prof\`: the benchmark marks the first node poll and every node's first health answer (the simulator's counters read every 100 ms) and, at ${fmtInt(STEADY_TARGET.nodes)} nodes, a steady window like the judged one (from the end of the first metadata round, two health intervals, gzip scrapes every 15 s), then, after the first metadata round, rounds of 2 concurrent gzip scrapes (each scrape's start marked; the slowest three's time to first byte cut out of the profile), each mark with \`process.hrtime\` (the clock of V8's profiles) and each thread's CPU from /proc/PID/task. Threads by name (\`bench/lib/machine.mjs\`, \`classifyThreads\`): the main thread, V8's platform threads (\`DelayedTaskScheduler\` and the pool after it: parallel and concurrent GC, concurrent compilation), libuv's pool, the rest (worker threads, the profiler's sampler). The main thread's CPU is split by the main thread's profile: self time by kind of code within the window (\`bench/lib/cpu-profile.mjs\`: a sample counts for the function it is in, with the time to the next sample). The profiles stay in .bench-tmp/nSIZE/explain/ (\`node bench/profile-summary.mjs FILE\` for functions). \`--skip-explain\` leaves this run out.
- **Where the memory goes.** At the end of the steady window the exporter reads its /proc/self/smaps (resident kB by file and access: \`bench/lib/smaps.mjs\`), and once per run a bare node with the image's flags and allocator settings does the same 3 s after its start (\`bench/bare-node.mjs\`).
- **Fair polling.** Once per run (\`bench/fair.mjs\`), the exporter with its default budget flags (\`--leader.max-rps auto\`, \`--leader.max-concurrency 8\`, health every 30 s; only \`--web.listen-address\` and \`--log.level\` given) against a fresh simulator. Coverage: 20,000 nodes; from forking the exporter to the simulator having answered every node's \`/w/{id}/health\` with 200 (polled every 250 ms), with the rate auto chose (\`cribl_exporter_leader_rate_limit_requests_per_second\`). Leader-imposed limit: 3,000 nodes (they need about 100 requests/s) against a simulator with \`faults.rateLimit {rate: 40, burst: 40, retryAfter: seconds}\`; after 10 s the simulator's statistics are reset and read 60 s later: \`acceptedPerSecond\` over the limit, and \`share429\`.`;

/**
 * Verdicts of fair polling (issue 14, bench/fair.mjs): 20,000 nodes with the default flags covered within one health
 * interval, and a leader-imposed rate limit used to ≥ 90 % with < 2 % of requests answered 429.
 */
export function judgeFair(fair) {
  const out = [];
  const c = fair?.coverage;
  const coverageTarget = `${fmtInt(c?.nodes ?? 20_000)} nodes, default flags: every node polled within one health interval (${c?.healthIntervalS ?? 30} s)`;
  if (c?.coveredMs === undefined)
    out.push({
      target: coverageTarget,
      status: 'not measured',
      detail: fair?.error ?? (c ? `${fmtInt(c.answeredAtEnd)} of ${fmtInt(c.nodes)} answered within 120 s` : 'no run'),
    });
  else {
    const s = c.coveredMs / 1000;
    const detail =
      `${s.toFixed(1)} s from the exporter’s start (discovery included) to every node’s first health answer; ` +
      `auto rate ${fmtInt(c.rateRps)}/s`;
    out.push({
      target: coverageTarget,
      status: s <= c.healthIntervalS ? 'met' : 'NOT met',
      detail: s <= c.healthIntervalS ? detail : `${detail} (${over(s, c.healthIntervalS, ' s')})`,
    });
  }
  const l = fair?.limit;
  const limitTarget = 'leader-imposed limit: accepted share ≥ 90 % of the limit, < 2 % of requests answered 429';
  if (l?.acceptedPerSecond === undefined)
    out.push({ target: limitTarget, status: 'not measured', detail: fair?.error ?? 'no run' });
  else {
    const share = l.acceptedPerSecond / l.limitRps;
    const detail =
      `${(share * 100).toFixed(1)} % of ${l.limitRps}/s accepted (${l.acceptedPerSecond.toFixed(1)}/s), ` +
      `${(l.share429 * 100).toFixed(2)} % answered 429, over ${Math.round(l.measuredS)} s (${fmtInt(l.nodes)} nodes, ` +
      `rate in force at the end ${l.rateRps?.toFixed(1)}/s)`;
    out.push({ target: limitTarget, status: share >= 0.9 && l.share429 < 0.02 ? 'met' : 'NOT met', detail });
  }
  return out;
}

/** The whole BENCHMARKS.md. */
/** The profiled windows of a run, in order: each size's start-up burst, then the steady windows (bench/run.mjs, explainCpu). */
export function explainWindows(results) {
  const sorted = [...results].sort((a, b) => a.nodes - b.nodes);
  const out = [];
  for (const r of sorted) {
    const d = derive(r);
    const w = r.explain?.burst;
    if (w?.requests > 0) out.push({ label: `${r.label ?? sizeLabel(r.nodes)} burst`, w, undiciMs: d.undiciFloorCpuMs });
  }
  for (const r of sorted) {
    const d = derive(r);
    const w = r.explain?.steady;
    if (w?.requests > 0) out.push({ label: `${r.label ?? sizeLabel(r.nodes)} steady`, w, undiciMs: d.undiciPacedCpuMs });
  }
  return out;
}

/** Thread kinds of the profiled run's CPU (bench/lib/machine.mjs, classifyThreads), in the report's order. */
const THREAD_KINDS = [
  ['v8', "V8's platform threads (parallel and concurrent GC, concurrent compilation)"],
  ['libuv', "libuv's pool (zlib's deflate of the body)"],
  ['other', "other threads (the body worker from 12,000 nodes, V8's profiler's sampler)"],
];

/**
 * Where the CPU goes: the profiled run's windows as µs of CPU per leader request answered, by thread and, for the
 * main thread, by kind of code (its /proc CPU split by the profile's self time); undefined without a profiled run.
 */
function whereCpuGoes(results) {
  const windows = explainWindows(results);
  const failed = [...results]
    .sort((a, b) => a.nodes - b.nodes)
    .filter((r) => r.explain?.error)
    .map((r) => `- **${r.label ?? sizeLabel(r.nodes)}:** the profiled run failed (${r.explain.error}).`);
  if (windows.length === 0) return failed.length ? failed.join('\n') : undefined;
  const us = (ms, w) => (ms === undefined ? '–' : ((ms * 1000) / w.requests).toFixed(1));
  const cell = (ms, w, all) =>
    ms === undefined ? '–' : `${us(ms, w)} (${all > 0 ? ((100 * ms) / all).toFixed(0) : '0'} %)`;
  const total = (w) => Object.values(w.threadsMs ?? {}).reduce((a, b) => a + b, 0);
  const mainKind = (w, kind) => (w.main && w.main.busyMs > 0 ? (w.threadsMs.main * w.main.ms[kind]) / w.main.busyMs : undefined);
  const rows = [
    ['window: wall / leader requests answered', ...windows.map(({ w }) => `${fmtS(w.wallMs)} / ${fmtInt(w.requests)}`)],
    ['all threads, µs of CPU per request (profiled)', ...windows.map(({ w }) => us(total(w), w))],
    [
      "undici's request() alone, µs per request (the main run: unpaced for a burst, paced at the steady rate)",
      ...windows.map(({ undiciMs }) => (undiciMs === undefined ? '–' : (undiciMs * 1000).toFixed(1))),
    ],
    ['main thread (share of all threads)', ...windows.map(({ w }) => cell(w.threadsMs.main, w, total(w)))],
    ...CPU_KINDS.map(([kind, , what]) => [
      `… ${what}`,
      ...windows.map(({ w }) => cell(mainKind(w, kind), w, total(w))),
    ]).filter((row) => row.slice(1).some((c) => c !== '–' && !c.startsWith('0.0 '))),
    ...THREAD_KINDS.map(([kind, what]) => [what, ...windows.map(({ w }) => cell(w.threadsMs[kind], w, total(w)))]),
  ];
  const lines = [
    "After each size's measurements, the exporter runs once more against the same simulated leader under V8's CPU " +
      'profiler (`--cpu-prof`, the image\'s flags), and the benchmark cuts its profile at the start-up burst (from the first ' +
      "node poll to every node's first health answer) and, at " +
      `${fmtInt(STEADY_TARGET.nodes)} nodes, at a steady window like the one judged above. CPU by thread from /proc; the ` +
      "main thread's CPU split by the profile's self time by kind of code. Figures in µs of CPU per leader request " +
      'answered in the window, with the share of all threads in parentheses. The profiler adds CPU of its own, and the ' +
      "window is cut on the simulator's counters every 100 ms (the judged run's every 200 ms), so these totals differ " +
      'from the judged figures above: they say what those are made of.',
    '',
    table(['', ...windows.map((x) => x.label)], rows),
    '',
    ...failed,
  ];
  for (const { label, w, undiciMs } of windows) {
    const all = total(w);
    const own = mainKind(w, 'exporter');
    const gc = mainKind(w, 'gc') ?? 0;
    const v8 = w.threadsMs.v8 ?? 0;
    const socket = mainKind(w, 'socket');
    const undici = mainKind(w, 'undici');
    if (own === undefined || undiciMs === undefined) continue;
    const perReq = (ms) => (ms * 1000) / w.requests;
    const rest = all - own;
    lines.push(
      `- **${label}:** ${perReq(all).toFixed(1)} µs a request (profiled), against undici's ${(undiciMs * 1000).toFixed(1)} alone ` +
        `(${fmtRatio(perReq(all) / (undiciMs * 1000))}). The exporter's own code is ${perReq(own).toFixed(1)} µs ` +
        `(${((100 * own) / all).toFixed(0)} %); the main thread's garbage collection ${perReq(gc).toFixed(1)} µs, V8's ` +
        `platform threads (GC helpers, concurrent compilation) ${perReq(v8).toFixed(1)}, socket writes ` +
        `${perReq(socket ?? 0).toFixed(1)}, undici and its parser ${perReq(undici ?? 0).toFixed(1)}, Node.js's JavaScript ` +
        `${perReq(mainKind(w, 'node') ?? 0).toFixed(1)}. ` +
        `Everything but the exporter's own code comes to ${perReq(rest).toFixed(1)} µs, ${fmtRatio(perReq(rest) / (undiciMs * 1000))} undici alone.`,
    );
  }
  return lines.join('\n');
}

/** Short names of the CPU kinds, for the slowest scrapes' cells. */
const KIND_SHORT = Object.fromEntries(CPU_KINDS.map(([kind, short]) => [kind, short]));

/**
 * What the slowest scrapes of the profiled run waited for: per size, the run's gzip TTFB p50 / p99 and, for each of
 * the slowest, the main thread's busy time while it waited for its first byte, by kind; undefined without them.
 */
function slowScrapes(results) {
  const sized = [...results].sort((a, b) => a.nodes - b.nodes).filter((r) => r.explain?.scrapes?.slowest?.length);
  if (sized.length === 0) return undefined;
  const most = Math.max(...sized.map((r) => r.explain.scrapes.slowest.length));
  const slowCell = (x) => {
    if (!x) return '–';
    if (!x.main) return `${fmtMs(x.ttfbMs)} (no profile)`;
    const kinds = Object.entries(x.main.ms)
      .filter(([, ms]) => ms >= 0.5)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([k, ms]) => `${KIND_SHORT[k] ?? k} ${ms.toFixed(1)}`);
    return (
      `${fmtMs(x.ttfbMs)}: busy ${fmtMs(x.main.busyMs)}${kinds.length ? ` (${kinds.join(', ')})` : ''}, ` +
      `idle ${fmtMs(x.main.idleMs)}`
    );
  };
  const rows = [
    [
      'gzip TTFB p50 / p99 (profiled run; the judged run in the figures above)',
      ...sized.map((r) => `${fmtMs(r.explain.scrapes.ttfb.p50)} / ${fmtMs(r.explain.scrapes.ttfb.p99)}`),
    ],
    ...Array.from({ length: most }, (_, i) => [
      `slowest scrape ${i + 1}: TTFB; the main thread meanwhile, busy (ms by kind) and idle`,
      ...sized.map((r) => slowCell(r.explain.scrapes.slowest[i])),
    ]),
  ];
  return [
    "In the profiled run, after the first metadata round (at 50,000 nodes after its steady window too), rounds of 2 " +
      "concurrent gzip scrapes as in the judged run (without the bare server's rounds between them), each scrape's " +
      "start on the profile's clock. A scrape waits for nothing but the cached body (src/exposition/server.ts): its " +
      "first byte is late when the event loop is busy with something else, and the profile says with what while the " +
      'slowest waited; idle, the main thread was waiting in the event loop with nothing to do: the scrape was then in ' +
      "the kernel's or the client's hands (on this shared 2-core machine, waiting to be scheduled), which a bare " +
      "server's tail in the figures above shows too. Below 12,000 nodes builds run on the event loop (in slices of a " +
      'few ms), from there in the body worker.',
    '',
    table(['', ...sized.map((r) => r.label ?? sizeLabel(r.nodes))], rows),
  ].join('\n');
}

/** Resident memory kinds (bench/lib/smaps.mjs, rssByMapping keys) in the report's order, with what each is. */
const MAPPING_KINDS = [
  ['node x', "the node binary's code"],
  ['node r', "the node binary's read-only data (V8's start-up snapshot, ICU)"],
  ['node w', "the node binary's writable data"],
  ['[anon] w', "anonymous memory (V8's heaps, malloc's large blocks, thread stacks)"],
  ['[heap] w', "malloc's heap (brk)"],
];

/**
 * Where the memory goes: resident MB by mapping at the end of each size's steady window, beside a bare node with the
 * image's flags and allocator settings (bench/bare-node.mjs); undefined when the run did not record them.
 */
function whereMemoryGoes(results, bareNode) {
  const sized = [...results].sort((a, b) => a.nodes - b.nodes).filter((r) => r.steady?.mappings);
  if (sized.length === 0) return undefined;
  // Both report kinds of RESIDENT_FLOOR_KB or more (smaps.mjs, residentMb); runs before 2026-11-28 13:30 recorded
  // the bare node's every kind, cut here the same way.
  const floor = (maps) => Object.fromEntries(Object.entries(maps).filter(([, mb]) => mb >= RESIDENT_FLOOR_KB / 1024));
  const bare = bareNode?.mappings ? floor(bareNode.mappings) : undefined;
  const cols = [...(bare ? [{ label: 'bare node', maps: bare }] : [])];
  for (const r of sized) cols.push({ label: r.label ?? sizeLabel(r.nodes), maps: r.steady.mappings, r });
  const named = new Set(MAPPING_KINDS.map(([k]) => k));
  const sum = (maps, pred) => Object.entries(maps).reduce((a, [k, v]) => a + (pred(k) ? v : 0), 0);
  const fmt = (mb) => mb.toFixed(1);
  const rows = [
    ...MAPPING_KINDS.map(([k, what]) => [`${what} (\`${k}\`)`, ...cols.map((c) => fmt(c.maps[k] ?? 0))]),
    ['other files and libraries', ...cols.map((c) => fmt(sum(c.maps, (k) => !named.has(k))))],
    ['all mappings', ...cols.map((c) => fmt(sum(c.maps, () => true)))],
  ];
  const lines = [
    "Resident MB by mapping at the end of each size's steady window (`/proc/PID/smaps`; kinds under 0.25 MB left out), " +
      "beside a bare node on the same runtime with the image's flags and allocator settings, 3 s after its start " +
      '(`bench/bare-node.mjs`): what the runtime holds before any of the exporter is loaded.',
    '',
    table(['', ...cols.map((c) => c.label)], rows),
    '',
  ];
  for (const [n, limit] of RSS_TARGETS_17) {
    const c = cols.find((x) => x.r?.nodes === n);
    if (!c || !bare) continue;
    const d = derive(c.r);
    if (d.rss === undefined || Math.max(d.rss, d.peakRss ?? 0) / MB <= limit) continue;
    const binary = sum(c.maps, (k) => k.startsWith('node '));
    const bareBinary = sum(bare, (k) => k.startsWith('node '));
    const bareAll = sum(bare, () => true);
    const all = sum(c.maps, () => true);
    const mean = (d.rss / MB).toFixed(0);
    const peak = (Math.max(d.rss, d.peakRss ?? 0) / MB).toFixed(0);
    lines.push(
      `- **${c.label}, over its ${limit} MB (the window's mean ${mean} MB, peak ${peak} MB):** at the window's end, of ` +
        `${fmt(all)} MB resident, ${fmt(binary)} are the node binary's own pages ` +
        `(a bare node: ${fmt(bareBinary)}), and a bare node holds ${fmt(bareAll)} MB in all; the exporter adds ` +
        `${fmt(all - bareAll)} MB to the runtime: anonymous ${fmt((c.maps['[anon] w'] ?? 0) - (bare['[anon] w'] ?? 0))}, ` +
        `malloc's heap ${fmt((c.maps['[heap] w'] ?? 0) - (bare['[heap] w'] ?? 0))}, the binary's pages it touches ${fmt(binary - bareBinary)}.`,
    );
  }
  return lines.join('\n');
}

export function renderReport(run, { analysis } = {}) {
  const results = run.results ?? [];
  const largest = results.reduce((a, b) => (!a || b.nodes > a.nodes ? b : a), undefined);
  const m = run.machine;
  const parts = [];
  parts.push('# Benchmarks');
  parts.push('');
  parts.push(
    `Generated by \`${run.command}\` (\`bench/run.mjs\`) on ${run.date.slice(0, 10)} at ${run.date.slice(11, 16)} UTC; the run took ${Math.round(run.durationSeconds)} s. ` +
      'Re-run it to regenerate this file (it rewrites everything but the analysis, which lives in `bench/ANALYSIS.md`). A benchmark, not a test: no test asserts a time.',
  );
  parts.push('');
  if (run.code?.commit)
    parts.push(
      `**Code:** commit \`${run.code.commit}\`${run.code.dirtySrc ? ' with uncommitted changes in src/ (the benchmark builds dist/ from the working tree)' : ''}.`,
      '',
    );
  parts.push(
    `**Machine:** ${m.cpuModel}, ${m.cores} cores, ${(m.memoryBytes / 1024 ** 3).toFixed(1)} GiB RAM, ${m.os}, Node.js ${m.node}. ` +
      `Load average at start ${m.loadavg.map((x) => x.toFixed(2)).join(' ')}, at end ${m.loadavgEnd.map((x) => x.toFixed(2)).join(' ')}` +
      ' (the machine is shared: other processes’ CPU use during the steady window is in the figures table).',
  );
  parts.push('');
  parts.push(
    `**Sizes:** ${results.map((r) => `${fmtInt(r.nodes)} nodes`).join(', ')}; leader concurrency ${run.concurrency} for both the exporter and autocannon.`,
  );
  const image = [...Object.entries(run.imageEnv ?? {}).map(([k, v]) => `${k}=${v}`), ...(run.imageNodeFlags ?? [])];
  if (image.length > 0)
    parts.push('', `**Exporter settings, as the image runs it (Dockerfile):** ${image.map((x) => `\`${x}\``).join(' ')}`);
  const env = Object.entries(run.exporterEnv ?? {});
  if (env.length > 0)
    parts.push(
      '',
      `**Exporter environment (an experiment, not the defaults):** ${env.map(([k, v]) => `\`${k}=${v}\``).join(' ')}`,
    );
  if (run.failure) parts.push('', `**The run failed before finishing:** ${run.failure}`);
  parts.push('');
  if (largest) {
    parts.push(`## Targets (issue 7), judged at ${fmtInt(largest.nodes)} nodes`);
    parts.push('');
    parts.push(
      table(
        ['target', 'verdict'],
        judgeTargets(largest).map((v) => [
          v.target,
          v.status === 'met' ? `met: ${v.detail}` : `${v.status}: ${v.detail}`,
        ]),
      ),
    );
    parts.push('');
  }
  parts.push('## Targets (issue 17)');
  parts.push('');
  parts.push(
    table(
      ['target', 'verdict'],
      judgeIssue17(results).map((v) => [v.target, v.status === 'see' ? v.detail : `${v.status}: ${v.detail}`]),
    ),
  );
  if (explainWindows(results).length > 0 || results.some((r) => r.steady?.mappings))
    parts.push(
      '',
      'Why each CPU, scrape and memory target reads as it does, from this run: “Where the CPU goes” (a profiled run), “What the slowest scrapes waited for” and “Where the memory goes” below.',
    );
  parts.push('');
  if (run.fair) {
    parts.push('## Fair polling (issue 14), default budget flags');
    parts.push('');
    parts.push(
      table(
        ['target', 'verdict'],
        judgeFair(run.fair).map((v) => [v.target, v.status === 'met' ? `met: ${v.detail}` : `${v.status}: ${v.detail}`]),
      ),
    );
    parts.push('');
  }
  if (largest) {
    parts.push('## Figures');
    parts.push('');
    parts.push(figures(results));
    parts.push('');
    parts.push('## Ratios, measured in the same run');
    parts.push('');
    parts.push(ratios(results));
    parts.push('');
    parts.push('## Sizing');
    parts.push('');
    parts.push(sizing(results));
    parts.push('');
  }
  const cpu = whereCpuGoes(results);
  if (cpu) parts.push('## Where the CPU goes (a profiled run: why the CPU targets are or are not met)', '', cpu, '');
  const waited = slowScrapes(results);
  if (waited) parts.push('## What the slowest scrapes waited for (the profiled run)', '', waited, '');
  const memory = whereMemoryGoes(results, run.bareNode);
  if (memory) parts.push('## Where the memory goes (resident memory by mapping)', '', memory, '');
  if (analysis) {
    parts.push(analysis.trim());
    parts.push('');
  }
  parts.push('## How each figure is measured');
  parts.push('');
  parts.push(METHOD);
  parts.push('');
  return parts.join('\n');
}
