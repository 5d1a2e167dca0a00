/**
 * The per-node schedule (issue 14): each node has its own due time, its phase spread over the interval; a slow
 * or timed-out poll delays only its node; rounds, overrun and its cause. The injected clock drives everything.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { LeaderRequest, LeaderResult } from '../../src/leader/types.js';
import { QUANTUM_MAX_POLLS, quantumFor, type PollerOptions } from '../../src/polling/poller.js';
import { budgetView } from '../helpers/budget.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeLeaderClient } from '../helpers/fake-leader-client.js';
import { fleet, MemorySnapshot, testPoller } from '../helpers/memory-snapshot.js';

const INTERVAL = 30_000;

const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => `node-${i}`);

/** Log lines at warn and above, as objects. */
function capture(): { logger: pino.Logger; lines: { msg: string; cause?: string }[] } {
  const lines: { msg: string; cause?: string }[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (l: string) => lines.push(JSON.parse(l) as { msg: string; cause?: string }) },
  );
  return { logger, lines };
}

/**
 * A poller running its loop against a scripted leader: `answer(id)` says how long the node takes (ms on the
 * fake clock), whether it answers or times out, how long the poll waits before it is sent, and how long it keeps
 * the event loop busy.
 */
function setup(
  answer: (id: string, now: number) => { ms: number; timeout?: boolean; beforeSendMs?: number; stallMs?: number },
  opts: Partial<Omit<PollerOptions, 'poll' | 'snapshot' | 'listing'>> = {},
) {
  const clock = new FakeClock();
  const snapshot = new MemorySnapshot();
  const polls = new Map<string, number[]>();
  const base = fakeLeaderClient(() => ({ status: 200, json: { status: 'healthy', startTime: 1 } }));
  const client = {
    ...base,
    async request<T>(req: LeaderRequest<T>): Promise<LeaderResult<T>> {
      const id = decodeURIComponent(req.path.split('/')[2]!);
      if (req.path.endsWith('/health')) polls.set(id, [...(polls.get(id) ?? []), clock.now()]);
      const a = answer(id, clock.now());
      if (a.stallMs) clock.stall(a.stallMs);
      if (a.beforeSendMs) await clock.sleep(a.beforeSendMs);
      req.onSent?.();
      if (a.ms > 0) await clock.sleep(a.ms);
      req.onExchange?.(a.ms);
      if (a.timeout) return { ok: false, reason: 'timeout', message: 'timed out' };
      return base.request(req);
    },
  };
  const cycles: number[] = [];
  const overruns: boolean[] = [];
  const slow: number[] = [];
  const ages: number[] = [];
  const { logger, lines } = capture();
  const poller = testPoller({
    client,
    snapshot,
    clock,
    logger,
    healthIntervalMs: INTERVAL,
    metadataIntervalMs: 600_000,
    maxOutstanding: 8,
    slowPollMs: 10_000,
    metrics: {
      healthCycle: (_t, d) => cycles.push(d),
      overrun: (a) => overruns.push(a),
      slowNodes: (n) => slow.push(n),
      pollAgeMax: (s) => ages.push(s),
    },
    ...opts,
  });
  const ac = new AbortController();
  const start = async (nodes: string[]): Promise<void> => {
    await poller.setNodes(fleet(nodes));
    void poller.run(ac.signal);
  };
  const stop = async (): Promise<void> => {
    ac.abort();
    await clock.advance(1);
  };
  return { clock, poller, polls, cycles, overruns, slow, ages, lines, start, stop };
}

/** Largest gap between consecutive polls of each node, after its first two polls. */
function maxGap(times: number[]): number {
  let gap = 0;
  for (let i = 2; i < times.length; i++) gap = Math.max(gap, times[i]! - times[i - 1]!);
  return gap;
}

describe('per-node schedule', () => {
  it('polls new nodes at once, then each node at its own slot, exactly once per interval', async () => {
    const t = setup(() => ({ ms: 5 }), { maxOutstanding: 64 });
    const t0 = t.clock.now();
    await t.start(ids(50));
    await t.clock.advance(1);
    expect([...t.polls.values()].map((p) => p[0]! - t0)).toEqual(Array(50).fill(0));
    await t.clock.advance(5 * INTERVAL);
    for (const times of t.polls.values()) {
      // After the first poll: every slot, 30 s apart; the first slot comes at least half an interval later.
      const steady = times.slice(1);
      for (let i = 1; i < steady.length; i++) expect(steady[i]! - steady[i - 1]!).toBe(INTERVAL);
      expect(steady[0]! - t0).toBeGreaterThanOrEqual(INTERVAL / 2);
      expect(steady[0]! - t0).toBeLessThan(1.5 * INTERVAL);
    }
    // Every round after the first: every node once per interval.
    expect(t.cycles.slice(1).every((d) => d <= INTERVAL)).toBe(true);
    await t.stop();
  });

  it('with a quantum, scheduled polls go out together on its multiples, each node once per interval', async () => {
    const t = setup(() => ({ ms: 5 }), { maxOutstanding: 1000, quantumMs: 250 });
    await t.start(ids(600));
    await t.clock.advance(4 * INTERVAL);
    const sends = new Set<number>();
    for (const times of t.polls.values()) {
      const steady = times.slice(1);
      expect(steady.length).toBeGreaterThanOrEqual(3);
      for (const at of steady) expect(at % 250).toBe(0);
      for (let i = 1; i < steady.length; i++) expect(steady[i]! - steady[i - 1]!).toBe(INTERVAL);
      for (const at of steady) sends.add(at);
    }
    // 600 nodes' slots in 30 s fall on at most 120 quanta per interval (without a quantum: about 600 wake-ups).
    expect(sends.size).toBeLessThanOrEqual((4 * INTERVAL) / 250);
    await t.stop();
  });

  it('with a quantum, a large fleet wakes on a shorter one: at most QUANTUM_MAX_POLLS due per quantum', async () => {
    // 7,000 nodes every 30 s: 20 polls are 85.7 ms, and 80 ms is the longest quantum under it that divides 30 s.
    const t = setup(() => ({ ms: 1 }), { maxOutstanding: 1000, quantumMs: 250 });
    await t.start(ids(7000));
    await t.clock.advance(3 * INTERVAL);
    const perSend = new Map<number, number>();
    for (const times of t.polls.values()) {
      const steady = times.slice(1);
      for (const at of steady) {
        expect(at % 80).toBe(0);
        perSend.set(at, (perSend.get(at) ?? 0) + 1);
      }
      // Each node's polls stay exactly one interval apart.
      for (let i = 1; i < steady.length; i++) expect(steady[i]! - steady[i - 1]!).toBe(INTERVAL);
    }
    // Some sends fall between multiples of 250 ms (with the full quantum every one would be on them)...
    expect([...perSend.keys()].some((at) => at % 250 !== 0)).toBe(true);
    // ...and no quantum brings a pile: about 19 polls each (hash phases are not perfectly even).
    expect(Math.max(...perSend.values())).toBeLessThanOrEqual(3 * QUANTUM_MAX_POLLS);
    await t.stop();
  });

  it('with a quantum, a finished poll still starts the next waiting one at once', async () => {
    const t = setup(() => ({ ms: 5 }), { maxOutstanding: 2, quantumMs: 250 });
    const t0 = t.clock.now();
    await t.start(ids(10));
    await t.clock.advance(100);
    // Ten first polls, two at a time, 5 ms each: done within 25 ms, not one pair per quantum.
    const first = [...t.polls.values()].map((p) => p[0]! - t0);
    expect(first).toHaveLength(10);
    expect(Math.max(...first)).toBeLessThanOrEqual(25);
    await t.stop();
  });

  it('spreads the nodes’ slots over the interval (no thundering herd)', async () => {
    const t = setup(() => ({ ms: 1 }));
    await t.start(ids(600));
    await t.clock.advance(2 * INTERVAL);
    // The second poll of each node is at its slot: count them per second of the interval.
    const perSecond = new Map<number, number>();
    for (const times of t.polls.values()) {
      const s = Math.floor((times[1]! % INTERVAL) / 1000);
      perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
    }
    // 600 nodes over 30 s: 20 per second on average; every second has some, none has a pile.
    expect(perSecond.size).toBe(30);
    expect(Math.max(...perSecond.values())).toBeLessThan(40);
    await t.stop();
  });

  it('a node that always times out leaves every other node refreshed on its interval, and overrun at 0', async () => {
    // The stuck node takes the client's whole timeout (connect + headers: 15 s) every time.
    // Two polls at a time: the stuck node holds one of them for 15 s of every 30.
    const t = setup((id) => (id === 'node-0' ? { ms: 15_000, timeout: true } : { ms: 20 }), { maxOutstanding: 2 });
    await t.start(ids(40));
    await t.clock.advance(10 * INTERVAL);
    for (const [id, times] of t.polls) {
      if (id === 'node-0') continue;
      expect(times.length, id).toBeGreaterThanOrEqual(10);
      // At its slot, give or take the 20 ms answers of neighbours sharing the one free poll.
      expect(maxGap(times), id).toBeLessThanOrEqual(INTERVAL + 100);
      expect((times.at(-1)! - times[1]!) / (times.length - 2), id).toBe(INTERVAL);
    }
    expect(t.overruns).toEqual([false]);
    expect(t.slow.at(-1)).toBe(1);
    // Rounds: every node once per interval (first round: the burst of first polls).
    expect(Math.max(...t.cycles.slice(1))).toBeLessThanOrEqual(INTERVAL * 1.05);
    expect(t.lines.filter((l) => l.msg.includes('less often'))).toEqual([]);
    // The stuck node never answered: it does not count in the age of the oldest refresh.
    expect(Math.max(...t.ages.slice(-5))).toBeLessThanOrEqual(INTERVAL / 1000 + 1);
    await t.stop();
  });

  it('a node answering after 40 s is polled at the slots it is free for', async () => {
    const t = setup((id) => (id === 'node-3' ? { ms: 40_000 } : { ms: 10 }));
    await t.start(ids(10));
    await t.clock.advance(6 * INTERVAL);
    const slowTimes = t.polls.get('node-3')!;
    // 40 s per answer: its slot comes while the previous poll still runs, so every other slot is skipped.
    expect(maxGap(slowTimes)).toBe(2 * INTERVAL);
    for (const [id, times] of t.polls) if (id !== 'node-3') expect(maxGap(times), id).toBe(INTERVAL);
    expect(t.overruns).toEqual([false]);
    expect(t.slow.at(-1)).toBe(1);
    await t.stop();
  });
});

describe('overrun: only the budget, and the log names the real cause', () => {
  /** One poll at a time (maxOutstanding 1), each taking `ms`: 1000 / ms polls per second at most. */
  const rateLimited = (ms: number) => () => ({ ms });

  it('a rate too low for the fleet: overrun 1 with the setting to raise; back to 0 once it covers', async () => {
    // 900 nodes every 30 s need 30/s (+ metadata); the pinned rate allows 20/s.
    const budget = budgetView({ rate: 20, maxRps: 20 });
    let perRequestMs = 50;
    const t = setup(() => ({ ms: perRequestMs }), {
      maxOutstanding: 1,
      budget,
      rate: { setting: 20, ceiling: 1000 },
    });
    await t.start(ids(900));
    await t.clock.advance(3 * INTERVAL);
    expect(t.overruns).toEqual([false, true]);
    const warn = t.lines.find((l) => l.cause === 'rate');
    expect(warn?.msg).toContain('--leader.max-rps 20 is below');
    expect(t.poller.status()).toMatchObject({ overrun: true, cause: 'rate' });

    budget.set({ rate: 100, maxRps: 100 });
    perRequestMs = 10;
    await t.clock.advance(6 * INTERVAL);
    expect(t.overruns).toEqual([false, true, false]);
    expect(t.lines.at(-1)?.msg).toContain('within its interval again');
    await t.stop();
  });

  it('auto capped by its ceiling names --leader.max-rps-ceiling', async () => {
    const budget = budgetView({ rate: 20, maxRps: 20 });
    const t = setup(rateLimited(50), { maxOutstanding: 1, budget, rate: { setting: 'auto', ceiling: 20 } });
    await t.start(ids(900));
    await t.clock.advance(2 * INTERVAL);
    expect(t.lines.find((l) => l.cause === 'rate')?.msg).toContain('--leader.max-rps-ceiling');
    await t.stop();
  });

  it('a leader pause names the pause, not a setting', async () => {
    const budget = budgetView({ rate: 1000 });
    const t = setup(rateLimited(50), { maxOutstanding: 1, budget });
    await t.start(ids(900));
    budget.set({ paused: true });
    await t.clock.advance(2 * INTERVAL);
    const warn = t.lines.find((l) => l.cause === 'pause');
    expect(warn?.msg).toContain('the leader made us pause');
    expect(warn?.msg).not.toContain('--leader.max-rps');
    expect(t.overruns).toContain(true);
    await t.stop();
  });

  it('a concurrency window too small for the leader’s response time names --leader.max-concurrency', async () => {
    const budget = budgetView({ rate: 1000, limit: 8, maxConcurrency: 8, latencyMs: 500 }, 16);
    const t = setup(rateLimited(50), { maxOutstanding: 1, budget });
    await t.start(ids(900));
    await t.clock.advance(2 * INTERVAL);
    expect(t.lines.find((l) => l.cause === 'concurrency')?.msg).toContain('raise --leader.max-concurrency');
    await t.stop();
  });

  it('slow nodes do not hold the fleet up, even more of them than polls may be outstanding', async () => {
    const stuck = new Set(['node-1', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6']);
    const budget = budgetView({ rate: 1000 });
    const t = setup((id) => (stuck.has(id) ? { ms: 15_000, timeout: true } : { ms: 10 }), {
      maxOutstanding: 2,
      budget,
    });
    await t.start(ids(60));
    await t.clock.advance(6 * INTERVAL);
    for (const [id, times] of t.polls) {
      if (stuck.has(id)) continue;
      // Each waits at most until a stuck poll stops counting (2 s), never a whole timeout.
      expect(maxGap(times), id).toBeLessThanOrEqual(INTERVAL + 2_100);
    }
    expect(t.overruns).toEqual([false]);
    expect(t.slow.at(-1)).toBe(6);
    await t.stop();
  });

  it('a node that turns slow holds its round up before its poll times out: named as a slow node', async () => {
    // Every node answers at once, until five stop answering: their polls run on past their next slot (the round
    // counts such a node at that slot) and time out later still, so no node is counted slow yet.
    const stuck = new Set(['node-1', 'node-5', 'node-9', 'node-13', 'node-17']);
    let hung = false;
    const budget = budgetView({ rate: 1000 });
    const t = setup((id) => (hung && stuck.has(id) ? { ms: 45_000, timeout: true } : { ms: 10 }), { budget });
    await t.start(ids(20));
    await t.clock.advance(2 * INTERVAL);
    hung = true;
    await t.clock.advance(INTERVAL + 5_000);
    const warn = t.lines.find((l) => l.msg.includes('less often'));
    expect(warn?.cause).toBe('slow_nodes');
    expect(warn?.msg).toMatch(
      /^nodes are refreshed less often than --health.interval: (1 node answers|[2-5] nodes answer) slower/,
    );
    expect(t.slow.at(-1)).toBe(0);
    expect(t.lines.some((l) => l.cause === 'exporter')).toBe(false);
    expect(t.overruns).toEqual([false]);
    await t.stop();
  });

  it('polls waiting in the budget for a slot that slow answers hold: slow answers, not credentials', async () => {
    const budget = budgetView({ rate: 1000, inFlight: 8, waiting: 12 });
    const t = setup(() => ({ ms: 0, beforeSendMs: 3_000 }), { maxOutstanding: 1, budget });
    await t.start(ids(20));
    await t.clock.advance(4 * INTERVAL);
    const warn = t.lines.find((l) => l.msg.includes('less often'));
    expect(warn?.cause).toBe('slow_nodes');
    expect(warn?.msg).toMatch(/: 1 poll waits for a request slot/);
    expect(t.lines.some((l) => l.cause === 'credentials')).toBe(false);
    expect(t.overruns).toEqual([false]);
    await t.stop();
  });

  it('polls that wait for a token before they are sent: named as credentials, not the budget', async () => {
    const budget = budgetView({ rate: 1000 });
    const t = setup(() => ({ ms: 0, beforeSendMs: 3_000 }), { maxOutstanding: 1, budget });
    await t.start(ids(20));
    await t.clock.advance(4 * INTERVAL);
    const warn = t.lines.find((l) => l.msg.includes('less often'));
    expect(warn?.cause).toBe('credentials');
    expect(warn?.msg).toContain("polls wait for the leader's credentials");
    expect(t.overruns).toEqual([false]);
    await t.stop();
  });

  it('a round late for another reason than the budget: overrun 0, no advice to raise --leader.max-rps', async () => {
    // The exporter itself: each poll keeps the event loop busy for 3 s (time passes, no timer runs), the budget
    // wide open.
    const budget = budgetView({ rate: 1000 });
    const t = setup(() => ({ ms: 1, stallMs: 3_000 }), { maxOutstanding: 1, budget });
    await t.start(ids(20));
    await t.clock.advance(4 * INTERVAL);
    const warn = t.lines.find((l) => l.msg.includes('less often'));
    expect(warn?.cause).toBe('exporter');
    expect(warn?.msg).toMatch(/event loop ran up to [\d.]+ s late/);
    expect(warn?.msg).not.toContain('--leader.max-rps');
    expect(t.overruns).toEqual([false]);
    await t.stop();
  });
});

describe('quantumFor', () => {
  it.each([
    // [max quantum, nodes, interval, quantum in force]
    [250, 0, 30_000, 250],
    [250, 1_000, 30_000, 250],
    [250, 2_400, 30_000, 250],
    [250, 2_401, 30_000, 240],
    [250, 7_000, 30_000, 80],
    [250, 10_000, 45_000, 90],
    [250, 10_000, 30_000, 60],
    [250, 50_000, 30_000, 12],
    [250, 50_000, 60_000, 24],
    [250, 10_000_000, 30_000, 1],
    [0, 50_000, 30_000, 0],
  ])('quantumFor(%i, %i nodes, %i ms) = %i', (max, nodes, interval, want) => {
    expect(quantumFor(max, nodes, interval)).toBe(want);
  });
});
