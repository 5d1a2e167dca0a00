import { setMaxListeners } from 'node:events';
import { Cron } from 'croner';
import { systemClock, type Clock } from '@cribl-exporter/api/clock';

/** A periodic job; `stop()` ends scheduling and aborts a running run. */
export interface ScheduledJob {
  stop(): void;
  /** Runs now (or right after the current run, if one is running). */
  trigger(): void;
}

/**
 * Starts `run` every `intervalMs`; the seam that tests replace to drive runs by hand. `loop`: the job as one
 * long-running loop that paces itself (the health poller's per-node schedule): a production schedule runs it once (and
 * again within a second if it ever ends before `stop()`) instead of calling `run` every interval. A hand-driven
 * schedule (tests) keeps calling `run`, one pass.
 */
export type Schedule = (
  name: string,
  intervalMs: number,
  run: (signal: AbortSignal) => Promise<void>,
  hooks?: { loop?: (signal: AbortSignal) => Promise<void> },
) => ScheduledJob;

/**
 * Wraps a run so that runs never overlap: a trigger that arrives while a run is in progress is not
 * queued; it makes the next run start as soon as the current one ends (the cycle stretches instead
 * of skipping a whole interval).
 */
export function serialRunner(
  run: (signal: AbortSignal) => Promise<void>,
  onError: (e: unknown) => void,
): { tick(): void; stop(): void; idle(): Promise<void> } {
  const ac = new AbortController();
  // One run fans out to many concurrent requests, each listening on this signal.
  setMaxListeners(0, ac.signal);
  let running: Promise<void> | undefined;
  let again = false;
  const start = (): void => {
    running = run(ac.signal)
      .catch(onError)
      .finally(() => {
        running = undefined;
        if (again && !ac.signal.aborted) {
          again = false;
          start();
        }
      });
  };
  return {
    tick() {
      if (ac.signal.aborted) return;
      if (running) again = true;
      else start();
    },
    stop() {
      ac.abort(new Error('stopped'));
    },
    idle: async () => {
      while (running) await running;
    },
  };
}

/**
 * Decides, on each one-second tick, whether a run is due. Runs are due every `intervalMs` from the first one;
 * a tick up to half a second early counts (timers fire a little early or late), and a schedule that fell
 * behind (a stopped process, a busy loop) resumes from now instead of firing the missed runs.
 */
export function dueTracker(intervalMs: number, firstMs: number): (nowMs: number) => boolean {
  let next = firstMs + intervalMs;
  return (now) => {
    if (now < next - 500) return false;
    next += intervalMs;
    if (next <= now) next = now + intervalMs;
    return true;
  };
}

/**
 * Production schedule: croner ticks every second and `dueTracker` spaces runs by the interval (at least
 * 1 s); the first run starts at once. (croner's own `interval` option reckons from each fire time, and a
 * timer that fires a millisecond early made it skip a whole interval: seen in the 50k benchmark.)
 */
export function cronSchedule(onError: (name: string, e: unknown) => void, clock: Clock = systemClock): Schedule {
  return (name, intervalMs, run, hooks) => {
    const loop = hooks?.loop;
    const runner = serialRunner(loop ?? run, (e) => onError(name, e));
    const due = dueTracker(Math.max(1000, intervalMs), clock.now());
    const cron = new Cron('* * * * * *', { protect: true }, () => {
      // A loop is only ever started again (after it failed); a periodic job when it is due.
      if (loop || due(clock.now())) runner.tick();
    });
    runner.tick();
    return {
      stop() {
        cron.stop();
        runner.stop();
      },
      trigger: () => runner.tick(),
    };
  };
}
