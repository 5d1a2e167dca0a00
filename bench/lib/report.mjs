// BENCHMARKS.md from the raw results of bench/run.mjs: what was measured last, how, and what it means. Targets with a
// verdict each, figures per size, ratios measured in the same run, sizing (from bench/lib/sizing.mjs, the object
// written as bench/sizing.json), the leader-imposed limit, the leader's cost per discovery, the status page, the
// profiled run's tables while they fit the size budget, the kept sections (bench/lib/kept.mjs) and how to reproduce
// each figure. Pure: results in, text out.

import { CPU_KINDS } from './cpu-profile.mjs';
import { keptBlock, MECHANISMS_PLACEHOLDER } from './kept.mjs';
import { RESIDENT_FLOOR_KB } from './smaps.mjs';
import { sizingOf } from './sizing.mjs';
import { fmtInt, fmtMiB, fmtMs, fmtRatio, fmtS, sizeLabel } from './stats.mjs';

const MB = 1e6;

/** BENCHMARKS.md's size budget (issue 41: ≤ 30 KB); the profiled run's tables go first when it is tight. */
export const REPORT_BUDGET_BYTES = 30 * 1024;
/** Room kept free under the budget for the hand-written Mechanisms section to grow between runs. */
export const REPORT_RESERVE_BYTES = 1536;

/** Issue 41: the status page (GET /) rendered in under 150 ms at 10,000 nodes. */
export const STATUS_PAGE_TARGET = { nodes: 10_000, ms: 150 };

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
    target: 'against Prometheus + blackbox_exporter: exporter CPU ≤ 1/5 of blackbox’s at 2k and 10k, memory with Prometheus below theirs',
    status: 'see',
    detail: 'see “Against the alternative” (`npm run bench:alternative`)',
  });
  return out;
}

/**
 * Verdicts of fair polling: 20,000 nodes with the default flags covered within one health interval (issue 14), and
 * the leader-imposed limit (issue 40): over ANY window of `windowS` seconds of the steady part, ≥ 90 % of what the
 * leader allows accepted, and < 2 % of requests answered 429.
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
    const detail = `${s.toFixed(1)} s from the exporter’s start to every node’s first health answer; auto rate ${fmtInt(c.rateRps)}/s`;
    out.push({
      target: coverageTarget,
      status: s <= c.healthIntervalS ? 'met' : 'NOT met',
      detail: s <= c.healthIntervalS ? detail : `${detail} (${over(s, c.healthIntervalS, ' s')})`,
    });
  }
  const l = fair?.limit;
  const w = l?.windowS ?? 20;
  const limitTarget = `leader-imposed limit: ≥ 90 % of what the leader allows over any ${w} s window of the steady part, < 2 % answered 429`;
  const f = l?.figures;
  if (!f) {
    const whole =
      l?.acceptedPerSecond !== undefined
        ? `; over the whole ${Math.round(l.measuredS)} s: ${((100 * l.acceptedPerSecond) / l.limitRps).toFixed(1)} % of ${l.limitRps}/s, ${(l.share429 * 100).toFixed(2)} % answered 429`
        : '';
    out.push({
      target: limitTarget,
      status: 'not measured',
      detail: l ? `no per-second series in this run${whole}` : (fair?.error ?? 'no run'),
    });
  } else {
    const ok = f.worstWindow.share >= 0.9 && f.share429 < 0.02;
    out.push({
      target: limitTarget,
      status: ok ? 'met' : 'NOT met',
      detail:
        `worst ${w} s window ${(f.worstWindow.share * 100).toFixed(1)} % of ${l.limitRps}/s, ` +
        `${(f.share429 * 100).toFixed(2)} % answered 429; ${f.acceptedPerSecond.toFixed(1)}/s over ${f.seconds} s`,
    });
  }
  return out;
}

/** Issue 41: the status page's full response at STATUS_PAGE_TARGET.nodes, p99 under the target. */
export function judgeStatusPage(results) {
  const { nodes, ms } = STATUS_PAGE_TARGET;
  const target = `status page (GET /) at ${fmtInt(nodes)} nodes: rendered in < ${ms} ms (full response, p99)`;
  const r = results.find((x) => x.nodes === nodes);
  if (!r) return { target, status: 'not run', detail: `no ${sizeLabel(nodes)} size in this run` };
  const t = r.statusPage?.total;
  if (t?.p99 === undefined)
    return { target, status: 'not measured', detail: r.statusPage?.error ?? 'no status page figure in this run' };
  const detail = `p50 ${fmtMs(t.p50)}, p99 ${fmtMs(t.p99)} over ${t.n} requests`;
  return t.p99 < ms
    ? { target, status: 'met', detail }
    : { target, status: 'NOT met', detail: `${detail} (${fmtRatio(t.p99 / ms)} the target)` };
}

function table(head, rows) {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** Cells of one row; a figure the run lacks (a failed or partial run) shows as n/a. */
function cells(results, ds, f) {
  return results.map((r, i) => {
    try {
      const v = f(r, ds[i]);
      return v === undefined ? 'n/a' : v;
    } catch {
      return 'n/a';
    }
  });
}

const mb = (bytes) => (bytes === undefined ? 'n/a' : `${(bytes / MB).toFixed(0)}`);
const pair = (a, b, unit = '') => `${a} / ${b}${unit}`;
const ms2 = (s) => (s ? `${fmtMs(s.p50).replace(' ms', '')} / ${fmtMs(s.p99)}` : 'n/a');

/**
 * The Edge-heavy sizes (bench/scale.mjs, issue 51) side by side: the simulator's capacity and cost, then the
 * exporter on its default flags.
 */
export function scaleSection(scale) {
  if (!scale?.length) return undefined;
  const runs = [...scale].sort((a, b) => a.nodes - b.nodes);
  const none = runs.map(() => undefined);
  const c = (v, d = 0) => (v === undefined || Number.isNaN(v) ? undefined : v.toFixed(d));
  const rps = (x) => x && `${fmtInt(Math.round(x.rps))} (${c(x.simCpuCores, 2)})`;
  const median = (xs) => (xs?.length ? [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] : undefined);
  const row = (name, f) => [name, ...cells(runs, none, f)];
  const rows = [
    row('fleet: Edge / Stream nodes, groups', (r) => r.truth && `${fmtInt(r.truth.products.edge.nodes)} / ${fmtInt(r.truth.products.stream.nodes)}, ${r.truth.groups}`),
    row('disconnected / silent / drifted / failed upgrades', (r) => {
      const p = r.truth?.products;
      const s = (k) => fmtInt(p.edge[k] + p.stream[k]);
      return p && `${s('disconnected')} / ${s('silent')} / ${s('drifted')} / ${s('failedUpgrades')}`;
    }),
    row('simulator: start s, RSS MB at start / end', (r) => r.simulator && `${c(r.simulator.startMs / 1000, 1)}, ${mb(r.simulator.rssAtStart)} / ${mb(r.simulator.rssEnd ?? r.simulator.rssAfterCapacity)}`),
    row('simulator alone, req/s (its CPU, cores): /w/{id}/health', (r) => rps(r.simulator?.health)),
    row('… /w/{id}/edge/metadata', (r) => rps(r.simulator?.metadata)),
    row('… listing pages of 1,000', (r) => rps(r.simulator?.listingPage)),
    row('exporter: first discovery, s (its requests)', (r) => r.firstDiscovery && `${c(r.firstDiscovery.atS, 1)} (${fmtInt(r.firstDiscovery.requests ?? 0)})`),
    row('first complete coverage (every node’s liveness known), s', (r) => r.coverage && (r.coverage.atS === undefined ? `not reached (${fmtInt(r.coverage.connectedAtDeadline ?? 0)} nodes)` : `${c(r.coverage.atS, 1)} (${r.coverage.by})`)),
    row('steady CPU, cores (window of 2 discoveries)', (r) => c(r.steady?.exporterCpuCores, 3)),
    row('RSS mean / max / peak, MB', (r) => r.steady && `${mb(r.steady.rss)} / ${mb(r.steady.rssMax)} / ${mb(r.steady.peakRss)}`),
    row('leader requests/s (health/s)', (r) => r.steady && `${c(r.steady.leaderRps, 1)} (${c(r.steady.healthPerS, 1)})`),
    row('leader requests per discovery (listing pages + others)', (r) => c(r.steady?.perDiscovery)),
    row('series in total / per node', (r) => r.steady?.series === undefined ? undefined : `${fmtInt(r.steady.series)} / ${c(r.steady.series / r.nodes, 1)}`),
    row('scrape: gzip MB, time to first byte p50', (r) => r.steady?.gzipBytes === undefined ? undefined : `${mb(r.steady.gzipBytes)}, ${fmtMs(median(r.steady.scrapeTtfbMs))}`),
    row('simulator CPU while the exporter ran, cores', (r) => c(r.simulator?.cpuWithExporterCores, 3)),
  ];
  const errors = runs.filter((r) => r.error).map((r) => `${r.label}: ${r.error}`);
  return [
    'The simulator with `examples/scenarios/edge-scale.yaml` at each size, the exporter on its default flags ' +
      '(`bench/scale.mjs`); the steady window is two discovery intervals from first complete coverage.',
    '',
    table(['', ...runs.map((r) => r.label)], rows),
    ...(errors.length ? ['', `Failed: ${errors.join('; ')}`] : []),
  ].join('\n');
}

/** The figures of every size side by side. */
function figures(results) {
  const timer = results.find((r) => r.steady)?.steady.gapTimerMs ?? 1;
  const ds = results.map(derive);
  const col = (f) => cells(results, ds, f);
  const scrape = (enc, q) => (r) => {
    const s = r.scrape?.[enc];
    return s ? `${ms2(s.exporter[q])} (bare ${ms2(s.bare[q]).replace(' ms', '')})` : undefined;
  };
  const quiet = (key, runs) => (r, d) => {
    const b = r[key];
    return b
      ? `${fmtMs(b.activeMs, 0).replace(' ms', '')} / ${fmtMs(b.wallMs, 0).replace(' ms', '')} / ${fmtMs(b.cpuMs, 0)}; gap ${fmtMs(b.maxGapMs)} (${d[runs]})`
      : undefined;
  };
  const rows = [
    ['time to every node’s first health answer / all of them in /metrics', ...col((r, d) => pair(fmtS(d.coverageMs, 1), fmtS(d.visibleMs, 1)))],
    [
      'that burst: leader req/s; exporter cores, event-loop use',
      ...col((r) =>
        r.coverage?.rate !== undefined
          ? `${fmtInt(r.coverage.rate)}; ${r.coverage.exporterCpuShare.toFixed(2)}, ${(r.coverage.exporterEluShare * 100).toFixed(0)} %`
          : undefined,
      ),
    ],
    [
      'listing per discovery: pages + groups (per 500 nodes)',
      ...col((r, d) => (r.discovery ? `${r.discovery.counts.listing} + ${r.discovery.counts.groups} (${d.listingPer500.toFixed(2)})` : undefined)),
    ],
    [
      'per discovery: leader /health + group versions + git settings (first / steady)',
      ...col((r, d) => {
        const show = (x) => (x ? `${x.health} + ${x.versions} + ${x.git}` : 'n/a');
        return d.extraPerDiscovery ? `${show(d.extraPerDiscovery)} / ${show(d.extraSteady)}` : undefined;
      }),
    ],
    ['health requests per node per interval (steady)', ...col((r, d) => d.healthPerNode?.toFixed(3))],
    [
      'metadata requests: steady window / per node since start',
      ...col((r) => `${fmtInt(r.steady?.metadataRequests)} / ${r.steady.metadataPerNodeSinceStart.toFixed(3)}`),
    ],
    [
      `last health cycle (target ${results[0]?.intervals?.healthS ?? 30} s)`,
      ...col((r) =>
        r.steady?.healthCycleSeconds !== undefined
          ? `${r.steady.healthCycleSeconds.toFixed(1)} s${r.steady.healthCycleOverrun ? ' (overrun)' : ''}`
          : undefined,
      ),
    ],
    ['series (per node)', ...col((r, d) => (d.series ? `${fmtInt(d.series)} (${d.seriesPerNode.toFixed(1)})` : undefined))],
    [
      'body identity / gzip (bytes per series)',
      ...col((r, d) =>
        d.identityBytes !== undefined
          ? `${fmtMiB(d.identityBytes).replace(' MiB', '')} / ${fmtMiB(d.gzipBytes)} (${d.bytesPerSeries.toFixed(0)} / ${d.gzipBytesPerSeries.toFixed(1)})`
          : undefined,
      ),
    ],
    ['usual build, quiet (median): loop / wall / CPU; longest gap (builds)', ...col(quiet('rebuild', 'rebuildRuns'))],
    ['full render, quiet (median): loop / wall / CPU; longest gap (renders)', ...col(quiet('rebuildFull', 'rebuildFullRuns'))],
    [
      `builds while polling: count, mean interval, longest wall, longest gap (${timer} ms timer)`,
      ...col((r, d) =>
        d.insituBuilds
          ? `${d.insituBuilds}, ${fmtS(d.meanBuildIntervalMs, 1)}, ${fmtMs(d.insituBuildWallMaxMs, 0)}, ${fmtMs(d.insituBuildMaxGapMs)}${reusedNote(r.steady.builds)}`
          : 'none completed',
      ),
    ],
    [`longest event-loop gap, steady window (any cause)`, ...col((r) => fmtMs(r.steady?.loopMaxGapMs))],
    ['scrape identity TTFB p50 / p99', ...col(scrape('identity', 'ttfb'))],
    ['scrape identity total p50 / p99', ...col(scrape('identity', 'total'))],
    ['scrape gzip TTFB p50 / p99', ...col(scrape('gzip', 'ttfb'))],
    ['scrape gzip total p50 / p99', ...col(scrape('gzip', 'total'))],
    [
      'longest event-loop gap while serving identity / gzip',
      ...col((r) => (r.scrape ? pair(fmtMs(r.scrape.identity?.loopMaxGapMs), fmtMs(r.scrape.gzip?.loopMaxGapMs)) : undefined)),
    ],
    [
      'status page (GET /) full response p50 / p99; event-loop time p50 / p99',
      ...col((r) => (r.statusPage?.total ? `${ms2(r.statusPage.total)}; ${ms2(r.statusPage.mainMs)}` : undefined)),
    ],
    [
      'RSS steady (window min–max) / peak, MB',
      ...col((r, d) =>
        d.rss !== undefined
          ? `${mb(d.rss)}${d.rssRange ? ` (${mb(d.rssRange[0])}–${mb(d.rssRange[1])})` : ''} / ${mb(d.peakRss)}`
          : undefined,
      ),
    ],
    [
      'V8 heap used / total, ArrayBuffers (MB)',
      ...col((r) =>
        r.steady?.heapTotal !== undefined ? `${mb(r.steady.heapUsed)} / ${mb(r.steady.heapTotal)}, ${mb(r.steady.arrayBuffers)}` : undefined,
      ),
    ],
    [
      'exporter CPU, steady window: cores / event-loop use',
      ...col((r) => (r.steady ? `${r.steady.exporterCpuCores.toFixed(3)} / ${(r.steady.exporterElu * 100).toFixed(1)} %` : undefined)),
    ],
    [
      'exporter CPU, first metadata round (cores; health + metadata req/s)',
      ...col((r) => {
        const f = r.firstMetadataRound;
        return f
          ? `${f.exporterCpuCores.toFixed(3)} (${fmtInt((f.healthRequests * 1000) / f.wallMs)} + ${fmtInt((f.metadataRequests * 1000) / f.wallMs)})`
          : undefined;
      }),
    ],
    [
      'other processes, steady window (cores busy)',
      ...col((r) =>
        r.steady
          ? Math.max(0, r.steady.machineBusyCores - r.steady.exporterCpuCores - r.steady.simCpuCores - (r.steady.benchCpuCores ?? 0)).toFixed(2)
          : undefined,
      ),
    ],
  ];
  return table(['', ...results.map((r) => sizeLabel(r.nodes))], rows);
}

/** ", reused runs R of T" where the engine reports runs (bench/exporter.mjs: optional). */
function reusedNote(builds) {
  const withRuns = (builds ?? []).filter((b) => typeof b.runs === 'number' && typeof b.reusedRuns === 'number');
  if (withRuns.length === 0) return '';
  const runs = withRuns.reduce((a, b) => a + b.runs, 0);
  const reused = withRuns.reduce((a, b) => a + b.reusedRuns, 0);
  return `, reused runs ${fmtInt(reused)} of ${fmtInt(runs)}`;
}

function ratios(results) {
  const ds = results.map(derive);
  const col = (f) => cells(results, ds, f);
  const scr = (enc) => (r, d) =>
    d.ratioP50(enc) !== undefined ? `${fmtRatio(d.ratioP50(enc))} / ${fmtRatio(d.ratioP99(enc))}` : undefined;
  const rows = [
    ['/metrics identity total vs bare node:http, same bytes (p50 / p99)', ...col(scr('identity'))],
    ['/metrics gzip total vs bare node:http, same bytes (p50 / p99)', ...col(scr('gzip'))],
    [
      'burst leader req/s vs autocannon (same route, same concurrency)',
      ...col((r, d) => (d.throughputShare !== undefined ? `${(d.throughputShare * 100).toFixed(0)} % of ${fmtInt(d.autocannonRps)}` : undefined)),
    ],
    [
      "undici's request() alone: req/s, ms CPU per request; the exporter's share of its rate",
      ...col((r, d) =>
        d.undiciFloorRps !== undefined
          ? `${fmtInt(d.undiciFloorRps)}, ${d.undiciFloorCpuMs.toFixed(3)}; ${(d.floorKept * 100).toFixed(0)} %`
          : undefined,
      ),
    ],
    [
      'burst: exporter CPU per leader request vs undici alone (ms)',
      ...col((r, d) =>
        d.cpuMsPerRequest !== undefined && d.undiciFloorCpuMs !== undefined
          ? `${d.cpuMsPerRequest.toFixed(3)} vs ${d.undiciFloorCpuMs.toFixed(3)} = ${fmtRatio(d.cpuMsPerRequest / d.undiciFloorCpuMs)}`
          : undefined,
      ),
    ],
    [
      'steady: exporter CPU per leader request (all its work) vs undici paced at that rate (ms)',
      ...col((r, d) =>
        d.steadyCpuMsPerRequest !== undefined && d.undiciPacedCpuMs !== undefined
          ? `${d.steadyCpuMsPerRequest.toFixed(3)} vs ${d.undiciPacedCpuMs.toFixed(3)} = ${fmtRatio(d.steadyCpuMsPerRequest / d.undiciPacedCpuMs)}`
          : undefined,
      ),
    ],
    [
      'prom-client registry.metrics() on the same series: wall per call; vs our full render, vs our gzip TTFB p50',
      ...col((r, d) =>
        d.promClientWallMs !== undefined
          ? `${fmtMs(d.promClientWallMs, 0)}; ${fmtRatio(d.promClientVsRebuild, 1)}, ${fmtRatio(d.promClientVsTtfb, 0)} slower`
          : undefined,
      ),
    ],
    ['prom-client RSS holding the series', ...col((r) => (r.promClient ? `${mb(r.promClient.rssFilled)} MB` : undefined))],
  ];
  return table(['', ...results.map((r) => sizeLabel(r.nodes))], rows);
}

/** The sizing table (bench/sizing.json's object, rendered). */
export function sizingSection(sizing) {
  if (!sizing.sizes.length) return 'No size of this run has a steady window: no sizing figures.';
  const i = sizing.intervals;
  const rows = sizing.sizes.map((s) => [
    `${fmtInt(s.nodes)} nodes`,
    `${s.cpuCores.toFixed(3)}${s.firstMinutesCpuCores !== undefined ? ` (${s.firstMinutesCpuCores.toFixed(3)})` : ''}`,
    `${mb(s.rssBytes)} / ${mb(s.peakBytes)} MB`,
    `${s.requests.cpu}, ${s.requests.memory}`,
    s.limits.memory,
  ]);
  rows.push([
    `above ${fmtInt(sizing.shardAbove)}`,
    'shard: `--shard.total N`, deploy/kubernetes/sharded/; size each shard by the rows above',
    '',
    '',
    '',
  ]);
  return [
    table(['fleet up to', 'CPU steady (first minutes), cores', 'RSS steady / peak', 'requests: cpu, memory', 'limits: memory'], rows),
    '',
    `Steady: two health intervals once every node's first metadata fetch is done${i ? ` (health every ${i.healthS} s, discovery every ${i.discoveryS} s, metadata every ${i.metadataS / 60} min)` : ''}, Prometheus scraping gzip every 15 s; ` +
      'the first minutes, while that first fetch is spread over the health polls, in parentheses. Peak includes the start-up burst. ' +
      `Requests: steady CPU × ${sizing.rules.cpuHeadroom}, steady RSS × ${sizing.rules.memoryHeadroom}; memory limit: peak × ${sizing.rules.limitHeadroom}, at least ${sizing.rules.limitMinMi}Mi. ` +
      `No CPU limit is needed (throttling stretches the health cycle); where one is required, at least ${sizing.rules.cpuLimitMin} core. ` +
      'The same figures are in `bench/sizing.json`, which deploy/kubernetes/ and docs/deploy.md are checked against (test/deploy/sizing.test.ts).',
  ].join('\n');
}

/** Issue 40: the accepted rate against a leader-imposed limit, by window, and its per-second series. */
function rateLimitSection(l) {
  if (!l) return undefined;
  const head =
    `${fmtInt(l.nodes)} nodes (they need about twice the limit), default budget flags, against a leader allowing ${l.limitRps} requests/s ` +
    `(burst ${l.burst ?? 'n/a'}) and answering 429 with ${l.retryAfterS ? `\`Retry-After: ${l.retryAfterS}\`` : "the simulator's own Retry-After"}; ${l.warmupS ?? 'n/a'} s of warm-up, then ${Math.round(l.measuredS)} s measured.`;
  const f = l.figures;
  if (!f) return `${head} This run has no per-second series.`;
  const rows = f.windows.map((w) => [
    `${w.fromS}–${w.fromS + l.windowS} s`,
    w.acceptedPerSecond.toFixed(1),
    `${(w.share * 100).toFixed(1)} %`,
    `${(w.share429 * 100).toFixed(2)} %`,
  ]);
  rows.push([
    `worst ${l.windowS} s (from ${f.worstWindow.fromS} s)`,
    (f.worstWindow.accepted / l.windowS).toFixed(1),
    `${(f.worstWindow.share * 100).toFixed(1)} %`,
    '',
  ]);
  const last = l.scrapes ?? [];
  const exporterSays = last.length
    ? ` The exporter meanwhile (${last.length} scrapes): \`cribl_leader_up\` ${[...new Set(last.map((s) => s.leaderUp))].join('/')}, overrun flag ${[...new Set(last.map((s) => s.overrun))].join('/')}, rate in force at the end ${last.at(-1).rateRps?.toFixed(1) ?? 'n/a'}/s${l.proxy ? `; requests that reached the leader within ${l.retryAfterS} s of a 429 (the whole run, those already on their way included): ${l.proxy.violations}` : ''}.`
    : '';
  return [
    head,
    '',
    table(['window', 'accepted/s', 'of the limit', 'answered 429'], rows),
    '',
    `Accepted per second: ${l.series.join(' ')}.${exporterSays}`,
  ].join('\n');
}

/** Issues 39 and 48: leader requests per discovery interval by endpoint, against the runs before each. */
function leaderCostSection(c) {
  if (!c) return 'Not measured in this run: `npm run bench -- --only leader-cost --out -`.';
  if (c.error) return `The run failed: ${c.error}`;
  const v = (x) => (x === undefined ? 'n/a' : Number.isInteger(x) ? fmtInt(x) : x.toFixed(1));
  const before = c.before?.endpoints ?? {};
  // Issue 48's baseline (before the throughput collector), a column of its own when the run has it.
  const bt = c.beforeThroughput;
  const rows = [...c.endpoints]
    .sort((a, b) => Number(a.perNode) - Number(b.perNode) || a.endpoint.localeCompare(b.endpoint))
    .map((e) => [
      `\`${e.endpoint}\`${e.perNode ? ' (per node)' : ''}`,
      e.perNode ? '' : v(before[e.endpoint] ?? 0),
      ...(bt ? [e.perNode ? '' : v(bt.endpoints[e.endpoint] ?? 0)] : []),
      v(e.simulator),
      v(e.exporter),
    ]);
  const allowed = 1 + 2 * c.listedGroups + 2;
  // Issue 39's allowance covers the collectors up to it: the throughput collector's routes are judged by issue 48's.
  const later = new Set(bt?.routes ?? []);
  const upTo39 = c.perDiscovery - c.endpoints.filter((e) => later.has(e.endpoint)).reduce((a, e) => a + e.simulator, 0);
  const more = c.before ? upTo39 - c.before.perDiscovery : undefined;
  rows.push([
    '**per discovery (every route but the per-node ones)**',
    c.before ? `**${v(c.before.perDiscovery)}**` : '',
    ...(bt ? [`**${v(bt.perDiscovery)}**`] : []),
    `**${v(c.perDiscovery)}**`,
    '',
  ]);
  const moreThroughput = bt ? c.perDiscovery - bt.perDiscovery : undefined;
  const verdict48 =
    moreThroughput === undefined
      ? ''
      : ` Issue 48 allows ${bt.allowed} more than before the throughput collector (${bt.allowedPerNode} with ` +
        `--throughput.per-node): ${v(moreThroughput)} more than ${bt.commit}, ${moreThroughput <= bt.allowed ? 'within' : 'OVER'}.`;
  const verdict =
    more === undefined
      ? ''
      : ` This run: ${v(more)} more than before (${c.before.commit})${later.size ? " (without the throughput collector's)" : ''}, ${more <= allowed ? 'within' : 'OVER'} the allowance. ` +
        'The licence collector adds 2 requests an hour (--license.interval), outside this window.';
  return [
    `${fmtInt(c.nodes)} nodes, ${c.listedGroups} groups listed (simulator flags \`${(c.simArgs ?? []).join(' ')}\`), the exporter's default flags; ${c.intervals} discovery intervals of ${c.discoveryS} s, counted by the simulator and by \`cribl_exporter_leader_requests_total{endpoint}\`, divided by ${c.intervals}. ` +
      `Issue 39 allows at most 1 + 2 × groups + 2 = ${allowed} more per interval than before the data-flow collectors.${verdict}${verdict48}`,
    '',
    table(
      [
        'endpoint',
        `before (${c.before?.commit ?? 'n/a'})`,
        ...(bt ? [`before throughput (${bt.commit})`] : []),
        'per discovery interval (simulator)',
        '(exporter)',
      ],
      rows,
    ),
  ].join('\n');
}

/** The profiled windows of a run, in order: each size's start-up burst, then the steady windows (bench/run.mjs, explainCpu). */
export function explainWindows(results) {
  const sorted = [...results].sort((a, b) => a.nodes - b.nodes);
  const out = [];
  for (const r of sorted) {
    const w = r.explain?.burst;
    if (w?.requests > 0) out.push({ label: `${r.label ?? sizeLabel(r.nodes)} burst`, w, undiciMs: derive(r).undiciFloorCpuMs });
  }
  for (const r of sorted) {
    const w = r.explain?.steady;
    if (w?.requests > 0) out.push({ label: `${r.label ?? sizeLabel(r.nodes)} steady`, w, undiciMs: derive(r).undiciPacedCpuMs });
  }
  return out;
}

/** Thread kinds of the profiled run's CPU (bench/lib/machine.mjs, classifyThreads), in the report's order. */
const THREAD_KINDS = [
  ['v8', "V8's platform threads (GC helpers, compilation)"],
  ['libuv', "libuv's pool (zlib)"],
  ['other', 'other threads (body worker, profiler)'],
];

/** Where the CPU goes: the profiled run's windows as µs of CPU per leader request, by thread and kind of code. */
function whereCpuGoes(results) {
  const windows = explainWindows(results);
  const failed = [...results]
    .sort((a, b) => a.nodes - b.nodes)
    .filter((r) => r.explain?.error)
    .map((r) => `- **${r.label ?? sizeLabel(r.nodes)}:** the profiled run failed (${r.explain.error}).`);
  if (windows.length === 0) return failed.length ? failed.join('\n') : undefined;
  const us = (ms, w) => (ms === undefined ? '–' : ((ms * 1000) / w.requests).toFixed(1));
  const cell = (ms, w, all) => (ms === undefined ? '–' : `${us(ms, w)} (${all > 0 ? ((100 * ms) / all).toFixed(0) : '0'} %)`);
  const total = (w) => Object.values(w.threadsMs ?? {}).reduce((a, b) => a + b, 0);
  const mainKind = (w, kind) => (w.main && w.main.busyMs > 0 ? (w.threadsMs.main * w.main.ms[kind]) / w.main.busyMs : undefined);
  const rows = [
    ['window: wall / leader requests', ...windows.map(({ w }) => `${fmtS(w.wallMs)} / ${fmtInt(w.requests)}`)],
    ['all threads, µs per request (profiled)', ...windows.map(({ w }) => us(total(w), w))],
    ["undici's request() alone, µs per request", ...windows.map(({ undiciMs }) => (undiciMs === undefined ? '–' : (undiciMs * 1000).toFixed(1)))],
    ['main thread', ...windows.map(({ w }) => cell(w.threadsMs.main, w, total(w)))],
    ...CPU_KINDS.map(([kind, short]) => [`… ${short}`, ...windows.map(({ w }) => cell(mainKind(w, kind), w, total(w)))]).filter((row) =>
      row.slice(1).some((c) => c !== '–' && !c.startsWith('0.0 ')),
    ),
    ...THREAD_KINDS.map(([kind, what]) => [what, ...windows.map(({ w }) => cell(w.threadsMs[kind], w, total(w)))]),
  ];
  return [
    "The exporter once more per size under V8's CPU profiler, cut at the start-up burst (first node poll → every node's first health answer) " +
      `and, at ${fmtInt(STEADY_TARGET.nodes)} nodes, a steady window: µs of CPU per leader request (share of all threads). ` +
      "Main thread split by the profile's self time by kind of code; the profiler adds CPU of its own.",
    '',
    table(['', ...windows.map((x) => x.label)], rows),
    ...(failed.length ? ['', ...failed] : []),
  ].join('\n');
}

/** Short names of the CPU kinds, for the slowest scrapes' cells. */
const KIND_SHORT = Object.fromEntries(CPU_KINDS.map(([kind, short]) => [kind, short]));

/** What the slowest scrapes of the profiled run waited for: the main thread's busy time by kind, and idle time. */
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
      .slice(0, 2)
      .map(([k, ms]) => `${KIND_SHORT[k] ?? k} ${ms.toFixed(1)}`);
    return `${fmtMs(x.ttfbMs)}: busy ${fmtMs(x.main.busyMs)}${kinds.length ? ` (${kinds.join(', ')})` : ''}, idle ${fmtMs(x.main.idleMs)}`;
  };
  const rows = [
    ['gzip TTFB p50 / p99 (profiled run)', ...sized.map((r) => ms2(r.explain.scrapes.ttfb))],
    ...Array.from({ length: most }, (_, i) => [
      `slowest ${i + 1}: TTFB; main thread busy (by kind) and idle`,
      ...sized.map((r) => slowCell(r.explain.scrapes.slowest[i])),
    ]),
  ];
  return [
    "Rounds of 2 concurrent gzip scrapes in the profiled run; for the slowest, what the main thread did while they waited for their first byte (idle: the scrape was in the kernel's or the client's hands).",
    '',
    table(['', ...sized.map((r) => r.label ?? sizeLabel(r.nodes))], rows),
  ].join('\n');
}

/** Resident memory kinds (bench/lib/smaps.mjs) in the report's order. */
const MAPPING_KINDS = [
  ['node x', "node's code"],
  ['node r', "node's read-only data"],
  ['[anon] w', "anonymous (V8's heaps, malloc's large blocks, stacks)"],
  ['[heap] w', "malloc's heap"],
];

/** Where the memory goes: resident MB by mapping at the end of each size's steady window, beside a bare node. */
function whereMemoryGoes(results, bareNode) {
  const sized = [...results].sort((a, b) => a.nodes - b.nodes).filter((r) => r.steady?.mappings);
  if (sized.length === 0) return undefined;
  const floor = (maps) => Object.fromEntries(Object.entries(maps).filter(([, v]) => v >= RESIDENT_FLOOR_KB / 1024));
  const bare = bareNode?.mappings ? floor(bareNode.mappings) : undefined;
  const cols = [...(bare ? [{ label: 'bare node', maps: bare }] : [])];
  for (const r of sized) cols.push({ label: r.label ?? sizeLabel(r.nodes), maps: r.steady.mappings, r });
  const named = new Set(MAPPING_KINDS.map(([k]) => k));
  const sum = (maps, pred) => Object.entries(maps).reduce((a, [k, v]) => a + (pred(k) ? v : 0), 0);
  const fmt = (x) => x.toFixed(1);
  const rows = [
    ...MAPPING_KINDS.map(([k, what]) => [`${what} (\`${k}\`)`, ...cols.map((c) => fmt(c.maps[k] ?? 0))]),
    ['everything else', ...cols.map((c) => fmt(sum(c.maps, (k) => !named.has(k))))],
    ['all mappings', ...cols.map((c) => fmt(sum(c.maps, () => true)))],
  ];
  return [
    "Resident MB by mapping (`/proc/PID/smaps`) at the end of each size's steady window, beside a bare node with the image's flags 3 s after its start (`bench/bare-node.mjs`).",
    '',
    table(['', ...cols.map((c) => c.label)], rows),
  ].join('\n');
}

const REPRODUCE = `Every figure above comes from \`npm run bench\` (about 40 minutes on 2 cores; it builds dist/ first and runs every process on the Node.js major the image ships, fetching it with npx when needed: \`BENCH_NODE=current\` keeps the current one). A run of every size writes this file and \`bench/sizing.json\`; a partial run prints its report unless \`--out FILE\` is given. The raw results stay in \`.bench-tmp/results.json\`; \`node bench/run.mjs --from-json .bench-tmp/results.json\` renders them again.

| figure | command |
|---|---|
| everything above but the comparison | \`npm run bench\` |
| one size (targets, figures, ratios, status page, profiled run) | \`npm run bench -- --sizes 10k --out -\` (\`--skip-explain\`: without the profiled run) |
| 20,000 nodes with the default flags | \`npm run bench -- --only fair --out -\` |
| Edge at scale (issue 51) | \`npm run bench -- --sizes 100k,250k --only sizes --out -\` (\`bench/scale.mjs\`; \`--exporter-env CRIBL_…=…\` for flags) |
| leader-imposed rate limit (issue 40) | \`npm run bench -- --only rate-limit --out -\` |
| leader cost per discovery (issues 39 and 48) | \`npm run bench -- --only leader-cost --out -\` (its fleet: \`bench/leader-cost.yaml\`; \`"--leader-cost-sim-args=--scenario FILE"\` for another) |
| against blackbox_exporter | \`npm run bench:alternative\` (Debian's \`prometheus\` and \`prometheus-blackbox-exporter\`) |
| one size's steady state, quickly, with CPU profiles | \`npm run build && node bench/steady-probe.mjs --nodes 2000 --profile DIR\`, then \`node bench/profile-summary.mjs FILE\` |

How each is measured:

- **Processes.** The simulator (\`dist/cli.js simulate --nodes N --seed 1\`), the exporter (\`bench/exporter.mjs\`: \`runCommand\` of dist/ as the CLI runs it, with the image's node flags and allocator settings, plus a bench-only IPC channel for event-loop, CPU, memory and build figures), and for the ratios a bare node:http server and a prom-client process, each its own process on 127.0.0.1. Exporter flags: \`--leader.max-rps 1000000 --leader.max-concurrency 16\` (an unthrottled leader), health 30 s, discovery 60 s, metadata 10 min; node detail \`full\` for both products (\`CRIBL_EDGE_NODE_DETAIL\`, \`CRIBL_STREAM_NODE_DETAIL\`: at \`auto\` the 50k fleet's 32,500 Stream nodes would be \`basic\`).
- **Coverage.** From forking the exporter until the simulator has answered every node's \`/w/{id}/health\` with 200 (its counters read every 200 ms), and until /metrics shows \`cribl_node_health_up 1\` for every node. CPU per leader request: the exporter's CPU from the first node poll to coverage over the requests answered.
- **Steady window.** Once every node's first metadata fetch is done (it is spread over health polls 2 to 5), two health intervals (one discovery) with a gzip scrape every 15 s: leader requests from the simulator's counters, CPU from \`process.cpuUsage()\`, RSS the mean of 5 s samples, peak VmHWM (the lifetime peak when larger). The first metadata round is the two intervals after coverage and one interval of settling.
- **Builds.** "Quiet": the simulator holds every answer for 8 s so that only the build runs; up to three usual builds (\`app.body.rebuild()\`), then up to three full renders (\`rebuild({ fresh: true })\`, nothing taken from the last build); medians, and the longest event-loop gap (a 1 ms timer in the exporter). "While polling": the builds the body cache made by itself in the steady window.
- **Scrapes.** Rounds of 2 concurrent GETs with Prometheus 3's Accept header, alternating with a bare node:http server that sends the exact same bytes; TTFB is the time to the response headers.
- **autocannon, undici.** Before the exporter starts: 5 s of autocannon on \`/w/{id}/health\` at the same concurrency, 5 s of undici's \`Pool.request()\` alone (\`bench/undici-floor.mjs\`), then undici paced at the exporter's steady rate (3 s warm-up, 10 s).
- **prom-client.** The same series in prom-client Gauges; \`registry.metrics()\` timed three times (median).
- **Status page.** After the scrapes, 20 sequential GET / (after one unmeasured): the full response as the client sees it, and the exporter's event-loop time for each (\`performance.eventLoopUtilization()\` around it).
- **Profiled run, memory by mapping.** The exporter once more under \`--cpu-prof\` (\`bench/lib/cpu-profile.mjs\` splits the main thread's CPU by kind of code; threads from /proc), and /proc/self/smaps at the end of the steady window (\`bench/lib/smaps.mjs\`). Shown while the report fits its ${REPORT_BUDGET_BYTES / 1024} KB budget.
- **Fair polling and the rate limit** (\`bench/fair.mjs\`). The exporter with its default budget flags. Coverage: 20,000 nodes, time to every node's first health answer. Rate limit: the simulator's token bucket, its 429s given \`Retry-After: 2\` by a proxy (\`bench/lib/retry-after-proxy.mjs\`); after the warm-up the simulator's counters are reset and its per-second counts read at the end (\`bench/lib/rate-limit.mjs\`: any 20 s window, partial first and last seconds left out).
- **Leader cost** (\`bench/leader-cost.mjs\`). The exporter's default flags; the window opens half a discovery interval after the first discovery and lasts whole intervals; per endpoint from the simulator's counters and from \`cribl_exporter_leader_requests_total\`.`;

/** Summary lines of what the run means: the verdicts counted, those not met named, the sizing in one line. */
function inShort(verdicts, sizing) {
  const met = verdicts.filter((v) => v.status === 'met');
  const notMet = verdicts.filter((v) => v.status === 'NOT met');
  const open = verdicts.filter((v) => v.status === 'not measured' || v.status === 'not run');
  const lines = [
    `- **Targets:** ${met.length} met, ${notMet.length} not met${open.length ? `, ${open.length} not measured in this run` : ''} (table below).` +
      (notMet.length ? ` Not met: ${notMet.map((v) => v.target.split(' (')[0]).join('; ')}.` : ''),
  ];
  // The suggested resources, sizes with the same suggestion folded into the largest of them.
  const rows = [];
  for (const x of sizing.sizes) {
    const says = `${x.requests.cpu} CPU, ${x.requests.memory}–${x.limits.memory}`;
    if (rows.at(-1)?.says === says) rows.at(-1).nodes = x.nodes;
    else rows.push({ nodes: x.nodes, says });
  }
  if (rows.length)
    lines.push(
      `- **Sizing:** ${rows.map((r) => `up to ${fmtInt(r.nodes)} nodes ${r.says}`).join('; ')} (requests–memory limit); above ${fmtInt(sizing.shardAbove)}, shard.`,
    );
  return lines.join('\n');
}

/**
 * Every verdict of the run: issue 7's at the largest size, issue 17's per size, fair polling and the rate limit
 * (issues 14, 40), the status page (issue 41). `{ issue, target, status, detail }`.
 */
export function allVerdicts(run) {
  const results = run.results ?? [];
  const largest = results.reduce((a, b) => (!a || b.nodes > a.nodes ? b : a), undefined);
  const out = [];
  if (largest) for (const v of judgeTargets(largest)) out.push({ issue: 7, ...v });
  for (const v of judgeIssue17(results)) out.push({ issue: 17, ...v });
  if (run.fair) {
    const [coverage, limit] = judgeFair(run.fair);
    if (run.fair.coverage || !run.fair.limit) out.push({ issue: 14, ...coverage });
    if (run.fair.limit || !run.fair.coverage) out.push({ issue: 40, ...limit });
  }
  if (results.length) out.push({ issue: 41, ...judgeStatusPage(results) });
  return out;
}

/**
 * The whole BENCHMARKS.md. `kept`: the kept blocks of the file being rewritten (bench/lib/kept.mjs), markers
 * included; the Mechanisms placeholder where there is none. The profiled run's tables are added while the whole stays
 * under REPORT_BUDGET_BYTES less REPORT_RESERVE_BYTES.
 */
export function renderReport(run, { kept = {} } = {}) {
  const results = [...(run.results ?? [])].sort((a, b) => a.nodes - b.nodes);
  const m = run.machine ?? {};
  const sizing = sizingOf(run);
  const verdicts = allVerdicts(run);
  const head = [];
  head.push('# Benchmarks', '');
  head.push(
    `Generated by \`${run.command}\` (\`bench/run.mjs\`) on ${run.date.slice(0, 10)} at ${run.date.slice(11, 16)} UTC in ${Math.round(run.durationSeconds)} s` +
      `${run.code?.commit ? `, code at \`${run.code.commit}\`${run.code.dirtySrc ? ' with uncommitted changes in src/' : ''}` : ''}. ` +
      'A benchmark, not a test: no test asserts a time. Everything but the sections between `KEPT` markers is rewritten by each run; the history of earlier rounds is in git.',
  );
  if (run.note) head.push('', `**${run.note}**`);
  head.push(
    '',
    `**Machine:** ${m.cpuModel}, ${m.cores} cores, ${((m.memoryBytes ?? 0) / 1024 ** 3).toFixed(1)} GiB, ${m.os}, Node.js ${m.node}; load average ${(m.loadavg ?? []).map((x) => x.toFixed(2)).join(' ')} at the start, ${(m.loadavgEnd ?? []).map((x) => x.toFixed(2)).join(' ')} at the end (shared machine). ` +
      `**Sizes:** ${results.map((r) => fmtInt(r.nodes)).join(', ') || 'none'} nodes, leader concurrency ${run.concurrency}.`,
  );
  const image = [...Object.entries(run.imageEnv ?? {}).map(([k, v]) => `${k}=${v}`), ...(run.imageNodeFlags ?? [])];
  if (image.length) head.push('', `**Exporter settings as the image runs it (Dockerfile):** ${image.map((x) => `\`${x}\``).join(' ')}`);
  const env = Object.entries(run.exporterEnv ?? {});
  if (env.length) head.push('', `**Exporter environment (an experiment, not the defaults):** ${env.map(([k, v]) => `\`${k}=${v}\``).join(' ')}`);
  if (run.failure) head.push('', `**The run failed before finishing:** ${run.failure}`);
  head.push('', inShort(verdicts, sizing), '');

  const core = [];
  if (results.length) core.push('## Sizing', '', sizingSection(sizing), '');
  if (verdicts.length) {
    core.push('## Targets', '');
    core.push(
      table(
        ['issue', 'target', 'verdict'],
        verdicts.map((v) => [String(v.issue), v.target, v.status === 'see' ? v.detail : `${v.status}: ${v.detail}`]),
      ),
      '',
    );
  }
  if (results.length) {
    core.push('## Figures', '', figures(results), '');
    core.push('## Ratios, measured in the same run', '', ratios(results), '');
  }
  const limit = rateLimitSection(run.fair?.limit);
  if (limit) core.push('## Leader-imposed rate limit (issue 40)', '', limit, '');
  const cost = leaderCostSection(run.leaderCost);
  if (cost) core.push('## Leader cost per discovery interval (issue 39)', '', cost, '');
  const edge = scaleSection(run.scale);
  if (edge) core.push('## Edge at scale: 100,000 nodes and more (issue 51)', '', edge, '');

  const tail = [];
  tail.push(kept.alternative ?? keptBlock('alternative', '## Against the alternative: Prometheus + blackbox_exporter\n\nNot measured yet: run `npm run bench:alternative`.'), '');
  tail.push(kept.mechanisms ?? MECHANISMS_PLACEHOLDER, '');
  tail.push('## How to reproduce', '', REPRODUCE, '');

  const optional = [
    ['## Where the CPU goes (the profiled run)', whereCpuGoes(results)],
    ['## Where the memory goes (resident memory by mapping)', whereMemoryGoes(results, run.bareNode)],
    ['## What the slowest scrapes waited for (the profiled run)', slowScrapes(results)],
  ].filter(([, text]) => text);
  const size = (parts) => Buffer.byteLength(parts.join('\n'));
  const chosen = [];
  const left = [];
  for (const [title, text] of optional) {
    const next = [...chosen, title, '', text, ''];
    if (size([...head, ...core, ...next, ...tail]) <= REPORT_BUDGET_BYTES - REPORT_RESERVE_BYTES) chosen.push(title, '', text, '');
    else left.push(title.replace(/^## /, ''));
  }
  if (left.length)
    chosen.push(`Left out to keep this file under ${REPORT_BUDGET_BYTES / 1024} KB: ${left.join('; ')} (in \`.bench-tmp/results.json\`).`, '');
  return [...head, ...core, ...chosen, ...tail].join('\n');
}
