import { ENDPOINTS } from '@cribl-exporter/api/routes';
import type { LeaderClient } from '../../src/leader/types.js';
import type { LeaderClientLimits } from '../../src/leader/settings.js';
import { withAuth } from '../../src/auth/with-auth.js';
import pino from 'pino';
import { Agent } from 'undici';
import { RequestBudget } from '../../src/leader/budget.js';
import type { RequestBudgetOptions } from '../../src/leader/budget.js';
import { createLeaderClient } from '../../src/leader/client.js';
import type { LeaderResult } from '../../src/leader/types.js';
import type { Simulator } from '@cribl-exporter/simulator';
import { systemClock, type Clock } from '@cribl-exporter/api/clock';
import type { FakeClock } from '../helpers/fake-clock.js';
import { fakeAuth, recordingMetrics } from './helpers.js';

/** A real client (undici Agent; the system clock unless `clock`) for a running simulator. */
export function clientForSim(
  baseUrl: string,
  token: string,
  budget: Partial<RequestBudgetOptions>,
  limits: Partial<LeaderClientLimits> = {},
  clock: Clock = systemClock,
) {
  const { metrics, events } = recordingMetrics();
  const b = new RequestBudget({
    maxRps: 50,
    burst: 50,
    maxConcurrency: 8,
    clock,
    observer: metrics,
    ...budget,
  });
  const client: LeaderClient = withAuth(
    createLeaderClient({
      baseUrl,
      name: 'sim',
      dispatcher: new Agent({ connect: { timeout: 2000 }, keepAliveTimeout: 10_000 }),
      budget: b,
      clock,
      random: Math.random,
      logger: pino({ level: 'silent' }),
      metrics,
      limits: {
        connectTimeoutMs: 2000,
        headersTimeoutMs: 2000,
        bodyTimeoutMs: 2000,
        backoffBaseMs: 100,
        backoffMaxMs: 1000,
        healthProbeIntervalMs: 200,
        healthProbeMaxMs: 400,
        ...limits,
      },
    }),
    fakeAuth({ token }).auth,
  );
  return { client, budget: b, events };
}

/** Tallies of a load run. */
export interface RunTally {
  ok: number;
  byReason: Record<string, number>;
  results: LeaderResult<unknown>[];
}

/**
 * Keeps `callers` request loops busy against the simulator's node health endpoints until `durationMs` of `clock`
 * have passed; each request carries a deadline `deadlineMs` ahead (its "poll cycle"). On a FakeClock the test moves
 * time (FakeTimeRun) while the loops run.
 */
export async function drive(
  client: LeaderClient,
  sim: Simulator,
  opts: { durationMs: number; callers: number; deadlineMs?: number; keep?: boolean; clock: Clock },
): Promise<RunTally> {
  const { clock } = opts;
  const ids = sim.fleet.nodes().map((n) => n.id);
  const end = clock.now() + opts.durationMs;
  const tally: RunTally = { ok: 0, byReason: {}, results: [] };
  let i = 0;
  const loop = async (): Promise<void> => {
    while (clock.now() < end) {
      const id = ids[i++ % ids.length]!;
      const r = await client.request({
        endpoint: ENDPOINTS.nodeHealth,
        path: `/w/${encodeURIComponent(id)}/health`,
        nodeScoped: true,
        accept: [200, 420],
        deadline: Math.min(end, clock.now() + (opts.deadlineMs ?? 2000)),
        decode: (j) => j,
      });
      if (opts.keep) tally.results.push(r);
      if (r.ok) tally.ok++;
      else tally.byReason[r.reason] = (tally.byReason[r.reason] ?? 0) + 1;
      // A failed request ends its "cycle" at once; do not spin on instant failures.
      if (!r.ok) await clock.sleep(5);
    }
  };
  await Promise.all(Array.from({ length: opts.callers }, loop));
  return tally;
}

/**
 * Time for clients and a simulator on one FakeClock, over real HTTP on 127.0.0.1 (as test/helpers/fake-time-exporter.ts
 * does for the whole exporter): the test moves the clock in steps and, after each, waits (for real I/O, never for a
 * timer) until every request the budgets have in flight is inside the simulator. Nothing depends on how fast the
 * machine answers: every figure is counted on the fake clock.
 */
export class FakeTimeRun {
  readonly #clock: FakeClock;
  readonly #sim: Simulator;
  readonly #budgets: RequestBudget[];
  readonly #stepMs: number;

  constructor(clock: FakeClock, sim: Simulator, budgets: RequestBudget[], stepMs = 10) {
    this.#clock = clock;
    this.#sim = sim;
    this.#budgets = budgets;
    this.#stepMs = stepMs;
  }

  /** Waits until the budgets' requests in flight are all inside the simulator (answered or held there). */
  async settle(): Promise<void> {
    const inFlight = (): number => this.#budgets.reduce((n, b) => n + b.state().inFlight, 0);
    let calm = 0;
    for (let i = 0; i < 20_000 && calm < 3; i++) {
      await new Promise<void>((r) => setImmediate(r));
      calm = inFlight() === this.#sim.stats().inFlight ? calm + 1 : 0;
    }
  }

  /** Moves the clock `ms` forward in steps, letting the I/O of each step complete. */
  async runFor(ms: number): Promise<void> {
    const end = this.#clock.now() + ms;
    while (this.#clock.now() < end) {
      await this.#clock.advance(Math.min(this.#stepMs, end - this.#clock.now()));
      await this.settle();
    }
  }

  /** Moves the clock on until `work` has ended (at most `maxMs`), and returns its result. */
  async until<T>(work: Promise<T>, maxMs = 60_000): Promise<T> {
    let done = false;
    const watched = work.finally(() => (done = true));
    watched.catch(() => undefined); // the caller sees the failure: it awaits `watched` below
    const end = this.#clock.now() + maxMs;
    await this.settle();
    while (!done && this.#clock.now() < end) {
      await this.#clock.advance(this.#stepMs);
      await this.settle();
    }
    if (!done) throw new Error(`still running after ${maxMs} ms of fake time`);
    return watched;
  }
}

/** Count of answers with `status` for a route in the simulator's statistics. */
export function simCount(sim: Simulator, route: string, status: string): number {
  return sim.stats().requests[route]?.[status] ?? 0;
}
