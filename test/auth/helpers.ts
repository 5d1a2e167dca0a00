import { pino } from 'pino';
import type { Logger } from 'pino';
import { SECRET_LOG_PATHS } from '../../src/auth/secrets.js';
import type { AuthFailureReason, AuthMetrics, AuthMode } from '../../src/auth/types.js';
import type { FakeClock } from '../helpers/fake-clock.js';
import { flushMicrotasks } from '../helpers/fake-clock.js';

/** A pino logger (with the production redaction) whose JSON lines are kept for assertions. */
export function captureLogger(): { logger: Logger; lines: string[]; records: () => Record<string, unknown>[] } {
  const lines: string[] = [];
  const logger = pino(
    { level: 'trace', redact: { paths: [...SECRET_LOG_PATHS], censor: '[REDACTED]' } },
    { write: (s: string) => void lines.push(s) },
  );
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
  return `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'admin', ...extra, ...(exp !== undefined ? { exp } : {}) })}.c2ln`;
}

/** Waits (for real I/O, without sleeping) until the fake clock has a pending sleep. */
export async function untilSleeping(clock: FakeClock, count = 1, rounds = 500): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (clock.pending >= count) return;
    await flushMicrotasks(2);
  }
  throw new Error('the code under test never slept');
}

/** Waits until a condition holds, polling the event loop (no timers). */
export async function until(cond: () => boolean, rounds = 2000): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    if (cond()) return;
    await flushMicrotasks(2);
  }
  throw new Error('condition never held');
}
