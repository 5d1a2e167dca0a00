import { describe, expect, it } from 'vitest';
import type { GroupItem } from '../../src/collectors/collector.js';
import type { GroupThroughputView, QueueView, ThroughputPoint } from '../../src/collectors/throughput/view.js';
import { createStatusPage, STATUS_CSP, type LeaderStatusSource } from '../../src/exposition/status/page.js';
import {
  compareConcerns,
  concernsOf,
  formatBytes,
  formatRate,
  groupRank,
  lastRates,
  sparkline,
  SPARK_HEIGHT,
  SPARK_WIDTH,
} from '../../src/exposition/status/throughput.js';
import type { BudgetState } from '../../src/leader/budget.js';
import { FakeClock } from '../helpers/fake-clock.js';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const MIN = 60_000;

/** A window ending `endAgoMin` minutes before NOW, `spanMin` long, with these events per second. */
const point = (endAgoMin: number, rates: [number, number, number], spanMin = 1): ThroughputPoint => ({
  endMs: NOW - endAgoMin * MIN,
  spanMs: spanMin * MIN,
  inEvents: rates[0] * spanMin * 60,
  outEvents: rates[1] * spanMin * 60,
  droppedEvents: rates[2] * spanMin * 60,
});

/** The sparkline's polylines: per line (in, out, dropped), its runs, each a list of [x, y]. */
function lines(svg: string): Record<string, [number, number][][]> {
  const out: Record<string, [number, number][][]> = {};
  for (const m of svg.matchAll(/<polyline class="s-(\w+)" points="([^"]*)"\/>/g)) {
    const pts = m[2]!.split(' ').map((p) => p.split(',').map(Number) as [number, number]);
    (out[m[1]!] ??= []).push(pts);
  }
  return out;
}

const BOTTOM = SPARK_HEIGHT - 1;
const TOP = 1;

describe('sparkline', () => {
  it('no window: nothing to draw', () => {
    expect(sparkline([])).toBeUndefined();
    // A window without a span has no rate.
    expect(sparkline([{ ...point(0, [1, 1, 0]), spanMs: 0 }])).toBeUndefined();
  });

  it('one window: a flat line over the whole width, at the top for the largest rate', () => {
    const svg = sparkline([point(0, [10, 5, 0])])!;
    expect(svg).toMatch(/^<svg class="spark" role="img" aria-label="[^"]+" width="120" height="28"/);
    const l = lines(svg);
    expect(l.in).toEqual([
      [
        [0, TOP],
        [SPARK_WIDTH, TOP],
      ],
    ]);
    expect(l.out).toEqual([
      [
        [0, 14],
        [SPARK_WIDTH, 14],
      ],
    ]);
    // No drop, no dropped line.
    expect(l.dropped).toBeUndefined();
    expect(svg).toContain('<title>events per second over the last 1m 0s: in up to 10, out up to 5, dropped up to 0');
  });

  it('all zeros: every line flat at the bottom (no division by zero)', () => {
    const svg = sparkline([point(2, [0, 0, 0]), point(1, [0, 0, 0]), point(0, [0, 0, 0])])!;
    expect(svg).not.toMatch(/NaN|Infinity/);
    const l = lines(svg);
    expect(l.in).toHaveLength(1);
    expect(l.in![0]!.every(([, y]) => y === BOTTOM)).toBe(true);
    expect(l.out![0]!.every(([, y]) => y === BOTTOM)).toBe(true);
  });

  it('contiguous windows: one step line per series, each window flat over its own span', () => {
    const svg = sparkline([point(2, [4, 4, 0]), point(1, [8, 2, 2]), point(0, [2, 2, 0])])!;
    const l = lines(svg);
    expect(l.in).toEqual([
      [
        [0, 14],
        [40, 14],
        [40, TOP],
        [80, TOP],
        [80, 20.5],
        [SPARK_WIDTH, 20.5],
      ],
    ]);
    // Some were dropped: the dropped line is drawn, on the same scale.
    expect(l.dropped![0]!.map(([, y]) => y)).toEqual([BOTTOM, BOTTOM, 20.5, 20.5, BOTTOM, BOTTOM]);
  });

  it('a skipped gap breaks the line; a catch-up window reads as its average over its span', () => {
    // 10 min ago a window, then nothing for 5 minutes (skipped), then a 3-minute catch-up, then a normal window.
    const svg = sparkline([point(10, [6, 6, 0]), point(1, [3, 3, 0], 3), point(0, [6, 6, 0])])!;
    const l = lines(svg);
    expect(l.in).toHaveLength(2);
    const [before, after] = l.in!;
    expect(before).toEqual([
      [0, TOP],
      [10.9, TOP],
    ]);
    expect(after).toEqual([
      [76.4, 14],
      [109.1, 14],
      [109.1, TOP],
      [SPARK_WIDTH, TOP],
    ]);
  });

  it('covers the last hour at most: older windows are left out, one across the edge is cut at it', () => {
    const history = Array.from({ length: 60 }, (_, i) => point(59 - i, [i === 0 ? 100 : 1, 1, 0], i === 0 ? 2 : 1));
    const svg = sparkline(history)!;
    const l = lines(svg);
    expect(l.in![0]![0]![0]).toBe(0);
    // The first window (100/s) ended 59 minutes ago and began 61 minutes ago: its last minute is drawn, at the top.
    expect(l.in![0]![1]).toEqual([2, TOP]);
    expect(svg).toContain('over the last 1h 0m');
  });
});

describe('rates and formats', () => {
  it('the last window with a span gives the rates, its events over its seconds', () => {
    expect(lastRates([])).toBeUndefined();
    expect(lastRates([point(1, [3, 2, 1]), { ...point(0, [9, 9, 9]), spanMs: 0 }])).toEqual({
      in: 3,
      out: 2,
      dropped: 1,
    });
    expect(lastRates([{ endMs: NOW, spanMs: 30_000, inEvents: 45, outEvents: 30, droppedEvents: 0 }])).toEqual({
      in: 1.5,
      out: 1,
      dropped: 0,
    });
  });

  it.each([
    [0, '0'],
    [0.44, '0.4'],
    [3, '3'],
    [12.4, '12'],
    [34_567, '34,567'],
    [456_700, '456.7k'],
    [7_800_000, '7.8M'],
  ])('rate %d → %s', (x, text) => expect(formatRate(x)).toBe(text));

  it.each([
    [0, '0 B'],
    [512, '512 B'],
    [12_345, '12.3 kB'],
    [4_500_000, '4.5 MB'],
    [1.2e9, '1.2 GB'],
  ])('bytes %d → %s', (n, text) => expect(formatBytes(n)).toBe(text));
});

const queue = (id: string, bytes: number, growing: boolean, kind: QueueView['kind'] = 'destination'): QueueView => ({
  kind,
  id,
  type: 'splunk_lb',
  bytes,
  growing,
});
const view = (over: Partial<GroupThroughputView> = {}): GroupThroughputView => ({
  history: [point(1, [100, 90, 0]), point(0, [100, 80, 5])],
  blocked: [],
  queues: [],
  ...over,
});

describe('concerns: blocked destinations first, then growing queues, then queues that hold data', () => {
  it('orders them, merges a blocked destination with its queue, and leaves empty quiet queues out', () => {
    const a = concernsOf(
      'a',
      view({
        blocked: [{ destination: 'small_blocked', type: 'webhook' }],
        queues: [
          queue('big_full', 9e9, false),
          queue('growing_small', 1e3, true),
          queue('growing_big', 1e6, true, 'source'),
          queue('small_blocked', 10, true),
          queue('empty', 0, false),
        ],
      }),
    );
    const b = concernsOf('b', view({ blocked: [{ destination: 'other_blocked', type: 's3' }] }));
    const sorted = [...a, ...b].sort(compareConcerns);
    expect(sorted.map((c) => `${c.group}:${c.kind}:${c.id}${c.blocked ? ':blocked' : ''}`)).toEqual([
      'a:destination:small_blocked:blocked',
      'b:destination:other_blocked:blocked',
      'a:source:growing_big',
      'a:destination:growing_small',
      'a:destination:big_full',
    ]);
    // The blocked one keeps its queue, and its type from the blocked list.
    expect(sorted[0]).toMatchObject({ type: 'webhook', queue: { bytes: 10, growing: true } });
  });

  it('ranks groups: a blocked destination, then a growing queue, then the rest (and no view)', () => {
    expect(groupRank(view({ blocked: [{ destination: 'x', type: 'y' }] }))).toBe(0);
    expect(groupRank(view({ queues: [queue('q', 1, true)] }))).toBe(1);
    expect(groupRank(view({ queues: [queue('q', 1e9, false)] }))).toBe(2);
    expect(groupRank(undefined)).toBe(2);
  });
});

describe('the status page: data in motion', () => {
  const clock = new FakeClock(NOW);
  const group = (id: string, v?: GroupThroughputView): GroupItem => ({
    product: 'stream',
    id,
    facts: v ? { throughput: { view: v } } : {},
  });
  const budget: BudgetState = {
    limit: 4,
    inFlight: 0,
    waiting: 0,
    paused: false,
    held: false,
    pauseUntil: 0,
    rate: 50,
    maxRps: 50,
    maxConcurrency: 8,
    learnedRps: undefined,
    detached: 0,
    latencyMs: undefined,
    baselineMs: undefined,
    pausedMs: 0,
  };
  const html = (groups: GroupItem[]): Promise<string> => {
    const source: LeaderStatusSource = {
      name: 'prod',
      url: 'https://leader.example.com:9000/api/v1',
      authMode: 'token',
      snapshot: {
        labels: {},
        leader: () => ({ facts: { listing: { up: true, lastDiscoveryMs: NOW } } }),
        nodes: () => [],
        groups: () => groups,
      },
      budget: () => budget,
      cycle: () => ({ targetMs: 30_000, lastMs: 1_000, overrun: false }),
    };
    return createStatusPage({ leaders: () => [source], version: '1', telemetryPath: '/metrics', clock }).html();
  };
  const rowsOf = (page: string, id: string): string[] =>
    [...(new RegExp(`<table id="${id}">[\\s\\S]*?</table>`).exec(page)?.[0] ?? '').matchAll(/<tr[ >][\s\S]*?<\/tr>/g)]
      .map((m) => m[0])
      .slice(1);
  const text = (row: string): string[] =>
    [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));

  it('per group its rates and sparkline, the blocked destination first, every id from the leader escaped', async () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const page = await html([
      group('quiet', view({ queues: [queue('pq_full', 2e6, false)] })),
      group('unread'),
      group('busy', view({ blocked: [{ destination: hostile, type: 'webhook' }], queues: [queue('grow', 5e3, true)] })),
    ]);
    expect(page).toContain('<span class="down">1 destination blocked</span>.');

    const flow = rowsOf(page, 'flow').map(text);
    expect(flow.map((r) => [r[1], r[3], r[5]])).toEqual([
      ['stream/busy', '&#60;img src=x onerror=alert(1)&#62;', 'blocked'],
      ['stream/busy', 'grow', 'persistent queue growing'],
      ['stream/quiet', 'pq_full', 'persistent queue holds data'],
    ]);
    expect(flow[2]![6]).toBe('2.0 MB');

    const groups = rowsOf(page, 'throughput');
    // The group with the blocked destination first, then the others in the leader's order.
    expect(groups.map((r) => text(r)[2])).toEqual(['busy', 'quiet', 'unread']);
    // leader, product, group, in/s, out/s, dropped/s (the last window), sparkline, what needs a look
    expect(text(groups[0]!).slice(3, 6)).toEqual(['100', '80', '5']);
    expect(groups[0]).toMatch(/<svg class="spark"[^>]*>[\s\S]*<polyline class="s-in"/);
    expect(text(groups[0]!)[7]).toBe('1 blocked, 1 queue growing');
    expect(text(groups[1]!)[7]).toBe('none');
    expect(text(groups[2]!).slice(3, 8)).toEqual(['?', '?', '?', 'no window yet', 'not read']);

    expect(page).not.toContain('<img');
    // The CSP would block a style attribute (style-src is the page's own sheet, by hash) and any image source.
    expect(page).not.toMatch(/\sstyle=/);
    expect(STATUS_CSP).toMatch(/img-src 'none'/);
  });

  it('nothing blocked, no queue filling: said in words; no window anywhere: said too', async () => {
    const calm = await html([group('default', view())]);
    expect(calm).toContain('<p id="flow" class="up">No destination blocked, no persistent queue holds data.</p>');
    expect(calm).toContain('<p id="summary">1 leader, 0 nodes.</p>');
    const none = await html([group('default')]);
    expect(none).toContain('<p id="throughput" class="muted">No throughput window yet');
  });
});
