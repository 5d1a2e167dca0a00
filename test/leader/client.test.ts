import { ENDPOINTS } from '@cribl-exporter/api/routes';
import { withAuth } from '../../src/auth/with-auth.js';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createLeaderClient } from '../../src/leader/client.js';
import { clientLimitsFromConfig, DEFAULT_CLIENT_LIMITS } from '../../src/leader/settings.js';
import type { LeaderRequest } from '../../src/leader/types.js';
import { FakeClock, flushMicrotasks } from '../helpers/fake-clock.js';
import { anyJson, fakeAuth, mockedLeader, SECRET, settle } from './helpers.js';
import type { Call, Reply } from './helpers.js';

const workers = (extra: Partial<LeaderRequest<unknown>> = {}): LeaderRequest<unknown> => ({
  endpoint: ENDPOINTS.workers,
  path: '/products/stream/workers',
  decode: anyJson,
  ...extra,
});
const nodeHealth = (extra: Partial<LeaderRequest<unknown>> = {}): LeaderRequest<unknown> => ({
  endpoint: ENDPOINTS.nodeHealth,
  path: '/w/node-1/health',
  nodeScoped: true,
  accept: [200, 420],
  decode: anyJson,
  ...extra,
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});
function leader(...args: Parameters<typeof mockedLeader>) {
  const l = mockedLeader(...args);
  closers.push(() => l.client.close());
  return l;
}
const apiCalls = (calls: Call[]) => calls.filter((c) => c.path !== '/api/v1/health');

describe('leader client: answers', () => {
  it('decodes a 200 and sends the bearer token, accept and user agent', async () => {
    const { client, calls, clock } = leader(() => ({ body: { count: 1, items: [{ id: 'a' }] } }));
    const r = await settle(client.request(workers({ query: { offset: 0, limit: 50 } })), clock);
    expect(r).toEqual({ ok: true, status: 200, body: { count: 1, items: [{ id: 'a' }] } });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      method: 'GET',
      path: '/api/v1/products/stream/workers?offset=0&limit=50',
      headers: { authorization: `Bearer ${SECRET}`, accept: 'application/json', 'user-agent': 'cribl-exporter' },
    });
  });

  it('sends no Authorization header on anonymous requests, and asks no token', async () => {
    const { auth, state } = fakeAuth();
    const { client, calls, clock } = leader(() => ({ body: { token: 'x' } }), { auth });
    const r = await settle(
      client.request({
        endpoint: ENDPOINTS.login,
        method: 'POST',
        path: '/auth/login',
        anonymous: true,
        body: { contentType: 'application/json', payload: '{"username":"u"}' },
        decode: anyJson,
      }),
      clock,
    );
    expect(r.ok).toBe(true);
    expect(calls[0]?.headers.authorization).toBeUndefined();
    expect(calls[0]?.headers['content-type']).toBe('application/json');
    expect(calls[0]?.method).toBe('POST');
    expect(state.tokenCalls).toBe(0);
  });

  it('sends no Authorization header when the auth mode hands out an empty token (none)', async () => {
    const { auth } = fakeAuth({ token: '' });
    const { client, calls, clock } = leader(() => ({ body: {} }), { auth });
    await settle(client.request(workers()), clock);
    expect(calls[0]?.headers.authorization).toBeUndefined();
  });

  it('accepts a node 420 as an answer when asked to, without pausing anything', async () => {
    const { client, clock, budget, events } = leader(() => ({ status: 420, body: { status: 'shutting down' } }));
    const r = await settle(client.request(nodeHealth()), clock);
    expect(r).toEqual({ ok: true, status: 420, body: { status: 'shutting down' } });
    expect(budget.state().paused).toBe(false);
    expect(events.filter((e) => e.startsWith('throttled'))).toEqual([]);
  });
});

describe('leader client: failure mapping and retries', () => {
  it.each([
    // status, reason, tries (maxAttempts = 4)
    [400, 'http_4xx', 1],
    [403, 'forbidden', 1],
    [404, 'not_found', 1],
    [405, 'http_4xx', 1],
    [415, 'http_4xx', 1],
    [500, 'http_5xx', 1],
    [501, 'http_5xx', 1],
    [502, 'http_5xx', 4],
    [504, 'http_5xx', 4],
    [429, 'throttled', 4],
    [503, 'throttled', 4],
    [302, 'redirect', 1],
  ])('HTTP %i → %s after %i tries', async (status, reason, tries) => {
    const { client, calls, clock } = leader(() => ({ status, body: { message: 'no' } }));
    const r = await settle(client.request(workers()), clock);
    expect(r).toEqual({ ok: false, reason, status, message: `GET /products/stream/workers: HTTP ${status}` });
    expect(calls).toHaveLength(tries);
  });

  it('a node-scoped 420 that is not accepted is the node’s 4xx: no retry, no pause', async () => {
    const { client, calls, clock, budget } = leader(() => ({ status: 420 }));
    const r = await settle(client.request(nodeHealth({ endpoint: ENDPOINTS.nodeMetadata, accept: [200] })), clock);
    expect(r).toMatchObject({ ok: false, reason: 'http_4xx', status: 420 });
    expect(calls).toHaveLength(1);
    expect(budget.state().paused).toBe(false);
  });

  it('recovers when a retry succeeds', async () => {
    let n = 0;
    const { client, calls, clock } = leader(() => (++n < 3 ? { status: 502 } : { body: [1] }));
    const r = await settle(client.request(workers()), clock);
    expect(r).toEqual({ ok: true, status: 200, body: [1] });
    expect(calls).toHaveLength(3);
  });

  it.each([
    ['ECONNRESET', 'connect', 4],
    ['ECONNREFUSED', 'connect', 4],
    ['UND_ERR_SOCKET', 'connect', 4],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout', 4],
    ['UND_ERR_BODY_TIMEOUT', 'timeout', 4],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout', 4],
    ['CERT_HAS_EXPIRED', 'connect', 1],
  ])('transport error %s → %s after %i tries', async (code, reason, tries) => {
    const { client, calls, clock } = leader(() => ({ error: code }));
    const r = await settle(client.request(workers()), clock);
    expect(r).toMatchObject({ ok: false, reason });
    expect(r.ok ? '' : r.message).toContain(code);
    expect(calls).toHaveLength(tries);
  });

  it('backs off between retries with full jitter (injected random)', async () => {
    const { client, calls, clock } = leader(() => ({ status: 502 }), { random: () => 0.5 });
    const t0 = clock.now();
    await settle(client.request(workers()), clock, 10);
    // base 1000, ×2 each time, ×0.5 jitter: 500, 1000, 2000.
    expect(calls.map((c) => c.at - t0)).toEqual([0, 500, 1500, 3500]);
  });

  it('never retries past the deadline', async () => {
    const { client, calls, clock } = leader(() => ({ status: 504 }), { random: () => 0.99 });
    const t0 = clock.now();
    const deadline = t0 + 1500;
    const r = await settle(client.request(workers({ deadline })), clock, 10);
    expect(r).toMatchObject({ ok: false, reason: 'http_5xx', status: 504 });
    // 990 ms, then 1980 ms would land past the deadline.
    expect(calls.map((c) => c.at - t0)).toEqual([0, 990]);
    expect(calls.every((c) => c.at < deadline)).toBe(true);
  });

  it('does not send at all when the deadline has passed', async () => {
    const { client, calls, clock } = leader(() => ({ body: {} }));
    const r = await settle(client.request(workers({ deadline: clock.now() })), clock);
    expect(r).toMatchObject({ ok: false, reason: 'throttled' });
    expect(calls).toHaveLength(0);
  });
});

describe('leader client: 401', () => {
  it('invalidates exactly once and retries once with the new token', async () => {
    let n = 0;
    const { auth, state } = fakeAuth({ canRefresh: true });
    const { client, calls, clock } = leader(() => ({ status: 401 }), { auth });
    const r = await settle(client.request(workers()), clock);
    expect(r).toMatchObject({ ok: false, reason: 'unauthorized', status: 401 });
    expect(state.invalidated).toEqual([SECRET]);
    expect(calls).toHaveLength(2);
    n = state.tokenCalls;
    expect(n).toBe(2);
  });

  it('succeeds when the refreshed token is accepted', async () => {
    const { auth, state } = fakeAuth({ canRefresh: true });
    let n = 0;
    const { client, calls, clock } = leader(() => (++n === 1 ? { status: 401 } : { body: { ok: 1 } }), { auth });
    const r = await settle(client.request(workers()), clock);
    expect(r).toMatchObject({ ok: true, body: { ok: 1 } });
    expect(state.invalidated).toHaveLength(1);
    expect(calls).toHaveLength(2);
  });

  it('does not retry when the mode cannot refresh', async () => {
    const { auth, state } = fakeAuth({ canRefresh: false });
    const { client, calls, clock } = leader(() => ({ status: 401 }), { auth });
    await settle(client.request(workers()), clock);
    expect(state.invalidated).toHaveLength(1);
    expect(calls).toHaveLength(1);
  });

  it('maps a failing auth provider to one line without sending anything', async () => {
    const err = Object.assign(new Error('login failed: HTTP 429'), { reason: 'rate_limited' });
    const { auth } = fakeAuth({ fail: err });
    const { client, calls, clock } = leader(() => ({ body: {} }), { auth });
    const r = await settle(client.request(workers()), clock);
    expect(r).toEqual({
      ok: false,
      reason: 'throttled',
      message: 'GET /products/stream/workers: no credentials (token): login failed: HTTP 429',
    });
    expect(calls).toHaveLength(0);
  });
});

describe('leader client: Retry-After and the global pause', () => {
  const date = (ms: number) => new Date(ms).toUTCString();

  it.each([
    ['delta-seconds', 429, (_now: number) => ({ 'retry-after': '30' }), 30_000],
    ['HTTP-date', 429, (now: number) => ({ 'retry-after': date(now + 45_000) }), 45_000],
    ['retry-after-ms', 429, (_now: number) => ({ 'retry-after-ms': '2500' }), 2_500],
    ['on a 503', 503, (_now: number) => ({ 'retry-after': '12' }), 12_000],
    ['longer than undici’s 30 s clamp', 429, (_now: number) => ({ 'retry-after': '120' }), 120_000],
  ])('%s: nothing is sent inside the window, and the retry comes after it', async (_n, status, hdr, waitMs) => {
    const clock = new FakeClock();
    const t0 = clock.now();
    let n = 0;
    const { client, calls, events } = leader(() => (++n === 1 ? { status, headers: hdr(clock.now()) } : { body: {} }), {
      clock,
    });
    const first = client.request(workers());
    await flushMicrotasks();
    // Others asking meanwhile wait as well: the pause is global.
    const other = client.request(nodeHealth());
    const r = await settle(Promise.all([first, other]), clock, 250);
    expect(r.map((x) => x.ok)).toEqual([true, true]);
    expect(calls).toHaveLength(3);
    expect(calls[0]?.at).toBe(t0);
    for (const c of calls.slice(1)) expect(c.at - t0).toBeGreaterThanOrEqual(waitMs);
    expect(events).toContain(`throttled ${status}`);
  });

  it('does not send a request whose permit was granted just before a pause began', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    let pauseOnGrant = true;
    const l = leader(() => ({ body: {} }), { clock });
    // A pause that starts right after the grant lands between grant and send, as when another answer's
    // 429 is handled before this request's continuation runs.
    const budget = l.budget;
    const original = budget.acquire.bind(budget);
    budget.acquire = async (o) => {
      const r = await original(o);
      if (r.granted && pauseOnGrant) {
        pauseOnGrant = false;
        budget.pause(t0 + 7000);
      }
      return r;
    };
    const r = await settle(l.client.request(workers()), clock, 250);
    expect(r.ok).toBe(true);
    expect(l.calls).toHaveLength(1);
    expect(l.calls[0]!.at).toBeGreaterThanOrEqual(t0 + 7000);
    expect(l.events.filter((e) => e.startsWith('request'))).toEqual(['request /products/{product}/workers 200']);
  });

  it('fails at once with `throttled` when the pause outlasts the deadline (never shortened)', async () => {
    const { client, calls, clock } = leader(() => ({ status: 429, headers: { 'retry-after': '60' } }));
    const t0 = clock.now();
    const r = await settle(client.request(workers({ deadline: t0 + 10_000 })), clock);
    expect(r).toMatchObject({ ok: false, reason: 'throttled', status: 429 });
    expect(calls).toHaveLength(1);
    const other = await settle(client.request(nodeHealth({ deadline: t0 + 20_000 })), clock);
    expect(other).toMatchObject({ ok: false, reason: 'throttled' });
    expect(calls).toHaveLength(1);
  });

  it('without a header, pauses for a growing jittered backoff and cuts the window', async () => {
    const { client, calls, clock, budget } = leader(() => ({ status: 429 }), {
      budget: { initialConcurrency: 8 },
      random: () => 0.5,
    });
    const t0 = clock.now();
    await settle(client.request(workers()), clock, 10);
    // Pauses of 500, 1000, 2000 ms; after each the bucket starts empty, so the next token takes a few ms
    // more (the rate was also lowered).
    const gaps = calls.slice(1).map((c, i) => c.at - calls[i]!.at);
    expect(calls[0]!.at).toBe(t0);
    [500, 1000, 2000].forEach((pause, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(pause);
      expect(gaps[i]).toBeLessThan(pause + 20);
    });
    expect(budget.state().limit).toBeLessThan(8);
    expect(budget.state().rate).toBeLessThan(1000);
  });
});

describe('leader client: 420 (leader not serving)', () => {
  it('holds everything, probes /health anonymously with backoff, and resumes discovery on 200', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    let serving = false;
    const answer = (c: Call): Reply => {
      if (c.path === '/api/v1/health') return serving ? { body: { status: 'healthy' } } : { status: 420 };
      return serving ? { body: { items: [] } } : { status: 420, body: { status: 'standby' } };
    };
    const { client, calls, budget, events } = leader(answer, { clock });
    const first = client.request(workers());
    const r1 = await settle(first, clock, 10, 50);
    expect(r1).toMatchObject({ ok: false, reason: 'leader_unavailable', status: 420 });
    expect(budget.state()).toMatchObject({ held: true, paused: true });
    expect(events).toContain('throttled 420');

    // No deadline: fails at once without touching the leader. A node poll fails at once too (it comes round again
    // on its schedule). Discovery with a deadline waits for the leader to serve again.
    const noDeadline = await client.request(workers());
    expect(noDeadline).toMatchObject({ ok: false, reason: 'leader_unavailable' });
    const nodePoll = await client.request(nodeHealth({ deadline: t0 + 60_000 }));
    expect(nodePoll).toMatchObject({ ok: false, reason: 'leader_unavailable' });
    const waiting = client.request(workers({ deadline: t0 + 60_000 }));

    await clock.advance(6_000);
    const probes = calls.filter((c) => c.path === '/api/v1/health');
    // Probes at +1 s, then +2 s (doubling, capped at 4 s): 1000, 3000.
    expect(probes.map((p) => p.at - t0)).toEqual([1000, 3000]);
    expect(probes.every((p) => p.headers.authorization === undefined)).toBe(true);
    expect(apiCalls(calls)).toHaveLength(1);

    serving = true;
    const recoveredAt = clock.now();
    const r2 = await settle(waiting, clock, 10);
    expect(r2).toMatchObject({ ok: true });
    const resumed = apiCalls(calls)[1]!;
    // The next probe (4 s after the previous one) sees 200; work resumes right after it.
    expect(resumed.at - recoveredAt).toBeLessThanOrEqual(4000);
    expect(budget.state()).toMatchObject({ held: false, paused: false });
  });

  it('honours a 420 probe answer’s Retry-After, up to --leader.max-pause', async () => {
    const clock = new FakeClock();
    const t0 = clock.now();
    const answer = (c: Call): Reply =>
      c.path === '/api/v1/health'
        ? { status: 420, headers: { 'retry-after': '30' }, body: { status: 'standby' } }
        : { status: 420, body: { status: 'standby' } };
    const { client, calls } = leader(answer, { clock, limits: { maxPauseMs: 20_000 } });
    await settle(client.request(workers()), clock, 10, 50);
    await clock.advance(45_000);
    const probes = calls.filter((c) => c.path === '/api/v1/health').map((p) => p.at - t0);
    // The first probe after the probe interval; each next one after the Retry-After, cut to the 20 s max pause.
    expect(probes).toEqual([1000, 21_000, 41_000]);
  });

  it('the probe backs off to 15 s at most by default, or to the probe interval when that is longer', () => {
    const base = {
      ...DEFAULT_CLIENT_LIMITS,
      maxRps: 'auto',
      maxRpsCeiling: 1000,
      burst: undefined,
      maxConcurrency: 8,
    } as const;
    expect(
      clientLimitsFromConfig({ ...base, healthProbeIntervalMs: 5_000, backoffMaxMs: 60_000 }).healthProbeMaxMs,
    ).toBe(15_000);
    expect(clientLimitsFromConfig({ ...base, healthProbeIntervalMs: 30_000 }).healthProbeMaxMs).toBe(30_000);
  });

  it('a 420 on a node’s health is that node’s state and never pauses the fleet', async () => {
    const { client, clock, calls, budget } = leader((c) =>
      c.path.startsWith('/api/v1/w/') ? { status: 420, body: { status: 'shutting down' } } : { body: {} },
    );
    await settle(client.request(nodeHealth()), clock);
    await settle(client.request(workers()), clock);
    expect(budget.state().held).toBe(false);
    expect(calls.map((c) => c.at)).toEqual([clock.now(), clock.now()]);
  });
});

describe('leader client: bodies', () => {
  it.each([
    ['not JSON', 'hello <html>', 'response is not valid JSON'],
    ['empty', '', 'response is not valid JSON'],
    ['truncated', '{"items": [', 'response is not valid JSON'],
  ])('%s → decode, not retried, no body text in the message', async (_n, body, msg) => {
    const { client, calls, clock } = leader(() => ({ body }));
    const r = await settle(client.request(workers()), clock);
    expect(r).toEqual({ ok: false, reason: 'decode', status: 200, message: `GET /products/stream/workers: ${msg}` });
    expect(calls).toHaveLength(1);
  });

  it('reports a decoder that throws as decode, with its one-line reason', async () => {
    const { client, clock } = leader(() => ({ body: { items: 'nope' } }));
    const r = await settle(
      client.request(
        workers({
          decode: () => {
            throw new Error('items: expected array\n  at path');
          },
        }),
      ),
      clock,
    );
    expect(r).toEqual({
      ok: false,
      reason: 'decode',
      status: 200,
      message: 'GET /products/stream/workers: unexpected response shape (items: expected array at path)',
    });
  });

  it('fails cleanly on a body announced larger than the cap', async () => {
    const { client, clock } = leader(() => ({ body: 'x'.repeat(2048), headers: { 'content-length': '2048' } }), {
      limits: { maxResponseBytes: 1024 },
    });
    const r = await settle(client.request(workers()), clock);
    expect(r).toMatchObject({
      ok: false,
      reason: 'too_large',
      message: expect.stringContaining('larger than 1024 bytes'),
    });
  });

  it('fails cleanly on a streamed body beyond the cap', async () => {
    const { client, clock } = leader(() => ({ body: JSON.stringify({ pad: 'x'.repeat(5000) }) }), {
      limits: { maxResponseBytes: 1024 },
    });
    const r = await settle(client.request(workers()), clock);
    expect(r).toMatchObject({ ok: false, reason: 'too_large', message: expect.stringContaining('larger than 1024') });
  });
});

describe('leader client: safety', () => {
  it.each([
    ['/w/../health', 'dot segment'],
    ['/w/.%2e/health', 'dot segment'],
    ['/w/./health', 'dot segment'],
    ['/w/a?b/health', 'raw ?'],
    ['/w/a#b/health', 'raw ?'],
    ['w/a/health', 'must start with /'],
    ['/w/a b/health', 'whitespace'],
  ])('refuses path %s without sending', async (path, why) => {
    const { client, calls, clock } = leader(() => ({ body: {} }));
    const r = await settle(client.request(workers({ path })), clock);
    expect(r).toMatchObject({ ok: false, reason: 'decode', message: expect.stringContaining(why) });
    expect(calls).toHaveLength(0);
  });

  it('never puts the token in an error message', async () => {
    const statuses = [400, 401, 403, 404, 429, 500, 502, 503];
    for (const status of statuses) {
      const { client, clock } = leader(() => ({ status, body: { message: `bad token ${SECRET}` } }));
      const r = await settle(client.request(workers({ deadline: clock.now() + 5000 })), clock);
      expect(r.ok ? '' : r.message).not.toContain(SECRET);
    }
    const { client, clock } = leader(() => ({ body: {} }));
    const r = await settle(
      client.request(
        workers({
          decode: () => {
            throw new Error(`shape wrong near ${SECRET}`);
          },
        }),
      ),
      clock,
    );
    expect(r).toMatchObject({ ok: false, reason: 'decode' });
    expect(r.ok ? '' : r.message).not.toContain(SECRET);
  });

  it.each([
    ['http://u:p@leader.test/api/v1', /must not contain credentials/],
    ['http://leader.test/api/v1?x=1', /must not have a query/],
  ])('refuses the base URL %s', (baseUrl, msg) => {
    const l = mockedLeader(() => ({}));
    closers.push(() => l.client.close());
    const make = () =>
      withAuth(
        createLeaderClient({
          baseUrl,
          name: 'x',
          dispatcher: l.agent,
          budget: l.budget,
          clock: l.clock,
          random: Math.random,
          logger: pino({ level: 'silent' }),
        }),
        fakeAuth().auth,
      );
    expect(make).toThrow(msg);
    expect(() => make()).not.toThrow(/u:p|p@/);
  });

  it('records every exchange for metrics with endpoint and code', async () => {
    let n = 0;
    const { client, clock, events } = leader(() => (++n === 1 ? { error: 'ECONNRESET' } : { status: 404 }));
    await settle(client.request(workers()), clock);
    expect(events.filter((e) => e.startsWith('request'))).toEqual([
      'request /products/{product}/workers connect',
      'request /products/{product}/workers 404',
    ]);
  });

  it('close() ends waiting requests and later ones with a failure, never a rejection', async () => {
    const { client, clock, budget } = leader(() => ({ body: {} }));
    budget.pause(clock.now() + 60_000);
    const waiting = client.request(workers());
    await flushMicrotasks();
    await client.close();
    expect(await waiting).toMatchObject({ ok: false, reason: 'timeout' });
    expect(await client.request(workers())).toMatchObject({ ok: false });
  });
});
