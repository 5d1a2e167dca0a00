import type { Schedule } from '../../src/polling/scheduler.js';

/** A Schedule whose jobs run only when the test says so. */
export function manualSchedule(): { schedule: Schedule; run(prefix: string): Promise<void>; names(): string[] } {
  const jobs: { name: string; run: (s: AbortSignal) => Promise<void>; stopped: boolean }[] = [];
  const ac = new AbortController();
  return {
    schedule: (name, _interval, run) => {
      const job = { name, run, stopped: false };
      jobs.push(job);
      return {
        stop: () => {
          job.stopped = true;
        },
        trigger: () => undefined,
      };
    },
    async run(prefix) {
      await Promise.all(jobs.filter((j) => !j.stopped && j.name.startsWith(prefix)).map((j) => j.run(ac.signal)));
    },
    names: () => jobs.filter((j) => !j.stopped).map((j) => j.name),
  };
}
