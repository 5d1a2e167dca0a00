/**
 * The exporter and a simulated leader over real HTTP on 127.0.0.1, both on one FakeClock: the test moves time in
 * steps and, after each, waits (for real I/O, never for a timer) until every request the exporter has in flight is
 * inside the simulator. Scheduled jobs run on the fake clock as production runs them: periodic jobs every interval
 * from the start, the health poller as its own loop.
 */
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { request } from 'undici';
import { vi } from 'vitest';
import type { AutoDetail } from '../../src/collectors/detail.js';
import { startApp, type App } from '../../src/exporter/app.js';
import { parseConfig } from '../../src/config/parse.js';
import { slicedPaused } from '../../src/util/yield.js';
import type { Schedule } from '../../src/polling/scheduler.js';
import type { Simulator } from '@cribl-exporter/simulator';
import type { FakeClock } from './fake-clock.js';
import { parseSamples, type Sample } from './parse-metrics.js';

/**
 * How long a test that runs minutes of fake time over real HTTP may take: its real time is the machine's, several
 * times longer on a busy 2-core machine than on an idle one (the 20,000-node fleet: 45 s at load 13, 128 s at load
 * 18). A bound on a hang, never a race; what such a test asserts is counted on the fake clock.
 */
export const FAKE_TIME_TIMEOUT_MS = 600_000;

/** Gives every test and hook of the calling file FAKE_TIME_TIMEOUT_MS (call it at the top of the file). */
export function fakeTimeTimeouts(): void {
  vi.setConfig({ testTimeout: FAKE_TIME_TIMEOUT_MS, hookTimeout: FAKE_TIME_TIMEOUT_MS });
}

/** Jobs on the fake clock: a periodic job runs at once, then every interval after it ended; a loop runs once. */
function clockSchedule(clock: FakeClock): { schedule: Schedule; stop(): void } {
  const ac = new AbortController();
  const schedule: Schedule = (_name, intervalMs, run, hooks) => {
    const job = new AbortController();
    const signal = AbortSignal.any([ac.signal, job.signal]);
    const loop = hooks?.loop;
    void (async () => {
      if (loop) {
        await loop(signal).catch(() => undefined);
        return;
      }
      while (!signal.aborted) {
        await run(signal).catch(() => undefined);
        await clock.sleep(intervalMs, signal).catch(() => undefined);
      }
    })();
    return { stop: () => job.abort(), trigger: () => undefined };
  };
  return { schedule, stop: () => ac.abort() };
}

export interface FakeTimeExporter {
  app: App;
  /** Moves the clock `ms` forward in steps of `stepMs`, letting the I/O of each step complete. */
  runFor(ms: number, stepMs?: number): Promise<void>;
  /**
   * Waits until every request the exporter has in flight is inside the simulator (answered or held there), no
   * time-sliced loop is paused mid-way (src/util/yield.ts: a listing's decoding, applying it) and the number of sleeps
   * on the clock stayed the same for 3 turns of the event loop: work that ends in a sleep (the next poll's pacing)
   * has reached it. Without the second condition, a busy machine moved the clock on before some sleeps began, and a
   * run's fake-time result depended on the machine's speed; without the time-sliced loops, a listing's decoding cut
   * into several slices (its slices are real milliseconds) outlasted the 3 turns, and whether the clock moved on
   * during the first discovery depended on the machine too (starved-budget.test.ts: two different runs by it).
   */
  settle(): Promise<void>;
  /** The /metrics samples now (with `only`, those of these metrics alone: a large fleet's body parses faster). */
  scrape(only?: readonly string[]): Promise<Sample[]>;
  close(): Promise<void>;
}

/** Starts the exporter on `clock` against `sim` (which must run on the same clock) with `args` as flags. */
export async function startFakeTimeExporter(
  sim: Simulator,
  clock: FakeClock,
  args: readonly string[] = [],
  env: Record<string, string> = { CRIBL_TOKEN: sim.token },
  opts: {
    /** Leaders come from `args` and `env` (a config file): no --leader.url. */
    ownLeaders?: boolean;
    /** Other simulators the exporter talks to (their requests in flight count when settling). */
    more?: Simulator[];
    /** The exporter's logger. @default silent */
    logger?: pino.Logger;
    /** `auto`'s node detail thresholds (a fleet across the real ones is too slow here). @default AUTO_DETAIL */
    autoDetail?: AutoDetail;
  } = {},
): Promise<FakeTimeExporter> {
  const sched = clockSchedule(clock);
  const config = parseConfig({
    argv: [...(opts.ownLeaders ? [] : ['--leader.url', sim.baseUrl]), '--web.listen-address', '127.0.0.1:0', ...args],
    env,
    readFile: (p) => (opts.ownLeaders ? readFileSync(p, 'utf8') : ''),
  });
  const app = await startApp({
    config,
    logger: opts.logger ?? pino({ level: 'silent' }),
    version: '0.0.0-test',
    nodejsVersion: process.version,
    readFile: (p: string) => Promise.resolve(opts.ownLeaders ? readFileSync(p, 'utf8') : ''),
    env: {},
    clock,
    random: () => 0.5,
    schedule: sched.schedule,
    bodyBuilder: 'inline',
    ...(opts.autoDetail ? { autoDetail: opts.autoDetail } : {}),
  });
  const inFlight = (): number => app.status().reduce((n, s) => n + s.budget.inFlight + s.budget.detached, 0);
  const settle = async (): Promise<void> => {
    let calm = 0;
    let sleepers = -1;
    for (let i = 0; i < 20_000 && calm < 3; i++) {
      await new Promise<void>((r) => setImmediate(r));
      const inSims = [sim, ...(opts.more ?? [])].reduce((n, s) => n + s.stats().inFlight, 0);
      const now = clock.pending;
      calm = inFlight() === inSims && slicedPaused() === 0 && now === sleepers ? calm + 1 : 0;
      sleepers = now;
    }
  };
  return {
    app,
    settle,
    async runFor(ms, stepMs = 10) {
      // What ran since the last step (the app's start, the test's own requests) reaches its end before time moves.
      await settle();
      const end = clock.now() + ms;
      while (clock.now() < end) {
        await clock.advance(Math.min(stepMs, end - clock.now()));
        await settle();
      }
    },
    async scrape(only) {
      await app.body.rebuild();
      const res = await request(app.metricsUrl);
      return parseSamples(await res.body.text(), only && new Set(only));
    },
    async close() {
      sched.stop();
      await clock.advance(1);
      await app.close();
    },
  };
}
