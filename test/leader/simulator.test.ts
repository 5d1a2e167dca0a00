/**
 * The leader client and its budget against the simulated leader: real HTTP on 127.0.0.1, the client, its budget and
 * the simulator on one FakeClock that the test moves (FakeTimeRun in sim-helpers.ts), so that every rate and count is
 * the algorithm's, not the machine's. Runs are 2.5–10 s of fake time and assert ratios and counts, never durations.
 * The leader restart alone runs on the system clock (a server closed and started again).
 */
import type { LeaderClient } from '../../src/leader/types.js';
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import { withAuth } from '../../src/auth/with-auth.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import pino from 'pino';
import { RequestBudget } from '../../src/leader/budget.js';
import { createLeaderClient } from '../../src/leader/client.js';
import { FAILURE_REASONS } from '../../src/http/failure.js';
import { startSimulator } from '@cribl-exporter/simulator';
import type { Simulator } from '@cribl-exporter/simulator';
import type { Clock } from '@cribl-exporter/api/clock';
import { systemClock } from '@cribl-exporter/api/clock';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeAuth, recordingMetrics } from './helpers.js';
import { clientForSim, drive, FakeTimeRun, simCount } from './sim-helpers.js';

const NODE_ROUTE = '/w/{nodeId}/health';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
async function sim(opts: Parameters<typeof startSimulator>[0] = {}): Promise<Simulator> {
  const s = await startSimulator({ nodes: 20, ...opts });
  cleanup.push(() => s.close());
  return s;
}
/** A simulator on a FakeClock, and a run of that clock over it. */
async function fakeSim(): Promise<{ clock: FakeClock; s: Simulator }> {
  const clock = new FakeClock();
  return { clock, s: await sim({ clock }) };
}
function client(
  s: Simulator,
  clock: FakeClock,
  budget: Parameters<typeof clientForSim>[2],
  limits: Parameters<typeof clientForSim>[3] = {},
) {
  const c = clientForSim(s.baseUrl, s.token, budget, limits, clock);
  cleanup.push(() => c.client.close());
  return { ...c, run: new FakeTimeRun(clock, s, [c.budget]) };
}

const listing = (c: LeaderClient, deadlineMs = 2000, clock: Clock = systemClock) =>
  c.request({
    endpoint: ENDPOINTS.workers,
    path: '/products/stream/workers',
    query: { limit: 1 },
    deadline: clock.now() + deadlineMs,
    decode: (j) => j,
  });

describe('Retry-After is honoured (simulator statistics)', () => {
  it.each([
    ['429', 'seconds'],
    ['429', 'http-date'],
    ['503', 'seconds'],
    ['503', 'http-date'],
  ] as const)('%s with Retry-After as %s: zero requests inside any window', async (code, form) => {
    const { clock, s } = await fakeSim();
    if (code === '429') s.setFaults({ rateLimit: { rate: 20, burst: 5, retryAfter: form } });
    else s.setFaults({ unavailable: { share: 0.15, retryAfter: 1, retryAfterForm: form } });
    // One request at a time: a request already on the wire when the leader says "wait" cannot be
    // recalled, and the simulator would count it; see the concurrent test below for that case.
    const { client: c, run } = client(s, clock, { maxRps: 100, burst: 20, maxConcurrency: 1 });
    const t = await run.until(drive(c, s, { durationMs: 2500, callers: 4, deadlineMs: 2000, clock }));
    const st = s.stats();
    expect(st.retryAfterSent).toBeGreaterThan(0);
    expect(st.retryAfterViolations).toBe(0);
    expect(t.ok).toBeGreaterThan(0);
  });

  it.each(['seconds', 'http-date'] as const)(
    'concurrent (window of 8), %s: nothing is sent during a pause; only requests in flight can land in a window',
    async (form) => {
      const { clock, s } = await fakeSim();
      s.setFaults({ rateLimit: { rate: 30, burst: 10, retryAfter: form } });
      // Ordered logs: milliseconds alone cannot tell a send just before a pause from one just after it.
      let seq = 0;
      const sends: { seq: number; at: number }[] = [];
      const pauses: { seq: number; until: number }[] = [];
      let inFlightAtThrottle = 0;
      const { metrics } = recordingMetrics();
      const budget = new RequestBudget({
        maxRps: 100,
        burst: 30,
        maxConcurrency: 8,
        clock,
        observer: { ...metrics, onPauseChange: (p, until) => p && pauses.push({ seq: seq++, until }) },
      });
      const c = withAuth(
        createLeaderClient({
          baseUrl: s.baseUrl,
          name: 'sim',
          dispatcher: new Agent().compose((dispatch) => (opts, handler) => {
            sends.push({ seq: seq++, at: clock.now() });
            return dispatch(opts, handler);
          }),
          budget,
          clock,
          random: Math.random,
          logger: pino({ level: 'silent' }),
          // The throttled request still holds its permit here: the others in flight were sent before the answer.
          metrics: { ...metrics, onThrottled: () => (inFlightAtThrottle += budget.state().inFlight - 1) },
        }),
        fakeAuth({ token: s.token }).auth,
      );
      cleanup.push(() => c.close());
      const run = new FakeTimeRun(clock, s, [budget]);
      await run.until(drive(c, s, { durationMs: 2500, callers: 12, deadlineMs: 2000, clock }));
      const st = s.stats();
      expect(st.retryAfterSent).toBeGreaterThan(0);
      expect(pauses.length).toBeGreaterThan(0);
      for (const p of pauses) expect(sends.filter((x) => x.seq > p.seq && x.at < p.until)).toEqual([]);
      expect(st.retryAfterViolations).toBeLessThanOrEqual(inFlightAtThrottle);
    },
  );
});

describe('throughput under a leader rate limit', () => {
  it.each([
    // name, R, max-rps, run (ms), warm-up (ms)
    ['configured at the leader’s rate', 50, 50, 5500, 2000],
    ['configured at twice the leader’s rate', 50, 100, 10_000, 4000],
  ])('%s (R=%i, max-rps=%i): settles at ≥ 90 %% of R without a 429 storm', async (_n, R, maxRps, runMs, warmMs) => {
    const { clock, s } = await fakeSim();
    s.setFaults({ rateLimit: { rate: R, retryAfter: 'seconds' } });
    // A burst below the leader’s own (R): at max-rps = R that leaves slack for arrival jitter.
    const { client: c, run } = client(s, clock, { maxRps, burst: 25, maxConcurrency: 8 });
    const driving = drive(c, s, { durationMs: runMs, callers: 16, deadlineMs: 2000, clock });
    await run.runFor(warmMs); // the first bursts, 429s and rate cuts are not the steady state
    s.resetStats();
    const from = clock.now();
    await run.until(driving);
    const seconds = (clock.now() - from) / 1000;
    const ok = simCount(s, NODE_ROUTE, '200');
    const throttled = simCount(s, NODE_ROUTE, '429');
    expect(ok / (R * seconds)).toBeGreaterThanOrEqual(0.9);
    // A rare 429 when the rate creeps back up, never a storm.
    expect(throttled / (ok + throttled)).toBeLessThan(0.02);
    expect(throttled / seconds).toBeLessThan(1);
  });
});

describe('420: the leader is not serving', () => {
  it('pauses everything, probes /health, and resumes right after the first 200 probe', async () => {
    const { clock, s } = await fakeSim();
    const {
      client: c,
      events,
      run,
    } = client(
      s,
      clock,
      { maxRps: 50, burst: 10, maxConcurrency: 4 },
      { healthProbeIntervalMs: 200, healthProbeMaxMs: 400 },
    );
    const stop = { v: false };
    const lister = (async () => {
      while (!stop.v) {
        await listing(c, 2000, clock);
        await clock.sleep(100);
      }
    })();
    const nodes = drive(c, s, { durationMs: 4000, callers: 4, deadlineMs: 3000, clock });

    await run.runFor(800);
    s.fleet.setLeaderState('standby');
    await run.runFor(600); // the listing sees 420 within ~100 ms; the hold is in force after that
    const before = s.stats();
    await run.runFor(1000);
    const during = s.stats();
    s.fleet.setLeaderState('healthy');
    const recoveredAt = events.length;
    await run.until(nodes);
    stop.v = true;
    await run.until(lister);

    const delta = (route: string, status: string) =>
      (during.requests[route]?.[status] ?? 0) - (before.requests[route]?.[status] ?? 0);
    // In the middle of the window only /health probes reach the leader.
    const total = during.totalRequests - before.totalRequests;
    expect(delta('/health', '420')).toBeGreaterThan(0);
    expect(total).toBe(delta('/health', '420'));

    // After recovery: exactly one probe (the 200), then work goes on at once.
    const after = events.slice(recoveredAt).filter((e) => e.startsWith('request'));
    const probes = after.filter((e) => e.includes(' /health '));
    expect(probes[probes.length - 1]).toBe('request /health 200');
    expect(probes.filter((e) => e.endsWith(' 200'))).toHaveLength(1);
    const firstProbe200 = after.indexOf('request /health 200');
    const work = after.slice(firstProbe200 + 1);
    expect(work.filter((e) => e === 'request /w/{nodeId}/health 200').length).toBeGreaterThan(0);
    expect(work.some((e) => e.includes(' /health '))).toBe(false);
  });
});

describe('faults leave the client standing', () => {
  it('503 bursts, resets, malformed, truncated, oversized bodies: clean failures with the right reasons', async () => {
    const { clock, s } = await fakeSim();
    s.setFaults({
      resets: { share: 0.1 },
      malformed: { share: 0.05 },
      truncated: { share: 0.05 },
      oversized: { share: 0.05, bytes: 2 * 1024 * 1024 },
      unavailable: { share: 0.05, retryAfter: 1 },
    });
    const {
      client: c,
      events,
      budget,
      run,
    } = client(s, clock, { maxRps: 100, burst: 20, maxConcurrency: 8 }, { maxResponseBytes: 1024 * 1024 });
    const t = await run.until(drive(c, s, { durationMs: 3000, callers: 8, deadlineMs: 2000, keep: true, clock }));
    const injected = s.stats().faultsInjected;
    for (const kind of ['reset', 'malformed', 'truncated', 'oversized', 'unavailable']) {
      expect(injected[kind] ?? 0).toBeGreaterThan(0);
    }
    expect(t.ok).toBeGreaterThan(0);
    expect(t.byReason.decode ?? 0).toBeGreaterThan(0);
    for (const r of t.results) {
      if (r.ok) continue;
      expect(FAILURE_REASONS).toContain(r.reason);
      expect(r.message).not.toMatch(/\n|at .*\.ts:\d+/);
      expect(r.message).not.toContain(s.token);
    }
    expect(events).toContain('request /w/{nodeId}/health connect');
    expect(events).toContain('throttled 503');
    expect(budget.state()).toMatchObject({ inFlight: 0, waiting: 0 });
  });
});

describe('leader restart', () => {
  it('is survived without intervention (server gone, then back on the same address)', async () => {
    const first = await startSimulator({ nodes: 5, seed: 7 });
    const port = Number(new URL(first.origin).port);
    const { client: c } = clientForSim(
      first.baseUrl,
      first.token,
      { maxRps: 50, burst: 10 },
      { backoffBaseMs: 50, backoffMaxMs: 200, maxAttempts: 100 },
    );
    cleanup.push(() => c.close());
    expect(await listing(c)).toMatchObject({ ok: true });
    await first.close();

    expect(await listing(c, 300)).toMatchObject({ ok: false, reason: 'connect' });
    const during = listing(c, 10_000);
    await sleep(300);
    const second = await sim({ nodes: 5, seed: 7, port });
    expect(second.token).toBe(first.token);
    expect(await during).toMatchObject({ ok: true });
    expect(await listing(c)).toMatchObject({ ok: true });
  });
});
