import type { LeaderClient } from '../../src/leader/types.js';
import type { LeaderClientLimits } from '../../src/leader/settings.js';
import { withAuth } from '../../src/auth/with-auth.js';
import pino from 'pino';
import { MockAgent } from 'undici';
import type { AuthProvider } from '../../src/auth/types.js';
import { RequestBudget } from '../../src/leader/budget.js';
import type { RequestBudgetOptions } from '../../src/leader/budget.js';
import { createLeaderClient } from '../../src/leader/client.js';
import type { LeaderClientMetrics } from '../../src/leader/client.js';
import type { Clock } from '@cribl-exporter/api/clock';
import { FakeClock, flushMicrotasks } from '../helpers/fake-clock.js';

export const ORIGIN = 'http://leader.test:9000';
export const BASE = `${ORIGIN}/api/v1`;
export const SECRET = 'tok-SECRET-0123456789abcdef';

/** A request as the mocked leader saw it. */
export interface Call {
  path: string;
  method: string;
  headers: Record<string, string>;
  at: number;
}

/** What the mocked leader answers; `error` makes the transport fail with that code. */
export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  error?: string;
}

/** A fake AuthProvider that counts calls. */
export function fakeAuth(opts: { token?: string; canRefresh?: boolean; fail?: Error } = {}) {
  const state = { tokenCalls: 0, invalidated: [] as (string | undefined)[] };
  const auth: AuthProvider = {
    mode: 'token',
    token: () => {
      state.tokenCalls++;
      return opts.fail ? Promise.reject(opts.fail) : Promise.resolve(opts.token ?? SECRET);
    },
    invalidate: (rejected?: string) => {
      state.invalidated.push(rejected);
      return opts.canRefresh ?? false;
    },
    expiresAt: () => undefined,
    close: () => undefined,
  };
  return { auth, state };
}

/** Records every metrics hook call as a string. */
export function recordingMetrics() {
  const events: string[] = [];
  const metrics: LeaderClientMetrics = {
    onRequest: (endpoint, code) => events.push(`request ${endpoint} ${code}`),
    onThrottled: (code) => events.push(`throttled ${code}`),
    onConcurrencyChange: (l) => events.push(`limit ${l}`),
    onInFlight: () => undefined,
    onPauseChange: (p) => events.push(`paused ${p}`),
  };
  return { metrics, events };
}

/** A leader on a MockAgent whose answers come from `answer(call)`; time from a FakeClock. */
export function mockedLeader(
  answer: (call: Call) => Reply,
  opts: {
    budget?: Partial<RequestBudgetOptions>;
    limits?: Partial<LeaderClientLimits>;
    auth?: AuthProvider;
    random?: () => number;
    clock?: Clock;
  } = {},
) {
  const clock = (opts.clock ?? new FakeClock()) as FakeClock;
  const agent = new MockAgent();
  agent.disableNetConnect();
  const calls: Call[] = [];
  agent
    .get(ORIGIN)
    .intercept({ path: () => true, method: () => true })
    .reply((o) => {
      const headers = Object.fromEntries(
        Object.entries((o.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
      );
      const call: Call = { path: o.path, method: o.method, headers, at: clock.now() };
      calls.push(call);
      const r = answer(call);
      if (r.error) throw Object.assign(new Error(`mock ${r.error}`), { code: r.error });
      const data = typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? {});
      return { statusCode: r.status ?? 200, data, responseOptions: { headers: r.headers ?? {} } };
    })
    .persist();
  const { metrics, events } = recordingMetrics();
  const budget = new RequestBudget({
    maxRps: 1000,
    burst: 100,
    maxConcurrency: 8,
    clock,
    observer: metrics,
    ...opts.budget,
  });
  const auth = opts.auth ?? fakeAuth().auth;
  const client: LeaderClient = withAuth(
    createLeaderClient({
      baseUrl: BASE,
      name: 'test',
      dispatcher: agent,
      budget,
      clock,
      random: opts.random ?? (() => 0.5),
      logger: pino({ level: 'silent' }),
      metrics,
      limits: {
        backoffBaseMs: 1000,
        backoffMaxMs: 8000,
        healthProbeIntervalMs: 1000,
        healthProbeMaxMs: 4000,
        ...opts.limits,
      },
    }),
    auth,
  );
  return { clock, agent, calls, budget, client, events };
}

/** Advances the fake clock in steps until the promise settles (at most `maxMs`). */
export async function settle<T>(p: Promise<T>, clock: FakeClock, stepMs = 100, maxMs = 600_000): Promise<T> {
  let done = false;
  let value: T | undefined;
  void p.then((v) => {
    done = true;
    value = v;
  });
  for (let t = 0; t <= maxMs && !done; t += stepMs) {
    await flushMicrotasks();
    if (!done) await clock.advance(stepMs);
  }
  await flushMicrotasks();
  if (!done) throw new Error(`did not settle within ${maxMs} ms of fake time`);
  return value as T;
}

/** A decoder that accepts anything. */
export const anyJson = (json: unknown): unknown => json;
