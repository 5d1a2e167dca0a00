/**
 * Rotating health polls (issue 51): a product whose node detail is basic or minimal has its nodes polled as a rotating
 * share of its fleet at its rotation rate, oldest first, without riders and without rounds (never an overrun), while
 * full-level products keep their slots. The injected clock drives everything; no real sleeps.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Product } from '@cribl-exporter/api/products';
import { detailFacts, type DetailFacts, type NodeDetail } from '../../src/collectors/detail.js';
import type { LeaderRequest, LeaderResult } from '../../src/leader/types.js';
import type { DiscoveredNode, PollerOptions } from '../../src/polling/poller.js';
import { rotationRate } from '../../src/polling/rate.js';
import { budgetView } from '../helpers/budget.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeLeaderClient } from '../helpers/fake-leader-client.js';
import { fleet, MemorySnapshot, testPoller } from '../helpers/memory-snapshot.js';

const INTERVAL = 10_000;

const ids = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

/** A listing of nodes of one product. */
function listed(product: Product, names: readonly string[]): Map<string, DiscoveredNode> {
  const out = new Map<string, DiscoveredNode>();
  for (const [key, d] of fleet(names)) out.set(key, { ...d, ident: { ...d.ident, product } });
  return out;
}

function setup(opts: Partial<Omit<PollerOptions, 'poll' | 'snapshot' | 'listing'>> = {}, requestMs = 5) {
  const clock = new FakeClock();
  const snapshot = new MemorySnapshot();
  const health = new Map<string, number[]>();
  const metadata: string[] = [];
  const base = fakeLeaderClient(() => ({ status: 200, json: { status: 'healthy', startTime: 1 } }));
  const client = {
    ...base,
    async request<T>(req: LeaderRequest<T>): Promise<LeaderResult<T>> {
      const id = decodeURIComponent(req.path.split('/')[2]!);
      if (req.path.endsWith('/health')) health.set(id, [...(health.get(id) ?? []), clock.now()]);
      else metadata.push(id);
      await clock.sleep(requestMs);
      return base.request(req);
    },
  };
  const overruns: boolean[] = [];
  const cycles: number[] = [];
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (l: string) => warnings.push(l) });
  let firstRounds = 0;
  const poller = testPoller({
    client,
    snapshot,
    clock,
    logger,
    healthIntervalMs: INTERVAL,
    metadataIntervalMs: 60_000,
    maxOutstanding: 64,
    metrics: { healthCycle: (_t, d) => cycles.push(d), overrun: (a) => overruns.push(a) },
    onFirstRound: () => firstRounds++,
    ...opts,
  });
  const levels = (l: Partial<Record<Product, NodeDetail>>): void =>
    snapshot.setLeaderFacts(detailFacts.collector, { levels: l, nodes: {} } satisfies DetailFacts);
  const ac = new AbortController();
  const run = (): void => void poller.run(ac.signal);
  const stop = async (): Promise<void> => {
    ac.abort();
    await clock.advance(1);
  };
  return {
    clock,
    poller,
    health,
    metadata,
    overruns,
    cycles,
    warnings,
    levels,
    run,
    stop,
    firstRounds: () => firstRounds,
  };
}

/** Health polls sent in each second from `from` to `to` (epoch ms). */
function perSecond(health: Map<string, number[]>, from: number, to: number): number[] {
  const counts = Array<number>(Math.ceil((to - from) / 1000)).fill(0);
  for (const times of health.values()) {
    for (const t of times) if (t >= from && t < to) counts[Math.floor((t - from) / 1000)]!++;
  }
  return counts;
}

describe('rotating health polls (basic, minimal)', () => {
  it('polls each node once per rotation at the rotation rate, oldest first, with no round and no overrun', async () => {
    const t = setup();
    t.levels({ edge: 'minimal' });
    const nodes = ids('edge', 1000);
    await t.poller.setNodes(listed('edge', nodes));
    const rps = rotationRate(1000, INTERVAL);
    // 1,000 nodes whose every interval would need 100 polls/s: the rotation is capped, so each takes longer.
    expect(rps).toBeLessThan(1000 / (INTERVAL / 1000));
    const rotationMs = (1000 / rps) * 1000;
    const t0 = t.clock.now();
    t.run();
    await t.clock.advance(3 * rotationMs);
    // Each node once per rotation (three of them), never two polls of a node closer than a rotation less a second.
    for (const id of nodes) {
      const times = t.health.get(id) ?? [];
      expect(times.length).toBeGreaterThanOrEqual(2);
      expect(times.length).toBeLessThanOrEqual(4);
      for (let i = 1; i < times.length; i++)
        expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(rotationMs - 1000);
    }
    // At the rotation rate: no second has more than its share (and a quarter-second quantum's rounding).
    const seconds = perSecond(t.health, t0, t0 + 3 * rotationMs);
    expect(Math.max(...seconds)).toBeLessThanOrEqual(Math.ceil(rps * 1.25));
    expect(seconds.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3 * 1000 - rps);
    // Oldest first: the second rotation polls the nodes in the order of the first.
    const order = (k: number): string[] =>
      nodes
        .filter((id) => (t.health.get(id)?.length ?? 0) > k)
        .sort((a, b) => t.health.get(a)![k]! - t.health.get(b)![k]!);
    expect(order(1).slice(0, 100)).toEqual(order(0).slice(0, 100));
    // Never reported as an overrun: no round, no overrun, no warning.
    expect(t.overruns.every((o) => !o)).toBe(true);
    expect(t.cycles).toEqual([]);
    expect(t.warnings).toEqual([]);
    const status = t.poller.status();
    expect(status.overrun).toBe(false);
    expect(status.rotations.edge).toEqual({ nodes: 1000, rps, seconds: rotationMs / 1000 });
    await t.stop();
  });

  it('does not poll the riders (metadata) of rotating nodes; full-level nodes get theirs', async () => {
    const t = setup();
    t.levels({ edge: 'basic', stream: 'full' });
    await t.poller.setNodes(new Map([...listed('edge', ids('edge', 20)), ...listed('stream', ids('stream', 20))]));
    t.run();
    await t.clock.advance(8 * INTERVAL);
    expect(t.metadata.filter((id) => id.startsWith('edge'))).toEqual([]);
    expect(new Set(t.metadata.filter((id) => id.startsWith('stream'))).size).toBe(20);
    await t.stop();
  });

  it('full-level products keep their slots: every node once per interval beside a rotating product', async () => {
    const t = setup();
    t.levels({ edge: 'minimal', stream: 'full' });
    const stream = ids('stream', 50);
    await t.poller.setNodes(new Map([...listed('edge', ids('edge', 1500)), ...listed('stream', stream)]));
    t.run();
    await t.clock.advance(6 * INTERVAL);
    for (const id of stream) {
      const steady = (t.health.get(id) ?? []).slice(1);
      expect(steady.length).toBeGreaterThanOrEqual(4);
      for (let i = 1; i < steady.length; i++) expect(steady[i]! - steady[i - 1]!).toBe(INTERVAL);
    }
    // Rounds are the full-level nodes': within the interval, never an overrun.
    expect(t.cycles.length).toBeGreaterThanOrEqual(4);
    expect(t.cycles.slice(1).every((d) => d <= INTERVAL * 1.1)).toBe(true);
    expect(t.overruns.every((o) => !o)).toBe(true);
    await t.stop();
  });

  it('a fleet that rotates in full has its first round at the listing (its liveness is the listing)', async () => {
    const t = setup();
    t.levels({ edge: 'minimal' });
    await t.poller.setNodes(listed('edge', ids('edge', 10)));
    expect(t.firstRounds()).toBe(1);
  });

  it('a product that goes from full to minimal leaves the rounds: an overrun in force is cleared', async () => {
    // One poll at a time, 50 ms each: 20 polls/s for 1,000 nodes every 10 s, below the pinned rate's need.
    const t = setup(
      {
        maxOutstanding: 1,
        budget: budgetView({ rate: 20, maxRps: 20 }),
        rate: { setting: 20, ceiling: 1000 },
      },
      50,
    );
    t.levels({ edge: 'full' });
    const nodes = listed('edge', ids('edge', 1000));
    await t.poller.setNodes(nodes);
    t.run();
    await t.clock.advance(3 * INTERVAL);
    expect(t.overruns).toEqual([false, true]);
    t.levels({ edge: 'minimal' });
    await t.poller.setNodes(nodes);
    expect(t.overruns.at(-1)).toBe(false);
    expect(t.poller.status()).toMatchObject({ overrun: false, rotations: { edge: { nodes: 1000 } } });
    await t.clock.advance(3 * INTERVAL);
    expect(t.overruns.at(-1)).toBe(false);
    await t.stop();
  });
});
