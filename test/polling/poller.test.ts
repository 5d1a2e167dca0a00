import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { fnv1a64 } from '../../src/discovery/shard.js';
import type { LeaderClient, LeaderRequest } from '../../src/leader/types.js';
import { hashBucket } from '../../src/util/hash.js';
import { nodePhase } from '../../src/polling/poller.js';
import { dueTracker, serialRunner } from '../../src/polling/scheduler.js';
import { FakeClock, flushMicrotasks } from '../helpers/fake-clock.js';
import { fakeLeaderClient, type FakeAnswer } from '../helpers/fake-leader-client.js';
import { fleet, MemorySnapshot, testPoller } from '../helpers/memory-snapshot.js';

const logger = pino({ level: 'silent' });

const healthy = { status: 200, json: { status: 'healthy', startTime: 1, role: 'primary' } };

function setup(
  answer: (req: LeaderRequest<unknown>) => FakeAnswer,
  opts: { maxOutstanding?: number; interval?: number; sliceMs?: number; onFirstRound?: () => void } = {},
  wrap: (client: ReturnType<typeof fakeLeaderClient>) => LeaderClient = (c) => c,
) {
  const clock = new FakeClock();
  const snapshot = new MemorySnapshot();
  const times: { path: string; at: number }[] = [];
  const fake = fakeLeaderClient((req) => {
    times.push({ path: req.path, at: clock.now() });
    return answer(req);
  });
  const client = Object.assign(wrap(fake), { calls: fake.calls });
  const cycles: [number, number][] = [];
  const overruns: boolean[] = [];
  const poller = testPoller({
    client,
    snapshot,
    clock,
    logger,
    healthIntervalMs: opts.interval ?? 30_000,
    metadataIntervalMs: 600_000,
    maxOutstanding: opts.maxOutstanding ?? 16,
    ...(opts.sliceMs === undefined ? {} : { sliceMs: opts.sliceMs }),
    ...(opts.onFirstRound ? { onFirstRound: opts.onFirstRound } : {}),
    metrics: { healthCycle: (t, d) => cycles.push([t, d]), overrun: (a) => overruns.push(a) },
  });
  return { clock, snapshot, client, poller, times, cycles, overruns };
}

describe('Poller health', () => {
  it('calls onFirstRound once, when every node’s first health poll ended and is in the snapshot', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e'];
    /** Nodes with a health state in the snapshot at each call. */
    const calls: number[] = [];
    const { poller, snapshot } = setup(
      (req) => (req.path === '/w/c/health' ? { fail: { ok: false, reason: 'timeout', message: 't' } } : healthy),
      { maxOutstanding: 2, onFirstRound: () => calls.push(ids.filter((k) => snapshot.held.get(k)?.health).length) },
    );
    await poller.setNodes(fleet(ids));
    await poller.runHealthCycle(new AbortController().signal);
    // A failed poll counts: the node's state (down, timeout) is known.
    expect(calls).toEqual([5]);
    await poller.setNodes(fleet([...ids, 'f']));
    await poller.runHealthCycle(new AbortController().signal);
    expect(calls).toEqual([5]);
  });

  it('a node that left before its first poll ended does not hold the first round back', async () => {
    let calls = 0;
    const { poller } = setup(
      () => healthy,
      { onFirstRound: () => calls++ },
      (c) => ({
        ...c,
        // b's first poll never ends.
        request: (req) => (req.path === '/w/b/health' ? new Promise(() => undefined) : c.request(req)),
      }),
    );
    await poller.setNodes(fleet(['a', 'b']));
    const ac = new AbortController();
    void poller.runHealthCycle(ac.signal);
    await flushMicrotasks(10);
    expect(calls).toBe(0);
    await poller.setNodes(fleet(['a']));
    expect(calls).toBe(1);
    ac.abort();
  });

  it('maps 200 healthy, 420 shutting down / standby and failures to node state', async () => {
    const { poller, snapshot, clock } = setup((req) => {
      if (req.path === '/w/a/health') return healthy;
      if (req.path === '/w/b/health') return { status: 420, json: { status: 'shutting down', startTime: 1 } };
      if (req.path === '/w/c/health') return { status: 420, json: { status: 'standby', startTime: 1 } };
      // The leader's own standby body (role standby: no worker has that role) says nothing of node f.
      if (req.path === '/w/f/health')
        return { status: 420, json: { status: 'standby', startTime: 1, role: 'standby' } };
      if (req.path === '/w/d/health') return { status: 502, json: { status: 'error', message: 'upstream' } };
      return { status: 200, json: { status: 'nonsense' } };
    });
    await poller.setNodes(fleet(['a', 'b', 'c', 'd', 'e', 'f']));
    const now = clock.now();
    await poller.runHealthCycle(new AbortController().signal);
    const h = (k: string) => snapshot.held.get(k)?.health;
    expect(h('a')).toEqual({ up: true, status: 'healthy', lastSuccessMs: now, startTime: 1 });
    expect(h('b')).toEqual({ up: true, status: 'shutting down', lastSuccessMs: now, startTime: 1 });
    expect(h('c')).toEqual({ up: true, status: 'standby', lastSuccessMs: now, startTime: 1 });
    expect(h('d')).toEqual({ up: false, failure: 'http_5xx' });
    expect(h('e')).toEqual({ up: false, failure: 'decode' });
    // The leader's answer about itself is none about f: f keeps what it had (nothing yet).
    expect(h('f')).toBeUndefined();
  });

  it.each([
    ['not sent (the budget could not fit it)', { ok: false, reason: 'throttled', message: 'not sent' }],
    ['answered 429 by the leader', { ok: false, reason: 'throttled', status: 429, message: '429' }],
    ['not sent while the leader is held (420)', { ok: false, reason: 'leader_unavailable', message: 'held' }],
  ] as const)('a poll %s leaves the node’s last answer standing', async (_what, fail) => {
    let failing = false;
    const { poller, snapshot, clock } = setup(() => (failing ? { fail: { ...fail } } : healthy));
    await poller.setNodes(fleet(['a']));
    await poller.runHealthCycle(new AbortController().signal);
    const answered = snapshot.held.get('a')?.health;
    expect(answered).toEqual({ up: true, status: 'healthy', lastSuccessMs: clock.now(), startTime: 1 });
    failing = true;
    await clock.advance(30_000);
    await poller.runHealthCycle(new AbortController().signal);
    expect(snapshot.held.get('a')?.health).toEqual(answered);
  });

  it('keeps the last success time across a failure', async () => {
    let fail = false;
    const { poller, snapshot, clock } = setup(() =>
      fail ? { fail: { ok: false, reason: 'timeout', message: 't' } } : healthy,
    );
    await poller.setNodes(fleet(['a']));
    await poller.runHealthCycle(new AbortController().signal);
    const t0 = clock.now();
    fail = true;
    await clock.advance(30_000);
    await poller.runHealthCycle(new AbortController().signal);
    expect(snapshot.held.get('a')?.health).toEqual({ up: false, failure: 'timeout', lastSuccessMs: t0, startTime: 1 });
  });

  it('encodes every node id as one path segment and marks node requests as node-scoped', async () => {
    const ids = ['../../auth/login', 'a/b', 'x?y#z', '100%', 'ünï cødé', '"q"\\'];
    const { poller, client } = setup(() => healthy);
    await poller.setNodes(fleet(ids));
    await poller.runHealthCycle(new AbortController().signal);
    const paths = client.calls.map((c) => c.path);
    expect(paths).toEqual(ids.map((id) => `/w/${encodeURIComponent(id)}/health`));
    for (const p of paths) expect(p.split('/')).toHaveLength(4);
    expect(client.calls.every((c) => c.nodeScoped === true && c.accept?.includes(420))).toBe(true);
  });

  it('a pass polls new nodes first, then the others, and reports the round', async () => {
    const { poller, clock, times, cycles } = setup(() => healthy, { interval: 30_000 });
    await poller.setNodes(fleet(['a', 'b', 'c']));
    const t0 = clock.now();
    await poller.runHealthCycle(new AbortController().signal);
    expect(times.map((t) => t.at - t0)).toEqual([0, 0, 0]);
    await poller.setNodes(fleet(['a', 'b', 'c', 'd']));
    times.length = 0;
    await poller.runHealthCycle(new AbortController().signal);
    const health = times.filter((t) => t.path.endsWith('/health'));
    expect(health[0]?.path).toBe('/w/d/health');
    expect(health.map((t) => t.path).sort()).toEqual(['/w/a/health', '/w/b/health', '/w/c/health', '/w/d/health']);
    expect(cycles.at(-1)?.[0]).toBe(30);
  });

  it('keeps at most maxOutstanding requests outstanding', async () => {
    let inFlight = 0;
    let peak = 0;
    const clock = new FakeClock();
    const snapshot = new MemorySnapshot();
    const client = fakeLeaderClient(() => healthy);
    const slow = {
      ...client,
      async request<T>(req: LeaderRequest<T>) {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await clock.sleep(100);
        inFlight--;
        return client.request(req);
      },
    };
    const poller = testPoller({
      client: slow,
      snapshot,
      clock,
      logger,
      healthIntervalMs: 30_000,
      metadataIntervalMs: 600_000,
      maxOutstanding: 3,
    });
    await poller.setNodes(fleet(Array.from({ length: 20 }, (_, i) => `n${i}`)));
    const run = poller.runHealthCycle(new AbortController().signal);
    await clock.advance(2_000);
    await run;
    expect(peak).toBe(3);
    expect(snapshot.held.get('n19')?.health?.up).toBe(true);
  });
});

describe('Poller discovery updates and metadata', () => {
  it('applies a large listing in slices, letting the event loop (and scrapes) run in between', async () => {
    // Slices are timed (4 ms by default); with 0 ms every 16 nodes is a slice.
    const { poller, snapshot } = setup(() => healthy, { sliceMs: 0 });
    let ranDuring = false;
    const applied = poller.setNodes(fleet(Array.from({ length: 2_000 }, (_, i) => `n${i}`)));
    setImmediate(() => {
      ranDuring = snapshot.held.size < 2_000;
    });
    await applied;
    expect(ranDuring).toBe(true);
    expect(snapshot.held.size).toBe(2_000);
  });

  it('removes nodes that left the listing from the snapshot', async () => {
    const { poller, snapshot } = setup(() => healthy);
    await poller.setNodes(fleet(['a', 'b']));
    await poller.runHealthCycle(new AbortController().signal);
    await poller.setNodes(fleet(['b']));
    expect([...snapshot.held.keys()]).toEqual(['b']);
    expect(poller.status().nodes).toBe(1);
  });

  const meta = {
    status: 200,
    json: {
      count: 1,
      items: [
        {
          timestamp: 1,
          cribl: { mode: 'managed-edge', version: '4.15.1' },
          os: { os_name: 'Ubuntu', os_version: '22.04' },
        },
      ],
    },
  };
  const metaCalls = (client: { calls: LeaderRequest<unknown>[] }) =>
    client.calls.filter((c) => c.path.endsWith('/edge/metadata')).map((c) => c.path);

  it("never fetches metadata in a node's first cycle, then spreads first fetches over the next cycles", async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `n${i}`);
    const { poller, snapshot, client, clock } = setup((req) => (req.path.endsWith('/edge/metadata') ? meta : healthy), {
      interval: 30_000,
    });
    await poller.setNodes(fleet(ids));
    const cycle = async () => {
      const r = poller.runHealthCycle(new AbortController().signal);
      await clock.advance(30_000);
      await r;
    };
    await cycle();
    expect(metaCalls(client)).toEqual([]);
    const perCycle: number[] = [];
    for (let i = 0; i < 4; i++) {
      client.calls.length = 0;
      await cycle();
      perCycle.push(metaCalls(client).length);
    }
    // 10m metadata / 30s health: first fetches spread over 4 cycles, each node exactly once.
    expect(perCycle.reduce((a, b) => a + b, 0)).toBe(40);
    expect(Math.max(...perCycle)).toBeLessThan(20);
    expect(snapshot.held.get('n7')?.metadata?.value?.os?.os_name).toBe('Ubuntu');
    // Nothing more until the metadata interval has passed.
    client.calls.length = 0;
    await cycle();
    expect(metaCalls(client)).toEqual([]);
  });

  it('fetches metadata again after the metadata interval and right after a restart', async () => {
    const { poller, client, clock } = setup((req) => (req.path.endsWith('/edge/metadata') ? meta : healthy), {
      interval: 30_000,
    });
    await poller.setNodes(fleet(['a', 'b']));
    const cycle = async () => {
      const r = poller.runHealthCycle(new AbortController().signal);
      await clock.advance(30_000);
      await r;
    };
    for (let i = 0; i < 5; i++) await cycle();
    client.calls.length = 0;
    await cycle();
    expect(metaCalls(client)).toEqual([]);

    // b restarted: its start time in the listing changed.
    const next = new Map([...fleet(['a']), ...fleet(['b'], 1717200000000 + 1000)]);
    await poller.setNodes(next);
    await cycle();
    expect(metaCalls(client)).toEqual(['/w/b/edge/metadata']);

    client.calls.length = 0;
    for (let i = 0; i < 20; i++) await cycle(); // 10 minutes
    expect(metaCalls(client).sort()).toEqual(['/w/a/edge/metadata', '/w/b/edge/metadata']);
  });

  it("a changed startTime in a node's own health answer also triggers a metadata poll", async () => {
    let started = 1;
    const { poller, client } = setup(
      (req) =>
        req.path.endsWith('/edge/metadata') ? meta : { status: 200, json: { status: 'healthy', startTime: started } },
      { interval: 600_000 },
    );
    await poller.setNodes(fleet(['a']));
    await poller.runHealthCycle(new AbortController().signal);
    await poller.runHealthCycle(new AbortController().signal);
    expect(metaCalls(client)).toHaveLength(1);
    await poller.runHealthCycle(new AbortController().signal);
    expect(metaCalls(client)).toHaveLength(1);
    started = 2;
    await poller.runHealthCycle(new AbortController().signal);
    expect(metaCalls(client)).toHaveLength(2);
  });

  it('a metadata poll the leader throttled keeps the node’s metadata and is asked again at the next poll', async () => {
    let throttle = false;
    const { poller, client, clock, snapshot } = setup(
      (req) =>
        req.path.endsWith('/edge/metadata')
          ? throttle
            ? { fail: { ok: false, reason: 'throttled', status: 429, message: '429' } }
            : meta
          : healthy,
      { interval: 30_000 },
    );
    await poller.setNodes(fleet(['b']));
    const cycle = async () => {
      const r = poller.runHealthCycle(new AbortController().signal);
      await clock.advance(30_000);
      await r;
    };
    for (let i = 0; i < 5; i++) await cycle();
    const kept = snapshot.held.get('b')?.metadata;
    expect(kept).toBeDefined();
    // b restarted; its metadata poll after the restart is throttled, then answered at the next poll.
    await poller.setNodes(new Map(fleet(['b'], 1717200000000 + 1000)));
    throttle = true;
    client.calls.length = 0;
    await cycle();
    expect(metaCalls(client)).toEqual(['/w/b/edge/metadata']);
    expect(snapshot.held.get('b')?.metadata).toEqual(kept);
    throttle = false;
    client.calls.length = 0;
    await cycle();
    expect(metaCalls(client)).toEqual(['/w/b/edge/metadata']);
  });

  it('does not ask a node that did not answer its health poll for metadata', async () => {
    const { poller, client } = setup(
      (req) => (req.path.endsWith('/edge/metadata') ? meta : { status: 502, json: { message: 'down' } }),
      { interval: 600_000 },
    );
    await poller.setNodes(fleet(['a']));
    for (let i = 0; i < 3; i++) await poller.runHealthCycle(new AbortController().signal);
    expect(metaCalls(client)).toEqual([]);
  });
});

describe('a node’s slots: its phase in the interval, its bucket among the first polls', () => {
  /** The formulas in BigInt (fnv1a64 is checked against its reference in shard.test.ts). */
  function reference(key: string, spread: number, intervalMs: number): { bucket: number; phase: number } {
    const h = fnv1a64(key);
    return { bucket: Number(h % BigInt(spread)), phase: Number((h >> 16n) % BigInt(intervalMs)) };
  }
  const keys = [
    '',
    'worker/default/1f0c3c2e-5e9b-4d6f-9b1a-6f2d3c4b5a69',
    'edge/fleet/nœud-é',
    ...Array.from({ length: 300 }, (_, i) => `worker/g${i % 7}/node-${i}-${(i * 2654435761) % 1000003}`),
  ];
  const slots = (key: string, spread: number, intervalMs: number) => ({
    bucket: hashBucket(key, spread),
    phase: nodePhase(key, intervalMs),
  });
  it.each([
    [1, 30_000],
    [2, 30_000],
    [3, 10_000],
    [4, 60_000],
    [4, 1],
    [5, 86_400_000],
    [1_000_003, 7 * 86_400_000],
  ])('spread %i, interval %i ms: the same slots as the BigInt formula for %#', (spread, intervalMs) => {
    for (const key of keys) expect(slots(key, spread, intervalMs)).toEqual(reference(key, spread, intervalMs));
  });

  it('spreads phases over the interval and buckets evenly', () => {
    const phases = keys.map((k) => nodePhase(k, 30_000));
    const buckets = [0, 0, 0, 0];
    for (const k of keys) buckets[hashBucket(k, 4)]!++;
    expect(Math.min(...phases)).toBeLessThan(3_000);
    expect(Math.max(...phases)).toBeGreaterThan(27_000);
    for (const b of buckets) expect(b).toBeGreaterThan(50);
  });
});

describe('serialRunner', () => {
  it('never overlaps runs; a tick during a run starts the next run right after it', async () => {
    let active = 0;
    let peak = 0;
    let runs = 0;
    const releases: (() => void)[] = [];
    const r = serialRunner(
      async () => {
        active++;
        runs++;
        peak = Math.max(peak, active);
        await new Promise<void>((res) => releases.push(res));
        active--;
      },
      () => {},
    );
    r.tick();
    r.tick();
    r.tick();
    expect(runs).toBe(1);
    releases.shift()!();
    await flushMicrotasks();
    expect(runs).toBe(2);
    releases.shift()!();
    await flushMicrotasks();
    expect(runs).toBe(2);
    expect(peak).toBe(1);
    r.stop();
    r.tick();
    expect(runs).toBe(2);
  });
});

describe('dueTracker', () => {
  // Ticks every second (some a little early or late), interval 30 s, first run at t=0.
  it.each([
    ['on time', [29_000, 30_000, 31_000, 59_000, 60_000], [false, true, false, false, true]],
    [
      'a tick 1 ms early still runs (croner skipped a whole interval here)',
      [29_999, 30_999, 59_999],
      [true, false, true],
    ],
    ['a tick more than half a second early waits', [29_400, 30_001], [false, true]],
    ['late ticks run once and the schedule does not drift', [30_300, 60_100, 90_200], [true, true, true]],
    [
      'after a long stall: one run, then every interval from now',
      [95_000, 96_000, 124_000, 125_000],
      [true, false, false, true],
    ],
  ])('%s', (_name, ticks, want) => {
    const due = dueTracker(30_000, 0);
    expect(ticks.map((t) => due(t))).toEqual(want);
  });
});
