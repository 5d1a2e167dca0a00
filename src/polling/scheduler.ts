import { setMaxListeners } from 'node:events';
import { Cron } from 'croner';

/** A periodic job; `stop()` ends scheduling and aborts a running run. */
export interface ScheduledJob {
  stop(): void;
  /** Runs now (or right after the current run, if one is running). */
  trigger(): void;
}

/** Starts `run` every `intervalMs`; the seam that tests replace to drive runs by hand. */
export type Schedule = (
  name: string,
  intervalMs: number,
  run: (signal: AbortSignal) => Promise<void>,
  hooks?: { onOverrun?: () => void },
) => ScheduledJob;

/**
 * Wraps a run so that runs never overlap: a trigger that arrives while a run is in progress is not
 * queued; it makes the next run start as soon as the current one ends (the cycle stretches instead
 * of skipping a whole interval).
 */
export function serialRunner(
  run: (signal: AbortSignal) => Promise<void>,
  onOverrun: () => void,
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
      if (running) {
        if (!again) onOverrun();
        again = true;
        return;
      }
      start();
    },
    stop() {
      ac.abort(new Error('stopped'));
    },
    idle: async () => {
      while (running) await running;
    },
  };
}

/** Production schedule: croner ticking every `intervalMs` (whole seconds, at least 1 s), first run at once. */
export function cronSchedule(onError: (name: string, e: unknown) => void): Schedule {
  return (name, intervalMs, run, hooks) => {
    const runner = serialRunner(run, hooks?.onOverrun ?? (() => {}), (e) => onError(name, e));
    // croner ticks every second; `interval` spaces runs by the configured number of seconds.
    const cron = new Cron('* * * * * *', { interval: Math.max(1, Math.round(intervalMs / 1000)), protect: true }, () =>
      runner.tick(),
    );
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
