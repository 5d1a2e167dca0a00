/** `--leader.max-rps auto`: the rate a polling plan needs, the rate allowed, and how it follows the fleet. */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { allowedRate, burstFor, LeaderRate, rateNeed, rotationRate, type PollingPlan } from '../../src/polling/rate.js';

const plan = (nodes: number, healthS = 30): PollingPlan => ({
  nodes,
  nodeIntervalsMs: [
    { name: 'node_health', intervalMs: healthS * 1000 },
    { name: 'node_metadata', intervalMs: 600_000 },
  ],
  discoveryIntervalMs: 60_000,
  products: 2,
});

describe('rateNeed', () => {
  it('adds every node once per health interval, metadata, and the listing pages and groups per discovery', () => {
    const n = rateNeed(plan(20_000));
    expect(n.primary).toBeCloseTo(666.67, 2);
    expect(n.riders).toBeCloseTo(33.33, 2);
    expect(n.nodes.map((c) => c.name)).toEqual(['node_health', 'node_metadata']);
    // A page per 1,000 nodes (one more per product at most), and a groups request per product.
    expect(n.discovery).toBeCloseTo((20 + 2 + 2) / 60, 5);
    expect(n.total).toBeCloseTo(n.primary + n.riders + n.discovery, 9);
  });
});

describe('allowedRate', () => {
  it.each([
    // setting, ceiling, nodes, health interval → rps, mode, capped, covers
    ['auto', 1000, 0, 30, 50, 'auto', false, true],
    ['auto', 1000, 1_000, 30, 50, 'auto', false, true],
    ['auto', 1000, 6_000, 30, 262.7, 'auto', false, true],
    ['auto', 1000, 20_000, 30, 875.5, 'auto', false, true],
    ['auto', 1000, 50_000, 30, 1000, 'auto', true, false],
    ['auto', 1000, 50_000, 60, 1000, 'auto', true, true],
    ['auto', 300, 20_000, 30, 300, 'auto', true, false],
    [50, 1000, 20_000, 30, 50, 'pinned', false, false],
    [2000, 1000, 20_000, 30, 2000, 'pinned', false, true],
  ] as const)(
    '%s (ceiling %i), %i nodes every %i s → %f/s',
    (setting, ceiling, nodes, healthS, rps, mode, capped, covers) => {
      const a = allowedRate(setting, ceiling, plan(nodes, healthS));
      expect(a.rps).toBeCloseTo(rps, 1);
      expect(a).toMatchObject({ mode, capped, covers });
    },
  );

  it('says how long a round takes at the allowed rate (20,000 nodes at the old fixed 50/s: 20 minutes)', () => {
    expect(allowedRate(50, 1000, plan(20_000)).cycleSeconds).toBeCloseTo(20_000 / (50 - 33.33 - 0.4), 0);
    expect(allowedRate('auto', 1000, plan(20_000)).cycleSeconds).toBeLessThan(30);
    expect(allowedRate(10, 1000, plan(20_000)).cycleSeconds).toBe(Infinity);
  });

  it('burst: one second of the rate unless set', () => {
    expect(burstFor(875.5, undefined)).toBe(876);
    expect(burstFor(0.5, undefined)).toBe(1);
    expect(burstFor(875.5, 20)).toBe(20);
  });
});

describe('rotating products (node detail basic or minimal)', () => {
  /** `edge` Edge nodes rotating, `stream` full-level Stream nodes; default flags: health 30 s, discovery 60 s. */
  const mixed = (edge: number, stream = 0): PollingPlan => ({ ...plan(edge + stream), rotating: { edge } });

  it.each([
    // edge nodes rotating, stream nodes full → at most this many requests/s allowed by auto
    [250_000, 0, 100],
    [100_001, 0, 100],
    [30_000, 0, 100],
    [250_000, 1_000, 150],
  ] as const)('%i rotating Edge nodes and %i full Stream nodes: auto allows at most %i/s', (edge, stream, most) => {
    const a = allowedRate('auto', 1000, mixed(edge, stream));
    expect(a.rps).toBeLessThanOrEqual(most);
    expect(a.covers).toBe(true);
    // The rotation gets its whole rate; each node is polled once per rotation.
    expect(a.rotation.edge?.rps).toBeCloseTo(rotationRate(edge, 30_000), 6);
    expect(a.rotation.edge?.seconds).toBeCloseTo(edge / rotationRate(edge, 30_000), 6);
  });

  it('counts a rotating product at its rotation rate, without metadata, and its listing pages', () => {
    const n = rateNeed(mixed(250_000));
    expect(n.rotation.edge).toBe(rotationRate(250_000, 30_000));
    expect(n.primary).toBe(n.rotation.edge);
    expect(n.riders).toBe(0);
    // 250 pages of 1,000 per minute, with the groups: about 4 requests/s.
    expect(n.discovery).toBeCloseTo((250 + 2 + 2) / 60, 5);
    expect(n.total).toBeLessThan(100 / 1.25);
  });

  it.each([
    // Edge nodes at basic → rotation seconds at most, rate
    [25_001, 600, 50],
    [30_000, 600, 50],
    [100_000, 600, 166.7],
  ] as const)('%i Edge nodes at basic: every node within %i s (%f polls/s)', (edge, most, rps) => {
    const a = allowedRate('auto', 1000, { ...mixed(edge), rotatingLevels: { edge: 'basic' } });
    expect(a.rotation.edge?.seconds).toBeLessThanOrEqual(most);
    expect(a.rotation.edge?.rps).toBeCloseTo(rps, 1);
  });

  it('a small rotating product is polled every interval (its rate is its need)', () => {
    expect(rotationRate(300, 30_000)).toBe(10);
    expect(allowedRate('auto', 1000, mixed(300)).rotation.edge?.seconds).toBe(30);
  });

  it('a pinned rate below the need: the rotation takes what is left, the full-level nodes stay covered', () => {
    const a = allowedRate(30, 1000, mixed(250_000, 100));
    expect(a.covers).toBe(true);
    const left = 30 - (rateNeed(mixed(250_000, 100)).total - rotationRate(250_000, 30_000));
    expect(a.rotation.edge?.rps).toBeCloseTo(left, 6);
    expect(a.rotation.edge?.seconds).toBeCloseTo(250_000 / left, 3);
  });
});

describe('LeaderRate', () => {
  function setup(setting: number | 'auto', ceiling = 1000) {
    const lines: { msg: string; nodes?: number; neededRps?: number; allowedRps?: number; cycleSeconds?: number }[] = [];
    const logger = pino({ level: 'warn' }, { write: (l: string) => lines.push(JSON.parse(l) as (typeof lines)[0]) });
    const { nodes: _, ...rest } = plan(0);
    const rate = new LeaderRate({ setting, ceiling, burst: undefined, plan: rest, logger });
    const set: [number, number][] = [];
    rate.attach({ setRateLimit: (r, b) => set.push([r, b]) });
    return { rate, set, lines };
  }

  it('auto follows the fleet at each discovery', () => {
    const { rate, set, lines } = setup('auto');
    expect(rate.initial).toEqual({ maxRps: 50, burst: 50 });
    rate.apply(20_000);
    rate.apply(20_000); // unchanged: not set again
    rate.apply(5_000);
    expect(set.map(([r, b]) => [Math.round(r), b])).toEqual([
      [876, 876],
      [219, 219],
    ]);
    expect(lines).toEqual([]);
  });

  it('warns at every discovery where the allowed rate cannot cover the fleet, with the numbers and the setting', () => {
    const pinned = setup(50);
    pinned.rate.apply(20_000);
    pinned.rate.apply(20_000);
    expect(pinned.set).toEqual([]);
    expect(pinned.lines).toHaveLength(2);
    expect(pinned.lines[0]).toMatchObject({ nodes: 20_000, neededRps: 700.4, allowedRps: 50 });
    expect(pinned.lines[0]!.cycleSeconds).toBeGreaterThan(1000);
    expect(pinned.lines[0]!.msg).toContain('raise --leader.max-rps (50) or set it to auto');

    const capped = setup('auto', 300);
    capped.rate.apply(20_000);
    expect(capped.lines[0]!.msg).toContain('raise --leader.max-rps-ceiling (300)');
  });

  it('warns when a basic rotation cannot keep within 10 minutes at a pinned rate', () => {
    const { rate, lines } = setup(60);
    rate.apply(100_000, { rotating: { edge: 100_000 }, rotatingLevels: { edge: 'basic' } });
    expect(lines.map((l) => l.msg)).toEqual([
      expect.stringContaining('health polls of edge (node detail basic) rotate'),
    ]);
    expect(lines[0]!.msg).toContain('raise --leader.max-rps (60)');
    const auto = setup('auto');
    auto.rate.apply(100_000, { rotating: { edge: 100_000 }, rotatingLevels: { edge: 'basic' } });
    expect(auto.lines).toEqual([]);
  });

  it('250,000 rotating Edge nodes: no warning, a rate under 100/s, and the discovery interval in force counts', () => {
    const { rate, set, lines } = setup('auto');
    const a = rate.apply(250_000, { rotating: { edge: 250_000 } });
    expect(lines).toEqual([]);
    expect(a.rps).toBeLessThanOrEqual(100);
    expect(set.at(-1)?.[0]).toBe(a.rps);
    // A discovery every 15 s would list 250 pages four times a minute; at the heartbeat period, once.
    const fast = rate.apply(250_000, { rotating: { edge: 250_000 }, discoveryIntervalMs: 15_000 });
    expect(fast.needed).toBeGreaterThan(a.needed + 10);
  });
});
