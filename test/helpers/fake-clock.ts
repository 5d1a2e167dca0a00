import type { Clock } from '@cribl-exporter/api/clock';

interface Sleeper {
  until: number;
  resolve: () => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** A Clock whose time moves only when the test says so. */
export class FakeClock implements Clock {
  #now: number;
  #sleepers: Sleeper[] = [];

  constructor(start = Date.UTC(2026, 10, 22, 12, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const s: Sleeper = { until: this.#now + Math.max(0, ms), resolve, reject, signal, onAbort: undefined };
      if (signal) {
        s.onAbort = () => {
          this.#sleepers = this.#sleepers.filter((x) => x !== s);
          reject(signal.reason as Error);
        };
        signal.addEventListener('abort', s.onAbort, { once: true });
      }
      this.#sleepers.push(s);
    });
  }

  /** Number of sleeps not yet due. */
  get pending(): number {
    return this.#sleepers.length;
  }

  /** Moves time forward without waking anyone, as a busy event loop does: sleepers now due wake late, at advance(). */
  stall(ms: number): void {
    this.#now += ms;
  }

  /** Moves time forward, waking sleepers in order; lets promise chains run between wake-ups. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await flushMicrotasks();
      const due = this.#sleepers.filter((s) => s.until <= target).sort((a, b) => a.until - b.until)[0];
      if (!due) break;
      this.#now = Math.max(this.#now, due.until);
      this.#sleepers = this.#sleepers.filter((x) => x !== due);
      if (due.signal && due.onAbort) due.signal.removeEventListener('abort', due.onAbort);
      due.resolve();
    }
    // A stall may have moved time past the target already.
    this.#now = Math.max(this.#now, target);
    await flushMicrotasks();
  }
}

export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
  await new Promise<void>((r) => setImmediate(r));
}
