import type { Logger } from 'pino';
import { createLogger } from '../../src/util/logger.js';
import type { AuthFailureReason, AuthMetrics, AuthMode } from '../../src/auth/types.js';
import type { FakeClock } from '../helpers/fake-clock.js';
import { flushMicrotasks } from '../helpers/fake-clock.js';

/** The process logger (with its redaction), at level trace, whose JSON lines are kept for assertions. */
export function captureLogger(): { logger: Logger; lines: string[]; records: () => Record<string, unknown>[] } {
  const lines: string[] = [];
  const logger = createLogger({ level: 'trace', format: 'json' }, { write: (s: string) => void lines.push(s) });
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** Metrics hooks that record every call. */
export function recordingMetrics(): AuthMetrics & {
  expiries: [AuthMode, number | undefined][];
  failures: [AuthMode, AuthFailureReason][];
} {
  const expiries: [AuthMode, number | undefined][] = [];
  const failures: [AuthMode, AuthFailureReason][] = [];
  return {
    expiries,
    failures,
    onTokenExpiry: (mode, epochMs) => void expiries.push([mode, epochMs]),
    onFailure: (mode, reason) => void failures.push([mode, reason]),
  };
}

/** A JWT (unsigned: nobody checks the signature here) with the given exp in epoch seconds. */
export function fakeJwt(exp: number | undefined, extra: Record<string, unknown> = {}): string {
  const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  const payload = { sub: 'admin', ...extra, ...(exp !== undefined ? { exp } : {}) };
  return `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(payload)}.c2ln`;
}

/** Waits (for real I/O, without timers) until the fake clock has a pending sleep; gives up after 5 s of I/O. */
export async function untilSleeping(clock: FakeClock, count = 1): Promise<void> {
  await until(() => clock.pending >= count, 'the code under test never slept');
}

/** Waits until a condition holds, yielding to the event loop between checks (I/O completes; no timers). */
export async function until(cond: () => boolean, what = 'condition never held'): Promise<void> {
  const giveUpAt = performance.now() + 5_000;
  while (performance.now() < giveUpAt) {
    if (cond()) return;
    await flushMicrotasks(2);
  }
  throw new Error(what);
}

/** Settles a promise whose code sleeps on the fake clock, advancing the clock by `stepMs` whenever it sleeps. */
export async function settleWithClock<T>(clock: FakeClock, p: Promise<T>, stepMs: number): Promise<unknown> {
  let done = false;
  const settled = p.then(
    (v) => v,
    (e: unknown) => e,
  );
  void settled.finally(() => (done = true));
  for (;;) {
    await until(() => done || clock.pending > 0, 'neither settled nor sleeping');
    if (done) return settled;
    await clock.advance(stepMs);
  }
}
