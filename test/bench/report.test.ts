import { describe, expect, it } from 'vitest';
import { keptBlock, keptSections, MECHANISMS_PLACEHOLDER } from '../../bench/lib/kept.mjs';
import {
  judgeFair,
  judgeIssue17,
  judgeStatusPage,
  judgeTargets,
  longestIdle,
  renderReport,
  REPORT_BUDGET_BYTES,
  scaleSection,
  type SizeResult,
} from '../../bench/lib/report.mjs';
import { sizingOf } from '../../bench/lib/sizing.mjs';

const timing = (p50: number, p99: number) => ({ n: 50, p50, p99, max: p99 });
const scrape = (exporterTotal: number, bareTotal: number, ttfbP99 = 5) => ({
  exporter: { ttfb: timing(2, ttfbP99), total: timing(exporterTotal, exporterTotal), bytes: 1000 },
  bare: { ttfb: timing(1, 2), total: timing(bareTotal, bareTotal), bytes: 1000 },
  loopMaxGapMs: 3,
});

/** A 50k result that meets every target; each case below breaks one. */
function result(): SizeResult {
  return {
    nodes: 50_000,
    intervals: { healthS: 30, discoveryS: 60, metadataS: 600 },
    autocannon: { rps: 10_000 },
    discovery: {
      counts: { listing: 98, groups: 2, leaderHealth: 1, versions: 6, gitSettings: 1 },
      listedGroups: 6,
    },
    coverage: {
      deadlineMs: 200_000,
      answeredMs: 25_000,
      visibleMs: 27_000,
      metadataDoneMs: 26_000,
      rate: 9000,
      exporterCpuShare: 0.9,
      exporterEluShare: 0.95,
    },
    steady: {
      healthPerNodePerInterval: 1,
      metadataRequests: 800,
      metadataPerNodeSinceStart: 0.5,
      secondsSinceStart: 120,
      rss: 300e6,
      peakRss: 350e6,
      builds: [{ wallMs: 400, activeMs: 300, maxGapMs: 20 }],
      loopMaxGapMs: 30,
      cachedBodyBytes: 10e6,
      exporterCpuCores: 0.5,
      exporterElu: 0.4,
      simCpuCores: 0.1,
      machineBusyCores: 0.7,
      heapUsed: 100e6,
      heapTotal: 150e6,
      arrayBuffers: 90e6,
    },
    lifetimePeakRss: 360e6,
    rebuild: { activeMs: 400, wallMs: 600, cpuMs: 700, maxGapMs: 20, runs: [{}, {}] },
    body: { identityBytes: 132e6, gzipBytes: 25e6, series: 1_000_000, snapshotSeries: 1_000_000 },
    scrape: { identity: scrape(100, 90), gzip: scrape(20, 18) },
  };
}

type Mutable = Record<string, Record<string, unknown>>;

/** The machine of every rendered report below. */
const MACHINE = {
  cpuModel: 'Test CPU',
  cores: 2,
  memoryBytes: 8 * 1024 ** 3,
  os: 'Linux',
  node: 'v22.0.0',
  loadavg: [1, 1, 1],
  loadavgEnd: [2, 2, 2],
};

describe('judgeTargets', () => {
  it('meets every target with figures inside them', () => {
    const verdicts = judgeTargets(result());
    expect(verdicts.filter((v) => v.status !== 'met')).toEqual([]);
    expect(verdicts).toHaveLength(14);
  });

  it.each<[string, RegExp, (r: Mutable) => void]>([
    [
      'ttfb',
      /identity: time to first byte/,
      (r) => ((r.scrape!.identity as ReturnType<typeof scrape>).exporter.ttfb.p99 = 12),
    ],
    ['bare ratio', /gzip: whole response within 1.5×/, (r) => (r.scrape!.gzip = scrape(40, 18))],
    ['rebuild time', /≤ 500 ms of event-loop time/, (r) => (r.rebuild!.activeMs = 2100)],
    ['rebuild block', /never blocks/, (r) => (r.rebuild!.maxGapMs = 127)],
    ['rss', /RSS ≤ 400 MB/, (r) => (r.steady!.rss = 808e6)],
    ['coverage', /first health answer ≤ 30 s/, (r) => (r.coverage!.answeredMs = 50_800)],
    ['coverage missing', /first health answer ≤ 30 s/, (r) => delete r.coverage!.answeredMs],
    [
      'listing',
      /listing ≤ 1 request per 500 nodes/,
      (r) => Object.assign(r.discovery!.counts as object, { listing: 101, groups: 2 }),
    ],
    [
      'per-discovery requests',
      /one \/health, at most one version request per group/,
      (r) => Object.assign(r.discovery!.counts as object, { versions: 12 }),
    ],
    ['health', /≤ 1 health request per node/, (r) => (r.steady!.healthPerNodePerInterval = 1.2)],
    ['rss peak', /RSS ≤ 400 MB/, (r) => (r.steady!.peakRss = 420e6)],
    ['metadata', /metadata only on its schedule/, (r) => (r.steady!.metadataPerNodeSinceStart = 1.3)],
    ['throughput', /≥ 80 % of autocannon/, (r) => (r.coverage!.rate = 2000)],
  ])('%s: one figure over its target flips that verdict only', (_name, target, change) => {
    const r = result();
    change(r as unknown as Mutable);
    const failed = judgeTargets(r).filter((v) => v.status !== 'met');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.target).toMatch(target);
    expect(failed[0]!.status).toBe('NOT met');
  });

  it('judges the rebuild targets on the full render when the run has one, and says which build it was', () => {
    const r = result();
    const base = judgeTargets(r).find((x) => /≤ 500 ms of event-loop time/.test(x.target))!;
    expect(base.detail).toContain('quiet rebuild');
    const full = { activeMs: 640, wallMs: 900, cpuMs: 1000, maxGapMs: 30, runs: [{}] };
    r.rebuildFull = full;
    const failed = judgeTargets(r).filter((v) => v.status !== 'met');
    expect(failed.map((v) => v.target)).toEqual(['rebuild after a full health cycle: ≤ 500 ms of event-loop time']);
    expect(failed[0]!.detail).toContain('full render: 640.0 ms against ≤ 500.0 ms (1.28× the target)');
    full.activeMs = 450;
    full.maxGapMs = 61;
    const blocked = judgeTargets(r).filter((v) => v.status !== 'met');
    expect(blocked.map((v) => v.target)).toEqual(['rebuild never blocks the event loop > 50 ms at a time']);
    expect(blocked[0]!.detail).toContain('over 1 full renders and 2 usual builds, quiet');
  });

  it('says by how much a target is missed', () => {
    const r = result();
    (r as unknown as Mutable).coverage!.answeredMs = 60_000;
    const v = judgeTargets(r).find((x) => /first health answer/.test(x.target))!;
    expect(v.detail).toContain('60.0 s against ≤ 30 s (2.00× the target)');
  });

  it('marks what the run did not measure', () => {
    const r = result();
    delete (r as unknown as Mutable).scrape;
    const missing = judgeTargets(r).filter((v) => v.status === 'not measured');
    expect(missing.map((v) => v.target).join('\n')).toMatch(/time to first byte/);
    expect(missing).toHaveLength(4);
  });
});

describe('longestIdle', () => {
  it.each<[[number, number][] | undefined, number | undefined]>([
    [undefined, undefined],
    [
      [
        [5000, 100],
        [10000, 200],
      ],
      0,
    ],
    [
      [
        [5000, 2361],
        [10000, 2361],
        [15000, 2361],
        [20000, 2361],
        [25000, 2401],
        [30000, 9000],
      ],
      15000,
    ],
    [
      [
        [5000, 0],
        [10000, 0],
        [15000, 50],
      ],
      10000,
    ],
  ])('%j → %s ms', (series, want) => {
    expect(longestIdle(series)).toBe(want);
  });
});

describe('judgeIssue17', () => {
  it('judges the sizes the run has and says "not run" for the others', () => {
    const r = result();
    (r as unknown as Mutable).undiciFloor = { rps: 40_000, cpuMsPerRequest: 0.05 };
    const verdicts = judgeIssue17([r]);
    const find = (re: RegExp) => verdicts.find((v) => re.test(v.target))!;
    // 360 MB lifetime peak, 300 MB steady: within 400 MB at 50k.
    expect(find(/^50,000 nodes: RSS/).status).toBe('met');
    expect(find(/^10,000 nodes: RSS/).status).toBe('not run');
    expect(find(/^2,000 nodes: RSS/).status).toBe('not run');
    // 0.9 cores × 1000 / 9000 req/s = 0.1 ms per request against undici's 0.05 ms: 2×, at the limit.
    expect(find(/CPU per leader request/).status).toBe('met');
    // 0.5 cores steady against ≤ 0.25.
    expect(find(/steady state ≤ 0.25 cores/)).toMatchObject({ status: 'NOT met' });
    expect(find(/steady state ≤ 0.25 cores/).detail).toContain('(2.00× the target)');
  });

  it('says by how much a size misses its memory target', () => {
    const r = { ...result(), nodes: 2000 };
    const v = judgeIssue17([r]).find((x) => /^2,000 nodes: RSS/.test(x.target))!;
    expect(v.status).toBe('NOT met');
    expect(v.detail).toContain('360 MB peak (3.60× the target)');
  });

  it('judges the steady RSS by the mean of the window and shows its range', () => {
    const base = result();
    const r: SizeResult = {
      ...base,
      nodes: 2000,
      lifetimePeakRss: 99e6,
      steady: { ...(base.steady as object), rss: 96e6, rssMin: 78e6, rssMax: 99e6, peakRss: 99e6 },
    };
    const v = judgeIssue17([r]).find((x) => /^2,000 nodes: RSS/.test(x.target))!;
    expect(v.status).toBe('met');
    expect(v.detail).toContain('96 MB steady (mean of the window; 78–99 MB)');
  });
});

describe('renderReport', () => {
  const run = {
    date: '2026-11-22T09:00:00.000Z',
    durationSeconds: 420,
    command: 'npm run bench',
    machine: MACHINE,
    concurrency: 16,
    results: [{ ...result(), nodes: 1000, label: '1k' }, result()],
  };

  it('has the machine, the command, one verdict per target, sizing and the kept sections', () => {
    const table = '| a | b | c | d |\n|---|---|---|---|';
    const mechanisms = keptBlock('mechanisms', `## Mechanisms of the body engine\n\n${table}`);
    const md = renderReport(run, { kept: { mechanisms } });
    expect(md).toContain('Test CPU, 2 cores, 8.0 GiB');
    expect(md).toContain('`npm run bench`');
    // 14 of issue 7 (judged at the largest size), 1 of issue 17 (RSS at 50k; 2k and 10k are not run).
    expect(md.match(/\| met: /g)).toHaveLength(15);
    expect(md).toContain('| 7 | RSS ≤ 400 MB | met: ');
    expect(md).toContain('| 17 | 10,000 nodes: RSS ≤ 150 MB steady and at peak (start-up burst included) | not run:');
    expect(md).toContain('- **Targets:** 15 met, 1 not met, 5 not measured in this run');
    expect(md).toContain('|  | 1k | 50k |');
    expect(md).toContain('## Sizing');
    expect(md).toContain(mechanisms);
    expect(md).toContain('Not measured yet: run `npm run bench:alternative`.');
    expect(md).toContain('## How to reproduce');
  });

  it('shows n/a for figures a partial run lacks, and still judges the rest', () => {
    const partial = { ...result() } as Record<string, unknown>;
    delete partial.steady;
    delete partial.scrape;
    const md = renderReport({ ...run, results: [partial] });
    expect(md).toContain('| RSS steady (window min–max) / peak, MB | n/a |');
    expect(md).toContain('No size of this run has a steady window: no sizing figures.');
    expect(md).toContain('not measured');
    expect(md).toContain('met: 25.0 s');
  });

  it('has the Edge-heavy sizes in a table of their own, n/a where a size failed before a figure', () => {
    const counts = (nodes: number) => ({ nodes, disconnected: 30, silent: 10, drifted: 5, failedUpgrades: 2 });
    const big = {
      nodes: 250_000,
      label: '250k',
      truth: { products: { edge: counts(242_000), stream: counts(8_000) }, groups: 154 },
      simulator: { startMs: 11_000, rssAtStart: 400e6, rssEnd: 700e6, health: { rps: 4321.4, simCpuCores: 0.97 } },
      firstDiscovery: { atS: 31.25, requests: 420 },
      coverage: { atS: 40, by: 'cribl_node_connected per node' },
      steady: { exporterCpuCores: 0.5, rss: 900e6, rssMax: 950e6, peakRss: 1e9, leaderRps: 80, healthPerS: 60 },
    };
    const md = renderReport({ ...run, scale: [big, { nodes: 100_000, label: '100k', error: 'exporter exited (1)' }] });
    expect(md).toContain('## Edge at scale: 100,000 nodes and more (issue 51)');
    expect(md).toContain('|  | 100k | 250k |');
    expect(md).toContain('| fleet: Edge / Stream nodes, groups | n/a | 242,000 / 8,000, 154 |');
    expect(md).toContain('| disconnected / silent / drifted / failed upgrades | n/a | 60 / 20 / 10 / 4 |');
    expect(md).toContain('| simulator alone, req/s (its CPU, cores): /w/{id}/health | n/a | 4,321 (0.97) |');
    expect(md).toContain('| RSS mean / max / peak, MB | n/a | 900 / 950 / 1000 |');
    expect(md).toContain('Failed: 100k: exporter exited (1)');
    expect(scaleSection(undefined)).toBeUndefined();
  });

  it('reports a failed run', () => {
    expect(renderReport({ ...run, failure: 'simulator exited (1)' })).toContain(
      'The run failed before finishing:** simulator exited (1)',
    );
  });
});

describe('judgeFair (issues 14 and 40)', () => {
  const fair = () => ({
    coverage: { nodes: 20_000, healthIntervalS: 30, coveredMs: 24_300, answeredAtEnd: 20_000, rateRps: 875 },
    limit: {
      limitRps: 40,
      burst: 10,
      retryAfterS: 2,
      nodes: 2_400,
      windowS: 20,
      warmupS: 30,
      measuredS: 120,
      acceptedPerSecond: 38,
      share429: 0.004,
      series: [40, 38, 39],
      figures: {
        seconds: 118,
        acceptedPerSecond: 38.5,
        share429: 0.004,
        worstWindow: { fromS: 40, accepted: 740, share: 0.925 },
        windows: [{ fromS: 0, acceptedPerSecond: 39, share: 0.975, share429: 0.003 }],
      },
      scrapes: [{ leaderUp: 1, overrun: 1, rateRps: 39.5 }],
    },
  });

  it('judges the 20k default-flags coverage time, and the worst 20 s window of a leader-imposed limit', () => {
    const v = judgeFair(fair());
    expect(v.map((x) => x.status)).toEqual(['met', 'met']);
    expect(v[0]!.detail).toContain('24.3 s');
    expect(v[1]!.target).toMatch(/^leader-imposed limit: ≥ 90 % of what the leader allows over any 20 s window/);
    expect(v[1]!.detail).toContain('worst 20 s window 92.5 % of 40/s, 0.40 % answered 429');
  });

  it.each([
    ['coverage slower than the interval', (f: ReturnType<typeof fair>) => (f.coverage.coveredMs = 45_000), 0],
    ['a 20 s window under 90 %', (f: ReturnType<typeof fair>) => (f.limit.figures.worstWindow.share = 0.85), 1],
    ['2 % or more answered 429', (f: ReturnType<typeof fair>) => (f.limit.figures.share429 = 0.03), 1],
  ])('%s: NOT met', (_name, change, i) => {
    const f = fair();
    change(f);
    expect(judgeFair(f)[i]!.status).toBe('NOT met');
  });

  it('says "not measured" for a run without the per-second series, with its whole-window figures', () => {
    const { figures: _, ...old } = fair().limit;
    const v = judgeFair({ ...fair(), limit: { ...old, measuredS: 60, acceptedPerSecond: 39.7, share429: 0.0017 } });
    expect(v[1]).toMatchObject({ status: 'not measured' });
    expect(v[1]!.detail).toContain('over the whole 60 s: 99.3 % of 40/s, 0.17 % answered 429');
    expect(judgeFair({ error: 'simulator exited (1)' }).map((x) => x.status)).toEqual(['not measured', 'not measured']);
  });

  it('renders the limit as windows and the per-second series, and the verdicts in the targets table', () => {
    const base = { date: '2026-11-22T09:00:00.000Z', durationSeconds: 1, command: 'npm run bench' };
    const md = renderReport({ ...base, machine: MACHINE, results: [], fair: fair() });
    expect(md).toContain('| 14 | 20,000 nodes, default flags');
    expect(md).toContain('| 40 | leader-imposed limit');
    expect(md).toContain('## Leader-imposed rate limit (issue 40)');
    expect(md).toContain('answering 429 with `Retry-After: 2`');
    expect(md).toContain('| 0–20 s | 39.0 | 97.5 % | 0.30 % |');
    expect(md).toContain('| worst 20 s (from 40 s) | 37.0 | 92.5 % |  |');
    expect(md).toContain('Accepted per second: 40 38 39.');
    expect(md).toContain('`cribl_leader_up` 1');
  });
});

describe('judgeStatusPage (issue 41)', () => {
  const at = (nodes: number, p99?: number): SizeResult => ({
    ...result(),
    nodes,
    ...(p99 === undefined ? {} : { statusPage: { total: { n: 20, p50: p99 / 2, p99, max: p99 } } }),
  });

  it.each<[string, SizeResult[], string]>([
    ['under 150 ms at 10k', [at(10_000, 90)], 'met'],
    ['over it', [at(10_000, 180)], 'NOT met'],
    ['no 10k size', [at(2_000, 90)], 'not run'],
    ['no figure', [at(10_000)], 'not measured'],
  ])('%s', (_name, results, status) => {
    expect(judgeStatusPage(results).status).toBe(status);
  });
});

describe('renderReport: the leader cost per discovery (issue 39)', () => {
  const base = { date: '2026-11-22T09:00:00.000Z', durationSeconds: 1, command: 'npm run bench', machine: MACHINE };
  const leaderCost = {
    nodes: 500,
    wantGroups: 10,
    wantDestinations: 100,
    simArgs: ['--scenario', 'bench/leader-cost.yaml'],
    listedGroups: 10,
    intervals: 2,
    discoveryS: 60,
    endpoints: [
      { endpoint: '/w/{nodeId}/health', perNode: true, simulator: 1000, exporter: 1000 },
      { endpoint: '/products/{product}/workers', perNode: false, simulator: 2, exporter: 2 },
      { endpoint: '/m/{group}/version', perNode: false, simulator: 10, exporter: 10 },
      { endpoint: '/m/{group}/system/status/outputs', perNode: false, simulator: 10, exporter: 10 },
    ],
    perDiscovery: 22,
    perNodeRoutes: 1000,
    before: {
      commit: 'abc1234',
      endpoints: { '/products/{product}/workers': 2, '/m/{group}/version': 10 },
      perDiscovery: 12,
    },
  };

  it('lists requests per interval by endpoint against the run before, and checks the allowance', () => {
    const md = renderReport({ ...base, results: [], leaderCost });
    expect(md).toContain('## Leader cost per discovery interval (issue 39)');
    expect(md).toContain('10 groups listed (simulator flags `--scenario bench/leader-cost.yaml`)');
    expect(md).toContain('1 + 2 × groups + 2 = 23 more per interval');
    expect(md).toContain('This run: 10 more than before (abc1234), within the allowance.');
    expect(md).toContain(
      [
        '| `/m/{group}/system/status/outputs` | 0 | 10 | 10 |',
        '| `/m/{group}/version` | 10 | 10 | 10 |',
        '| `/products/{product}/workers` | 2 | 2 | 2 |',
        '| `/w/{nodeId}/health` (per node) |  | 1,000 | 1,000 |',
      ].join('\n'),
    );
    expect(md).toContain('| **per discovery (every route but the per-node ones)** | **12** | **22** |  |');
  });

  it('says when a run is over the allowance', () => {
    const md = renderReport({ ...base, results: [], leaderCost: { ...leaderCost, perDiscovery: 40 } });
    expect(md).toContain('This run: 28 more than before (abc1234), OVER the allowance.');
  });

  it('sets the run against the one before the throughput collector too (issue 48), when it has it', () => {
    const withQuery = {
      ...leaderCost,
      endpoints: [
        ...leaderCost.endpoints,
        { endpoint: '/system/metrics/query', perNode: false, simulator: 4, exporter: 4 },
      ],
      perDiscovery: 26,
      beforeThroughput: {
        commit: 'def5678',
        endpoints: {
          '/products/{product}/workers': 2,
          '/m/{group}/version': 10,
          '/m/{group}/system/status/outputs': 10,
        },
        perDiscovery: 22,
        routes: ['/system/metrics/query'],
        allowed: 4,
        allowedPerNode: 5,
      },
    };
    const md = renderReport({ ...base, results: [], leaderCost: withQuery });
    expect(md).toContain(
      '| endpoint | before (abc1234) | before throughput (def5678) | per discovery interval (simulator) |',
    );
    expect(md).toContain('| `/system/metrics/query` | 0 | 0 | 4 | 4 |');
    expect(md).toContain('| `/w/{nodeId}/health` (per node) |  |  | 1,000 | 1,000 |');
    expect(md).toContain('| **per discovery (every route but the per-node ones)** | **12** | **22** | **26** |  |');
    expect(md).toContain(
      'Issue 48 allows 4 more than before the throughput collector (5 with --throughput.per-node): ' +
        '4 more than def5678, within.',
    );
    // Issue 39's allowance is judged without the throughput collector's route.
    expect(md).toContain(
      "This run: 10 more than before (abc1234) (without the throughput collector's), within the allowance.",
    );
    const over = renderReport({ ...base, results: [], leaderCost: { ...withQuery, perDiscovery: 27 } });
    expect(over).toContain('5 more than def5678, OVER.');
  });

  it('says how to measure it when the run did not', () => {
    expect(renderReport({ ...base, results: [] })).toContain(
      'Not measured in this run: `npm run bench -- --only leader-cost --out -`.',
    );
  });
});

describe('renderReport: kept sections, sizing and the size budget', () => {
  const four = [1000, 2000, 10_000, 50_000].map((nodes) => ({
    ...result(),
    nodes,
    steady: { ...(result().steady as Record<string, unknown>), rss: nodes * 2000 + 90e6, peakRss: nodes * 2200 + 95e6 },
  }));
  const run = {
    date: '2026-11-28T09:00:00.000Z',
    durationSeconds: 2000,
    command: 'npm run bench',
    machine: MACHINE,
    concurrency: 16,
    results: four,
  };

  it('keeps the Mechanisms and the comparison blocks verbatim, and puts a placeholder where there is none', () => {
    const alternative = keptBlock('alternative', '## Against the alternative\n\n| a | b |\n|---|---|\n| 1 | 2 |');
    const md = renderReport(run, { kept: { alternative } });
    expect(keptSections(md)).toEqual({ alternative, mechanisms: MECHANISMS_PLACEHOLDER });
    expect(MECHANISMS_PLACEHOLDER).toContain('| mechanism | what it does | figure without it | kept/cut |');
    // A second run keeps what the first wrote, hand edits included.
    const edited = md.replace('| (to be filled) | | | |', '| slabs | pooled buffers | RSS +3 % | cut |');
    const again = renderReport(run, { kept: keptSections(edited) });
    expect(again).toContain('| slabs | pooled buffers | RSS +3 % | cut |');
  });

  it('renders the sizing table from bench/sizing.json’s object, with a shard row above the largest size', () => {
    const md = renderReport(run);
    for (const s of sizingOf(run).sizes)
      expect(md).toContain(`| ${s.nodes.toLocaleString('en-US')} nodes | `);
    const big = sizingOf(run).sizes.at(-1)!;
    expect(md).toContain(`| ${big.requests.cpu}, ${big.requests.memory} | ${big.limits.memory} |`);
    expect(md).toContain('| above 50,000 | shard:');
  });

  it('takes the Edge-heavy sizes (bench/scale.mjs) into the sizing, peak the larger of window and lifetime', () => {
    const steady = { exporterCpuCores: 0.27, rss: 600e6, rssMax: 720e6, peakRss: 750e6 };
    const s = sizingOf({ ...run, scale: [{ nodes: 250_000, steady }, { nodes: 100_000 }] });
    expect(s.sizes.map((x) => x.nodes)).toEqual([1000, 2000, 10_000, 50_000, 250_000]);
    expect(s.sizes.at(-1)).toMatchObject({ cpuCores: 0.27, rssBytes: 600e6, peakBytes: 750e6 });
    expect(s.shardAbove).toBe(250_000);
  });

  it(`stays under ${REPORT_BUDGET_BYTES / 1024} KB, leaving out the profiled run's tables first`, () => {
    const withProfile = {
      ...run,
      results: four.map((r) => ({
        ...r,
        explain: {
          burst: {
            wallMs: 700,
            requests: 1000,
            threadsMs: { main: 400, v8: 80, libuv: 10, other: 10 },
            main: { busyMs: 400, idleMs: 0, ms: { gc: 100, exporter: 300 } },
          },
        },
      })),
    };
    const small = renderReport(withProfile);
    expect(Buffer.byteLength(small)).toBeLessThanOrEqual(REPORT_BUDGET_BYTES);
    expect(small).toContain('## Where the CPU goes');
    // A Mechanisms section of 12 KB leaves no room for the profiled tables.
    const mechanisms = keptBlock('mechanisms', `## Mechanisms\n\n${'| m | what | +11 % | kept |\n'.repeat(460)}`);
    const tight = renderReport(withProfile, { kept: { mechanisms } });
    expect(tight).not.toContain('## Where the CPU goes');
    expect(tight).toContain('Left out to keep this file under 30 KB: Where the CPU goes (the profiled run)');
    expect(Buffer.byteLength(tight)).toBeLessThanOrEqual(REPORT_BUDGET_BYTES);
  });
});
describe('renderReport: where the CPU and the memory go', () => {
  const profiled = (main: Record<string, number>) => ({
    busyMs: Object.values(main).reduce((a, b) => a + b, 0),
    idleMs: 10,
    ms: { gc: 0, socket: 0, undici: 0, node: 0, exporter: 0, libraries: 0, runtime: 0, bench: 0, other: 0, ...main },
  });
  // 1k: 1,000 requests in the burst, 500 ms of CPU in all (400 on the main thread, a quarter of which the exporter's
  // code); 50k: a steady window as well.
  const small = {
    ...result(),
    nodes: 1000,
    label: '1k',
    undiciFloor: { cpuMsPerRequest: 0.04 },
    explain: {
      burst: {
        wallMs: 700,
        requests: 1000,
        threadsMs: { main: 400, v8: 80, libuv: 10, other: 10 },
        main: profiled({ gc: 40, socket: 80, undici: 60, node: 40, exporter: 100, runtime: 80 }),
      },
      scrapes: {
        ttfb: { n: 50, p50: 3, p99: 20, max: 25 },
        slowest: [
          { ttfbMs: 25, main: profiled({ exporter: 15, gc: 5, node: 0.3 }) },
          { ttfbMs: 20, main: undefined },
        ],
      },
    },
  };
  const twoK = {
    ...result(),
    nodes: 2000,
    label: '2k',
    steady: {
      ...(result().steady as Record<string, unknown>),
      rss: 105e6,
      peakRss: 108e6,
      mappings: { 'node x': 24, 'node r': 21, 'node w': 1, '[anon] w': 45, '[heap] w': 12, 'libc.so.6 x': 1 },
    },
  };
  const big = {
    ...result(),
    label: '50k',
    undiciPaced: { cpuMsPerRequest: 0.08 },
    explain: {
      steady: {
        wallMs: 60_000,
        requests: 100_000,
        threadsMs: { main: 15_000, v8: 3000, libuv: 1000, other: 1000 },
        main: profiled({ gc: 3000, socket: 3000, exporter: 6000, node: 3000 }),
      },
    },
  };
  const run = {
    date: '2026-11-28T09:00:00.000Z',
    durationSeconds: 1500,
    command: 'npm run bench',
    machine: MACHINE,
    concurrency: 16,
    results: [big, twoK, small],
    bareNode: {
      rss: 45e6,
      mappings: {
        'node x': 17.8,
        'node r': 17.1,
        'node w': 1,
        '[anon] w': 4.7,
        '[heap] w': 1.5,
        'libc.so.6 x': 1,
        // Under the 0.25 MB the exporter's own mappings are cut at: left out of the bare node's too.
        'libdl.so.2 r': 0.1,
      },
    },
  };

  it('splits each profiled window per request by thread and by kind of code, bursts first', () => {
    const md = renderReport(run);
    expect(md).toContain('## Where the CPU goes');
    expect(md).toContain('|  | 1k burst | 50k steady |');
    expect(md).toContain('| window: wall / leader requests | 0.70 s / 1,000 | 60.00 s / 100,000 |');
    expect(md).toContain('| all threads, µs per request (profiled) | 500.0 | 200.0 |');
    // undici alone: unpaced for the burst, paced for the steady window.
    expect(md).toContain("| undici's request() alone, µs per request | 40.0 | 80.0 |");
    expect(md).toContain('| main thread | 400.0 (80 %) | 150.0 (75 %) |');
    // The main thread's /proc CPU split by the profile's shares: 100 of 400 busy ms were the exporter's code.
    expect(md).toContain('| … the exporter | 100.0 (20 %) | 60.0 (30 %) |');
    expect(md).toMatch(/\| V8's platform threads[^|]*\| 80\.0 \(16 %\) \| 30\.0 \(15 %\) \|/);
    // A kind that is nowhere in the run has no row.
    expect(md).not.toContain('… bench probes');
  });

  it('puts each size beside a bare node', () => {
    const md = renderReport(run);
    expect(md).toContain('## Where the memory goes');
    expect(md).toContain('|  | bare node | 2k |');
    expect(md).toContain("| node's code (`node x`) | 17.8 | 24.0 |");
    // node w and libc: 1.0 + 1.0 in the bare node (libdl under the floor left out), 1.0 + 1.0 at 2k.
    expect(md).toContain('| everything else | 2.0 | 2.0 |');
    expect(md).toContain('| all mappings | 43.1 | 104.0 |');
  });

  it('says what the main thread did while the slowest scrapes waited for their first byte', () => {
    const md = renderReport(run);
    expect(md).toContain('## What the slowest scrapes waited for (the profiled run)');
    expect(md).toContain('| gzip TTFB p50 / p99 (profiled run) | 3.0 / 20.0 ms |');
    // The two largest kinds over 0.5 ms (Node.js's 0.3 ms left out).
    expect(md).toContain('| 25.0 ms: busy 20.3 ms (the exporter 15.0, GC 5.0), idle 10.0 ms |');
    expect(md).toMatch(/\| slowest 2: [^|]*\| 20\.0 ms \(no profile\) \|/);
  });

  it('says so when the profiled run of a size failed', () => {
    const failed = { ...small, explain: { error: 'exporter 1k, profiled: no listening line within 60 s' } };
    const md = renderReport({ ...run, results: [failed] });
    expect(md).toContain('- **1k:** the profiled run failed (exporter 1k, profiled: no listening line within 60 s).');
  });

  it('leaves both sections out of a run without a profiled run or mappings', () => {
    const md = renderReport({ ...run, results: [result()], bareNode: undefined });
    expect(md).not.toContain('## Where the CPU goes');
    expect(md).not.toContain('## Where the memory goes');
  });
});
