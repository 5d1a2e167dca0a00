import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/leader/budget.js';
import type { BudgetObserver, Denial, Permit, RequestBudgetOptions } from '../../src/leader/budget.js';
import { FakeClock, flushMicrotasks } from '../helpers/fake-clock.js';

function setup(opts: Partial<RequestBudgetOptions> = {}) {
  const clock = new FakeClock();
  const events: string[] = [];
  const observer: BudgetObserver = {
    onConcurrencyChange: (l) => events.push(`limit ${l}`),
    onInFlight: (n) => events.push(`inflight ${n}`),
    onPauseChange: (p, until) =>
      events.push(`pause ${p} ${until === Infinity ? 'inf' : until - (p ? clock.now() : 0)}`),
  };
  const budget = new RequestBudget({ maxRps: 1000, burst: 1000, maxConcurrency: 10, clock, observer, ...opts });
  return { clock, budget, events, t0: clock.now() };
}

/** Starts an acquisition and records when and how it settled. */
function track(budget: RequestBudget, clock: FakeClock, opts: { deadline?: number; signal?: AbortSignal } = {}) {
  const t = { at: undefined as number | undefined, result: undefined as Permit | Denial | undefined };
  void budget.acquire(opts).then((r) => {
    t.at = clock.now();
    t.result = r;
  });
  return t;
}

const permit = (r: Permit | Denial | undefined): Permit => {
  if (!r || !r.granted) throw new Error(`expected a permit, got ${JSON.stringify(r)}`);
  return r;
};

describe('RequestBudget token bucket', () => {
  it('lets a burst through at once, then paces at maxRps', async () => {
    const { clock, budget, t0 } = setup({ maxRps: 10, burst: 3 });
    const ts = Array.from({ length: 6 }, () => track(budget, clock));
    await flushMicrotasks();
    expect(ts.map((t) => t.at)).toEqual([t0, t0, t0, undefined, undefined, undefined]);
    for (const t of ts.slice(0, 3)) permit(t.result).release('neutral');
    await clock.advance(1000);
    expect(ts.map((t) => (t.at ?? NaN) - t0)).toEqual([0, 0, 0, 100, 200, 300]);
  });

  it('refills to the burst size and no further during a quiet spell', async () => {
    const { clock, budget, t0 } = setup({ maxRps: 10, burst: 2 });
    (await budget.acquire()) as Permit;
    await clock.advance(60_000);
    const ts = Array.from({ length: 3 }, () => track(budget, clock));
    await clock.advance(1000);
    expect(ts.map((t) => (t.at ?? NaN) - t0 - 60_000)).toEqual([0, 0, 100]);
  });

  it('serves waiters first come, first served', async () => {
    const { clock, budget } = setup({ maxRps: 1, burst: 1 });
    permit(await budget.acquire()).release('neutral');
    const order: number[] = [];
    for (let i = 0; i < 4; i++) void budget.acquire().then(() => order.push(i));
    await clock.advance(10_000);
    expect(order).toEqual([0, 1, 2, 3]);
  });
});

describe('RequestBudget AIMD window', () => {
  it('grows by one after a good answer while the window is in use', async () => {
    const { budget } = setup({ initialConcurrency: 2 });
    const a = permit(await budget.acquire());
    const b = permit(await budget.acquire());
    a.release('ok');
    expect(budget.state().limit).toBe(3);
    b.release('ok'); // in flight 1 of 3: still ≥ limit/2? 1·2 < 3 → no growth
    expect(budget.state().limit).toBe(3);
  });

  it('does not grow while the window is mostly idle', async () => {
    const { budget } = setup({ initialConcurrency: 8 });
    for (let i = 0; i < 20; i++) permit(await budget.acquire()).release('ok');
    expect(budget.state().limit).toBe(8);
  });

  it('never grows past maxConcurrency', async () => {
    const { budget } = setup({ initialConcurrency: 1, maxConcurrency: 3 });
    for (let i = 0; i < 10; i++) permit(await budget.acquire()).release('ok');
    expect(budget.state().limit).toBe(3);
  });

  it.each([
    ['overload', 8, 4],
    ['timeout', 8, 7],
    ['overload', 1, 1],
    ['timeout', 1, 1],
    ['neutral', 8, 8],
  ] as const)('%s at limit %i → %i', async (outcome, from, to) => {
    const { budget } = setup({ initialConcurrency: from });
    permit(await budget.acquire()).release(outcome);
    expect(budget.state().limit).toBe(to);
  });

  it('cuts once per round: permits granted before a cut do not cut again', async () => {
    const { budget } = setup({ initialConcurrency: 8 });
    const round1 = await Promise.all(Array.from({ length: 4 }, () => budget.acquire()));
    for (const p of round1) permit(p).release('overload');
    expect(budget.state().limit).toBe(4);
    permit(await budget.acquire()).release('overload');
    expect(budget.state().limit).toBe(2);
  });

  it('bounds concurrency by the window', async () => {
    const { clock, budget } = setup({ initialConcurrency: 2 });
    const a = track(budget, clock);
    const b = track(budget, clock);
    const c = track(budget, clock);
    await flushMicrotasks();
    expect([!!a.result, !!b.result, c.result]).toEqual([true, true, undefined]);
    expect(budget.state()).toMatchObject({ inFlight: 2, waiting: 1 });
    permit(a.result).release('neutral');
    await flushMicrotasks();
    expect(c.result?.granted).toBe(true);
  });

  it('ignores a second release of the same permit', async () => {
    const { budget } = setup({ initialConcurrency: 8 });
    const p = permit(await budget.acquire());
    permit(await budget.acquire());
    p.release('overload');
    p.release('overload');
    expect(budget.state()).toMatchObject({ limit: 4, inFlight: 1 });
  });
});

describe('RequestBudget adaptive rate', () => {
  it.each([
    // ok answers in the second before the overload → new rate (maxRps 100)
    [30, 50], // what the leader accepted, but never below half the rate
    [80, 80], // what the leader accepted
    [99, 90], // always at least 10 % lower
  ])('after %i accepted requests in 1 s, an overload sets the rate to %i', async (accepted, want) => {
    const { clock, budget } = setup({ maxRps: 100, burst: 100, initialConcurrency: 10 });
    for (let i = 0; i < accepted; i++) permit(await budget.acquire()).release('ok');
    await clock.advance(1000);
    permit(await budget.acquire()).release('overload');
    expect(budget.state().rate).toBeCloseTo(want, 5);
    expect(budget.capacityPerSecond()).toBeLessThanOrEqual(want);
  });

  it('paces at the lowered rate, then creeps back by 1 % of maxRps per second while demand exceeds it', async () => {
    const { clock, budget, t0 } = setup({ maxRps: 100, burst: 1, initialConcurrency: 10 });
    await clock.advance(1000);
    permit(await budget.acquire()).release('overload'); // nothing accepted: half the rate
    expect(budget.state().rate).toBe(50);
    let granted = 0;
    const stopAt = t0 + 1000 + 10_000;
    const loop = async (): Promise<void> => {
      while (clock.now() < stopAt) {
        const p = await budget.acquire({ deadline: stopAt });
        if (!p.granted) return;
        granted++;
        p.release('neutral');
      }
    };
    const loops = Promise.all([loop(), loop(), loop()]);
    await clock.advance(10_000);
    await loops;
    // 10 s from 50/s to 60/s: about 550 requests, far below the 1000 of maxRps.
    expect(granted).toBeGreaterThan(520);
    expect(granted).toBeLessThan(580);
    expect(budget.state().rate).toBeCloseTo(60, 0);
  });

  it('does not creep back while nobody waits', async () => {
    const { clock, budget } = setup({ maxRps: 100 });
    permit(await budget.acquire()).release('overload');
    const rate = budget.state().rate;
    for (let i = 0; i < 10; i++) {
      await clock.advance(1000);
      permit(await budget.acquire()).release('ok');
    }
    expect(budget.state().rate).toBe(rate);
  });
});

describe('RequestBudget pause', () => {
  it('blocks everyone until the pause ends, then resumes at the sustained rate', async () => {
    const { clock, budget, t0 } = setup({ maxRps: 10, burst: 5 });
    budget.pause(t0 + 2000);
    const ts = Array.from({ length: 3 }, () => track(budget, clock));
    await clock.advance(1999);
    expect(ts.map((t) => t.at)).toEqual([undefined, undefined, undefined]);
    await clock.advance(1000);
    // Tokens start empty at the end of the pause: no burst after a leader said "slow down".
    expect(ts.map((t) => (t.at ?? NaN) - t0)).toEqual([2100, 2200, 2300]);
  });

  it('is never shortened by a later, shorter pause', () => {
    const { budget, t0 } = setup();
    budget.pause(t0 + 5000);
    budget.pause(t0 + 1000);
    expect(budget.state()).toMatchObject({ paused: true, pauseUntil: t0 + 5000 });
    budget.pause(t0 + 9000);
    expect(budget.state().pauseUntil).toBe(t0 + 9000);
  });

  it('denies at once a request whose deadline falls inside the pause', async () => {
    const { clock, budget, t0 } = setup({ initialConcurrency: 1 });
    const first = permit(await budget.acquire());
    const w2 = track(budget, clock, { deadline: t0 + 3000 });
    budget.pause(t0 + 5000);
    await flushMicrotasks();
    expect(await budget.acquire({ deadline: t0 + 4000 })).toEqual({ granted: false, denied: 'paused' });
    expect(w2.result).toEqual({ granted: false, denied: 'paused' });
    expect(clock.now()).toBe(t0);
    first.release('neutral');
    // A deadline after the pause waits for it.
    const w3 = track(budget, clock, { deadline: t0 + 6000 });
    await clock.advance(5000 + 1);
    expect(w3.result?.granted).toBe(true);
  });

  it('reports the pause and its end, even with nobody waiting', async () => {
    const { clock, budget, events, t0 } = setup();
    events.length = 0;
    budget.pause(t0 + 1500);
    expect(events).toEqual(['pause true 1500']);
    await clock.advance(1500);
    expect(events).toEqual(['pause true 1500', 'pause false 0']);
    expect(budget.state()).toMatchObject({ paused: false, pauseUntil: 0 });
  });

  it('ignores a pause that has already ended', () => {
    const { budget, t0 } = setup();
    budget.pause(t0 - 1);
    expect(budget.state().paused).toBe(false);
  });
});

describe('RequestBudget hold (leader not serving)', () => {
  it('holds everyone: no-deadline callers are denied, deadline callers wait for resume', async () => {
    const { clock, budget, events, t0 } = setup();
    budget.pause(t0 + 100); // make the next caller wait in the queue
    const noDeadline = track(budget, clock);
    const withDeadline = track(budget, clock, { deadline: t0 + 10_000 });
    events.length = 0;
    budget.hold();
    await flushMicrotasks();
    expect(noDeadline.result).toEqual({ granted: false, denied: 'unavailable' });
    expect(await budget.acquire()).toEqual({ granted: false, denied: 'unavailable' });
    await clock.advance(5000);
    expect(withDeadline.result).toBeUndefined();
    expect(budget.state()).toMatchObject({ paused: true, held: true, pauseUntil: Infinity });
    budget.resume();
    await flushMicrotasks();
    expect(withDeadline.result?.granted).toBe(true);
    expect(withDeadline.at).toBe(t0 + 5000);
    expect(events).toEqual(['pause true inf', 'pause false 0', 'inflight 1']);
  });

  it('denies with `unavailable` when the deadline passes during a hold', async () => {
    const { clock, budget, t0 } = setup();
    budget.hold();
    const w = track(budget, clock, { deadline: t0 + 1000 });
    await clock.advance(1000);
    expect(w.result).toEqual({ granted: false, denied: 'unavailable' });
  });

  it('keeps a running timed pause when the hold ends', () => {
    const { budget, t0 } = setup();
    budget.hold();
    budget.pause(t0 + 3000);
    budget.resume();
    expect(budget.state()).toMatchObject({ paused: true, held: false, pauseUntil: t0 + 3000 });
  });
});

describe('RequestBudget waiting is bounded', () => {
  it('denies at the deadline', async () => {
    const { clock, budget, t0 } = setup({ initialConcurrency: 1 });
    permit(await budget.acquire());
    const w = track(budget, clock, { deadline: t0 + 500 });
    await clock.advance(499);
    expect(w.result).toBeUndefined();
    await clock.advance(1);
    expect(w.result).toEqual({ granted: false, denied: 'deadline' });
    expect(budget.state().waiting).toBe(0);
  });

  it('denies a deadline already passed without waiting', async () => {
    const { budget, t0 } = setup();
    expect(await budget.acquire({ deadline: t0 })).toEqual({ granted: false, denied: 'deadline' });
  });

  it('rejects callers beyond maxWaiters at once', async () => {
    const { clock, budget } = setup({ initialConcurrency: 1, maxWaiters: 3 });
    permit(await budget.acquire());
    for (let i = 0; i < 3; i++) track(budget, clock);
    expect(await budget.acquire()).toEqual({ granted: false, denied: 'queue_full' });
    expect(budget.state().waiting).toBe(3);
  });

  it('removes an aborted waiter', async () => {
    const { clock, budget } = setup({ initialConcurrency: 1 });
    permit(await budget.acquire());
    const ac = new AbortController();
    const w = track(budget, clock, { signal: ac.signal });
    ac.abort();
    await flushMicrotasks();
    expect(w.result).toEqual({ granted: false, denied: 'aborted' });
    expect(budget.state().waiting).toBe(0);
  });

  it('denies everyone on close and leaves no timers behind', async () => {
    const { clock, budget, t0 } = setup({ initialConcurrency: 1 });
    permit(await budget.acquire());
    budget.pause(t0 + 1000);
    const w = track(budget, clock, { deadline: t0 + 5000 });
    budget.close();
    await flushMicrotasks();
    expect(w.result).toEqual({ granted: false, denied: 'closed' });
    expect(await budget.acquire()).toEqual({ granted: false, denied: 'closed' });
    expect(clock.pending).toBe(0);
  });
});

describe('RequestBudget capacityPerSecond', () => {
  it('is the token rate until latency says otherwise', async () => {
    const { clock, budget } = setup({ maxRps: 50, initialConcurrency: 2, maxConcurrency: 2 });
    expect(budget.capacityPerSecond()).toBe(50);
    for (let i = 0; i < 30; i++) {
      const p = permit(await budget.acquire());
      await clock.advance(200);
      p.release('ok');
    }
    // 2 concurrent requests of ~200 ms each: about 10 per second.
    expect(budget.capacityPerSecond()).toBeCloseTo(10, 0);
  });
});

describe('RequestBudget options', () => {
  it.each([
    [{ maxRps: 0 }, /maxRps/],
    [{ burst: 0.5 }, /burst/],
    [{ maxConcurrency: 0 }, /maxConcurrency/],
    [{ maxConcurrency: 2.5 }, /maxConcurrency/],
  ])('rejects %j', (bad, msg) => {
    expect(() => new RequestBudget({ maxRps: 1, burst: 1, maxConcurrency: 1, clock: new FakeClock(), ...bad })).toThrow(
      msg,
    );
  });
});

describe('RequestBudget priority lane', () => {
  it('node polls filling the window never keep priority requests (discovery) out: a lane of their own', async () => {
    const { clock, budget } = setup({ maxConcurrency: 2, initialConcurrency: 2 });
    const polls = [
      permit(await budget.acquire({ detachable: true })),
      permit(await budget.acquire({ detachable: true })),
    ];
    // The window is full of node polls: another node poll waits, discovery does not.
    const poll = track(budget, clock);
    const urgent = [1, 2, 3].map(() => {
      const t = { result: undefined as Permit | Denial | undefined };
      void budget.acquire({ priority: true, lane: true }).then((r) => (t.result = r));
      return t;
    });
    await flushMicrotasks();
    expect(urgent.map((t) => t.result?.granted)).toEqual([true, true, undefined]);
    expect(poll.result).toBeUndefined();
    // A priority request's slot goes to the next priority request; the node poll waits for the window.
    permit(urgent[0]!.result).release('ok');
    await flushMicrotasks();
    expect(urgent[2]!.result?.granted).toBe(true);
    expect(poll.result).toBeUndefined();
    // The window bounds everything in flight: the node poll goes once the window has room again.
    for (const t of urgent.slice(1)) permit(t.result).release('ok');
    polls[0]!.release('ok');
    await flushMicrotasks();
    expect(poll.result?.granted).toBe(true);
  });

  it('a collector read (priority, no lane) waits for the window: the starved fleet keeps its share', async () => {
    const { budget } = setup({ maxConcurrency: 2, initialConcurrency: 2 });
    const polls = [
      permit(await budget.acquire({ detachable: true })),
      permit(await budget.acquire({ detachable: true })),
    ];
    let read: Permit | Denial | undefined;
    void budget.acquire({ priority: true }).then((r) => (read = r));
    await flushMicrotasks();
    expect(read).toBeUndefined();
    polls[0]!.release('ok');
    await flushMicrotasks();
    expect(read?.granted).toBe(true);
    polls[1]!.release('ok');
  });
});
