import { describe, expect, it } from 'vitest';
import { judgeFair, judgeIssue17, judgeTargets, longestIdle, renderReport, type SizeResult } from '../../bench/lib/report.mjs';

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

  it('has the machine, the command, a verdict per target and the analysis', () => {
    const md = renderReport(run, { analysis: '## Analysis\n\nWhy things are slow.' });
    expect(md).toContain('Test CPU, 2 cores, 8.0 GiB RAM');
    expect(md).toContain('`npm run bench`');
    expect(md).toContain('judged at 50,000 nodes');
    // 14 in the issue-7 table, 1 in issue 17's (RSS at 50k; 2k and 10k are not run).
    expect(md.match(/\| met: /g)).toHaveLength(15);
    expect(md).toContain('## Targets (issue 17)');
    expect(md).toContain('| 10,000 nodes: RSS ≤ 150 MB steady and at peak (start-up burst included) | not run:');
    expect(md).toContain('| | 1k | 50k |'.replace('| |', '|  |'));
    expect(md).toContain('## Sizing');
    expect(md).toContain('Why things are slow.');
  });

  it('shows n/a for figures a partial run lacks, and still judges the rest', () => {
    const partial = { ...result() } as Record<string, unknown>;
    delete partial.steady;
    delete partial.scrape;
    const md = renderReport({ ...run, results: [partial] });
    expect(md).toContain('| RSS steady (mean of the window) / peak | n/a |');
    expect(md).toContain('| RSS in the steady window, min–max of 5 s samples | n/a |');
    expect(md).toContain('not measured');
    expect(md).toContain('met: 25.0 s');
  });

  it('reports a failed run', () => {
    expect(renderReport({ ...run, failure: 'simulator exited (1)' })).toContain(
      'The run failed before finishing:** simulator exited (1)',
    );
  });
});

describe('judgeFair (issue 14)', () => {
  const fair = () => ({
    coverage: { nodes: 20_000, healthIntervalS: 30, coveredMs: 24_300, answeredAtEnd: 20_000, rateRps: 875 },
    limit: { limitRps: 40, nodes: 3_000, measuredS: 60, acceptedPerSecond: 39.6, share429: 0.004, rateRps: 41.2 },
  });

  it('judges the 20k default-flags coverage time and the accepted share of a leader-imposed limit', () => {
    const v = judgeFair(fair());
    expect(v.map((x) => x.status)).toEqual(['met', 'met']);
    expect(v[0]!.detail).toContain('24.3 s');
    expect(v[1]!.target).toMatch(/^leader-imposed limit: accepted share/);
    expect(v[1]!.detail).toContain('99.0 % of 40/s accepted');
  });

  it.each([
    ['coverage slower than the interval', (f: ReturnType<typeof fair>) => (f.coverage.coveredMs = 45_000), 0],
    ['less than 90 % accepted', (f: ReturnType<typeof fair>) => (f.limit.acceptedPerSecond = 35), 1],
    ['2 % or more answered 429', (f: ReturnType<typeof fair>) => (f.limit.share429 = 0.03), 1],
  ])('%s: NOT met', (_name, change, i) => {
    const f = fair();
    change(f);
    expect(judgeFair(f)[i]!.status).toBe('NOT met');
  });

  it('renders its own section, and says when it was not measured', () => {
    const base = { date: '2026-11-22T09:00:00.000Z', durationSeconds: 1, command: 'npm run bench' };
    const machine = { cpuModel: 'c', cores: 2, memoryBytes: 1, os: 'o', node: 'v', loadavg: [0], loadavgEnd: [0] };
    const md = renderReport({ ...base, machine, results: [], fair: fair() });
    expect(md).toContain('## Fair polling (issue 14)');
    expect(md).toContain('| leader-imposed limit: accepted share');
    expect(judgeFair({ error: 'simulator exited (1)' }).map((x) => x.status)).toEqual(['not measured', 'not measured']);
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
    expect(md).toContain('| window: wall / leader requests answered | 0.70 s / 1,000 | 60.00 s / 100,000 |');
    expect(md).toContain('| all threads, µs of CPU per request (profiled) | 500.0 | 200.0 |');
    // undici alone: unpaced for the burst, paced for the steady window.
    expect(md).toMatch(/\| undici's request\(\) alone[^|]*\| 40\.0 \| 80\.0 \|/);
    expect(md).toContain('| main thread (share of all threads) | 400.0 (80 %) | 150.0 (75 %) |');
    // The main thread's /proc CPU split by the profile's shares: 100 of 400 busy ms were the exporter's code.
    expect(md).toMatch(/\| … the exporter's code \(dist\/ or build\/\) \| 100\.0 \(20 %\) \| 60\.0 \(30 %\) \|/);
    expect(md).toMatch(/\| V8's platform threads[^|]*\| 80\.0 \(16 %\) \| 30\.0 \(15 %\) \|/);
    // A kind that is nowhere in the run has no row.
    expect(md).not.toContain("the benchmark's own probes");
    expect(md).toContain(
      "- **1k burst:** 500.0 µs a request (profiled), against undici's 40.0 alone (12.50×). " +
        "The exporter's own code is 100.0 µs (20 %)",
    );
    // Everything else: 400 µs, 10× undici alone.
    expect(md).toContain(
      "the main thread's garbage collection 40.0 µs, V8's platform threads (GC helpers, concurrent compilation) 80.0",
    );
    expect(md).toContain("undici and its parser 60.0, Node.js's JavaScript 40.0.");
    expect(md).toContain("Everything but the exporter's own code comes to 400.0 µs, 10.00× undici alone.");
    expect(md).toContain('Why each CPU, scrape and memory target reads as it does, from this run');
  });

  it('puts each size beside a bare node, and explains a size over its memory target', () => {
    const md = renderReport(run);
    expect(md).toContain('## Where the memory goes');
    expect(md).toContain('|  | bare node | 2k |');
    expect(md).toContain("| the node binary's code (`node x`) | 17.8 | 24.0 |");
    expect(md).toContain('| other files and libraries | 1.0 | 1.0 |');
    expect(md).toContain('| all mappings | 43.1 | 104.0 |');
    expect(md).toContain(
      "- **2k, over its 100 MB (the window's mean 105 MB, peak 360 MB):** at the window's end, of 104.0 MB resident, " +
        "46.0 are the node binary's own pages (a bare node: 35.9)",
    );
    expect(md).toContain('the exporter adds 60.9 MB to the runtime: anonymous 40.3');
  });

  it('says what the main thread did while the slowest scrapes waited for their first byte', () => {
    const md = renderReport(run);
    expect(md).toContain('## What the slowest scrapes waited for (the profiled run)');
    expect(md).toMatch(/\| gzip TTFB p50 \/ p99 \(profiled run[^|]*\| 3\.0 ms \/ 20\.0 ms \|/);
    // The kinds over 0.5 ms, largest first (Node.js's 0.3 ms left out).
    expect(md).toContain('| 25.0 ms: busy 20.3 ms (the exporter 15.0, GC 5.0), idle 10.0 ms |');
    expect(md).toMatch(/\| slowest scrape 2: [^|]*\| 20\.0 ms \(no profile\) \|/);
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
