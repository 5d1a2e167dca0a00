import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_FAULTS, startSimulator } from '@cribl-exporter/simulator';
import type { FaultsPatch, Simulator, SimulatorOptions } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { JSON_BODY, call, tick } from './helpers.js';
import type { CallResult } from './helpers.js';

const sims: Simulator[] = [];
afterEach(async () => {
  while (sims.length) await sims.pop()!.close();
});

async function sim(faults: FaultsPatch = {}, opts: SimulatorOptions = {}): Promise<{ s: Simulator; clock: FakeClock }> {
  const clock = new FakeClock();
  const s = await startSimulator({ nodes: 10, clock, ...opts });
  s.setFaults(faults);
  sims.push(s);
  return { s, clock };
}

const api = (path: string): string => `/api/v1${path}`;

/** Waits until the server has parked `n` sleeps on the fake clock. */
/** Lets I/O run until `done()` holds, for at most 10 s of wall time (a wait, not a timing assertion). */
async function until(done: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!done() && Date.now() < end) await tick();
}

async function parked(clock: FakeClock, n = 1): Promise<void> {
  await until(() => clock.pending >= n);
  expect(clock.pending).toBeGreaterThanOrEqual(n);
}

/** True when the promise is still pending after I/O had a chance to run. */
async function stillPending(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 20; i++) await tick();
  return !done;
}

describe('rate limiting (token bucket)', () => {
  it('answers 429 with Retry-After in delta-seconds once the bucket is empty, and refills at `rate`', async () => {
    const { s, clock } = await sim({ rateLimit: { rate: 2, burst: 3 } });
    const get = () => call(s.origin, api('/master/workers?limit=1'), { token: s.token });
    for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
    const limited = await get();
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.json).toEqual({ status: 'error', message: 'Too many requests, please try again later.' });
    await clock.advance(500);
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(429);
    expect(s.stats().faultsInjected.ratelimit).toBe(2);
  });

  it('rounds Retry-After up to whole seconds for slow rates', async () => {
    const { s } = await sim({ rateLimit: { rate: 0.25, burst: 1 } });
    await call(s.origin, api('/master/workers'), { token: s.token });
    expect((await call(s.origin, api('/master/workers'), { token: s.token })).headers['retry-after']).toBe('4');
  });

  it('sends Retry-After as an HTTP-date, never earlier than the wait', async () => {
    const { s, clock } = await sim({ rateLimit: { rate: 1, burst: 1, retryAfter: 'http-date' } });
    await clock.advance(300); // not on a whole second
    await call(s.origin, api('/master/workers'), { token: s.token });
    const r = await call(s.origin, api('/master/workers'), { token: s.token });
    expect(r.status).toBe(429);
    const value = r.headers['retry-after']!;
    expect(value).toMatch(/^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
    const at = Date.parse(value);
    expect(at).toBeGreaterThanOrEqual(clock.now() + 1000);
    expect(at).toBeLessThan(clock.now() + 2000);
    expect(at % 1000).toBe(0);
  });

  it("sends no Retry-After with retryAfter: 'none'", async () => {
    const { s } = await sim({ rateLimit: { rate: 1, burst: 1, retryAfter: 'none' } });
    await call(s.origin, api('/master/workers'), { token: s.token });
    const r = await call(s.origin, api('/master/workers'), { token: s.token });
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBeUndefined();
  });

  it('keeps one bucket per client with per: client', async () => {
    const { s } = await sim({ rateLimit: { rate: 1, burst: 1, per: 'client' } });
    expect((await call(s.origin, api('/master/workers'), { token: s.token })).status).toBe(200);
    expect((await call(s.origin, api('/master/workers'), { token: s.token })).status).toBe(429);
    expect((await call(s.origin, api('/master/workers'), { token: s.forbiddenToken })).status).toBe(403);
  });

  it('applies only to the listed routes, and never to /auth/login by default', async () => {
    const { s } = await sim({ rateLimit: { rate: 1, burst: 1, routes: ['/w/{nodeId}/health'] } });
    const id = s.fleet.nodes()[0]!.id;
    expect((await call(s.origin, api(`/w/${id}/health`), { token: s.token })).status).toBe(200);
    expect((await call(s.origin, api(`/w/${id}/health`), { token: s.token })).status).toBe(429);
    for (let i = 0; i < 3; i++)
      expect((await call(s.origin, api('/master/workers'), { token: s.token })).status).toBe(200);
  });
});

describe('login rate limit', () => {
  const login = (s: Simulator) =>
    call(s.origin, api('/auth/login'), {
      method: 'POST',
      headers: JSON_BODY,
      body: '{"username":"admin","password":"wrong"}',
    });

  it('defaults to the leader default "2/second" and answers 429 with Retry-After in seconds', async () => {
    expect(DEFAULT_FAULTS.loginRateLimit).toBe('2/second');
    const { s, clock } = await sim();
    expect((await login(s)).status).toBe(401);
    expect((await login(s)).status).toBe(401);
    const limited = await login(s);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.json).toEqual({ status: 'error', message: 'Too many login attempts, please try again later.' });
    await clock.advance(1000);
    expect((await login(s)).status).toBe(401);
  });

  it('takes other windows in the same notation, and null switches it off', async () => {
    const { s, clock } = await sim({ loginRateLimit: '1/minute' });
    await login(s);
    await clock.advance(15_000);
    const r = await login(s);
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBe('45');
    s.setFaults({ loginRateLimit: null });
    for (let i = 0; i < 5; i++) expect((await login(s)).status).toBe(401);
  });
});

describe('leader windows (420)', () => {
  it('answers 420 on the whole control plane inside a window and recovers after it', async () => {
    const { s, clock } = await sim({ leaderWindows: [{ start: '10s', duration: '5s', state: 'shutting down' }] });
    const health = () => call(s.origin, api('/health'));
    expect((await health()).status).toBe(200);
    await clock.advance(10_000);
    const h = await health();
    expect(h.status).toBe(420);
    expect(h.json).toEqual({
      status: 'shutting down',
      startTime: expect.any(Number),
      role: 'primary',
      overlay: { state: 'inactive' },
    });
    const w = await call(s.origin, api('/products/stream/workers'), { token: s.token });
    expect(w.status).toBe(420);
    expect(w.json.status).toBe('shutting down');
    expect((await call(s.origin, '/v1/organizations/o/workspaces', { token: s.token })).status).toBe(200);
    await clock.advance(5_000);
    expect((await health()).status).toBe(200);
  });

  it('repeats a window with `every`', async () => {
    const { s, clock } = await sim({ leaderWindows: [{ start: 0, end: 1000, every: 10_000, state: 'standby' }] });
    const states: number[] = [];
    for (const step of [0, 1000, 8000, 1000, 1000]) {
      await clock.advance(step);
      states.push((await call(s.origin, api('/health'))).status);
    }
    expect(states).toEqual([420, 200, 200, 420, 200]);
  });
});

describe('503 bursts', () => {
  it('answers a share of requests with 503 and Retry-After', async () => {
    const { s } = await sim({ unavailable: { share: 1, retryAfter: 3 } });
    const r = await call(s.origin, api('/master/workers'), { token: s.token });
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('3');
    expect(r.json).toEqual({ status: 'error', message: 'Service Unavailable' });
  });

  it('sends 503 without Retry-After when retryAfter is null', async () => {
    const { s } = await sim({ unavailable: { share: 1 } });
    const r = await call(s.origin, api('/master/workers'), { token: s.token });
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBeUndefined();
  });

  it('hits roughly the configured share, deterministically from the seed', async () => {
    const run = async (): Promise<number[]> => {
      const { s } = await sim({ unavailable: { share: 0.3 } }, { seed: 5 });
      const out: number[] = [];
      for (let i = 0; i < 100; i++) out.push((await call(s.origin, api('/health'))).status);
      return out;
    };
    const a = await run();
    expect(a).toEqual(await run());
    const n = a.filter((x) => x === 503).length;
    expect(n).toBeGreaterThan(15);
    expect(n).toBeLessThan(45);
  });

  it('answers everything with 503 inside a window (HTTP-date Retry-After)', async () => {
    const { s, clock } = await sim({
      unavailable: { windows: [{ start: '1m', end: '2m' }], retryAfter: 30, retryAfterForm: 'http-date' },
    });
    expect((await call(s.origin, api('/health'))).status).toBe(200);
    await clock.advance(60_000);
    const r = await call(s.origin, api('/health'));
    expect(r.status).toBe(503);
    expect(Date.parse(r.headers['retry-after']!)).toBe(clock.now() + 30_000);
    await clock.advance(60_000);
    expect((await call(s.origin, api('/health'))).status).toBe(200);
  });
});

describe('latency and slow nodes', () => {
  it('holds answers for fixed + jitter on the injected clock, per route', async () => {
    const { s, clock } = await sim({ latency: { '/w/{nodeId}/health': { fixed: 200, jitter: 0 } } });
    const id = s.fleet.nodes()[0]!.id;
    const p = call(s.origin, api(`/w/${id}/health`), { token: s.token });
    await parked(clock);
    expect(await stillPending(p)).toBe(true);
    expect((await call(s.origin, api('/health'))).status).toBe(200);
    await clock.advance(200);
    expect((await p).status).toBe(200);
  });

  it("answers a 'slow' node only after slowNodeDelay", async () => {
    const { s, clock } = await sim({ slowNodeDelay: '5m' });
    const id = s.fleet.nodes()[1]!.id;
    s.fleet.setHealth(id, 'slow');
    const p = call(s.origin, api(`/w/${id}/health`), { token: s.token });
    await parked(clock);
    await clock.advance(299_000);
    expect(await stillPending(p)).toBe(true);
    await clock.advance(1_000);
    expect(await p).toMatchObject({ status: 200, json: { status: 'healthy' } });
    expect(s.stats().faultsInjected.slow).toBe(1);
  });

  it("ends a slow node's sleep when the client gives up: no timer or listener is left behind", async () => {
    const { s, clock } = await sim({ slowNodeDelay: '10m', latency: { '/w/{nodeId}/edge/metadata': { fixed: '5m' } } });
    const id = s.fleet.nodes()[1]!.id;
    s.fleet.setHealth(id, 'slow');
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const n = 30;
      const controllers = Array.from({ length: n }, () => new AbortController());
      const pending = controllers.map((ac, i) =>
        fetch(`${s.baseUrl}/w/${id}/${i % 2 ? 'health' : 'edge/metadata'}`, {
          headers: { authorization: `Bearer ${s.token}` },
          signal: ac.signal,
        }).catch((e: Error) => e.name),
      );
      await parked(clock, n);
      controllers.forEach((ac) => ac.abort());
      expect(await Promise.all(pending)).toEqual(Array(n).fill('AbortError'));
      // Waits on I/O (the server notices closed sockets), not on a timer: bounded by wall time for a busy machine.
      await until(() => clock.pending === 0);
      expect(clock.pending).toBe(0);
      await until(() => (s.stats().requests['/w/{nodeId}/health']?.aborted ?? 0) >= n / 2);
      expect(s.stats().requests['/w/{nodeId}/health']).toEqual({ aborted: n / 2 });
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('close() ends requests parked on a slow node promptly', async () => {
    const { s, clock } = await sim();
    const id = s.fleet.nodes()[1]!.id;
    s.fleet.setHealth(id, 'slow');
    const p = call(s.origin, api(`/w/${id}/health`), { token: s.token });
    await parked(clock);
    await s.close();
    const r = await p;
    expect(r.error).toBeDefined();
  });
});

describe('broken answers', () => {
  it('resets the connection', async () => {
    const { s } = await sim({ resets: { share: 1 } });
    const r = await call(s.origin, api('/master/workers'), { token: s.token });
    expect(r.error).toMatch(/ECONNRESET|socket hang up/);
    expect(s.stats().requests['/master/workers']).toEqual({ reset: 1 });
  });

  it('truncates JSON bodies (framing intact)', async () => {
    const { s } = await sim({ truncated: { share: 1, routes: ['/products/{product}/workers'] } });
    const r = await call(s.origin, api('/products/stream/workers'), { token: s.token });
    expect(r.status).toBe(200);
    expect(r.json).toBeUndefined();
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.text));
    s.setFaults({ truncated: null });
    const full = await call(s.origin, api('/products/stream/workers'), { token: s.token });
    expect(full.text.startsWith(r.text)).toBe(true);
    expect(r.text.length).toBe(Math.floor(full.text.length / 2));
    expect((await call(s.origin, api('/health'))).json).toBeDefined();
  });

  it('sends malformed JSON', async () => {
    const { s } = await sim({ malformed: { share: 1 } });
    const r = await call(s.origin, api('/health'));
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(() => JSON.parse(r.text) as unknown).toThrow();
  });

  it('sends an oversized (valid JSON, chunked) body', async () => {
    const { s } = await sim({ oversized: { share: 1, bytes: '2MB' } });
    const id = s.fleet.nodes()[0]!.id;
    const r = await call(s.origin, api(`/w/${id}/health`), { token: s.token });
    expect(r.status).toBe(200);
    expect(r.headers['content-length']).toBeUndefined();
    expect(r.headers['transfer-encoding']).toBe('chunked');
    expect(Buffer.byteLength(r.text)).toBe(2_000_000);
    expect(r.json).toMatchObject({ status: 'healthy', padding: expect.stringMatching(/^x+$/) });
  });

  it('drips a body: headers first, `bytes` every `every` for `duration` (its clock); then the rest', async () => {
    const { s, clock } = await sim({ drip: { share: 1, every: '2s', duration: '6s', routes: ['/w/{nodeId}/health'] } });
    const id = s.fleet.nodes()[0]!.id;
    const pending = call(s.origin, api(`/w/${id}/health`), { token: s.token });
    expect(await stillPending(pending)).toBe(true);
    for (let i = 0; i < 2; i++) {
      await parked(clock);
      await clock.advance(2_000);
      expect(await stillPending(pending)).toBe(true);
    }
    await parked(clock);
    await clock.advance(2_000);
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: 'healthy' });
    expect(s.stats().faultsInjected.drip).toBe(1);
    // Other routes are answered at once.
    expect((await call(s.origin, api('/master/workers'), { token: s.token })).status).toBe(200);
  });

  it('never alters error answers', async () => {
    const { s } = await sim({ malformed: { share: 1 } });
    const r = await call(s.origin, api('/master/workers'));
    expect(r.status).toBe(401);
    expect(r.json).toBeDefined();
  });
});

describe('token expiry', () => {
  it('rejects a login token with 401 once its TTL has passed', async () => {
    const { s, clock } = await sim({ tokenTtl: '1m' });
    const login = await call(s.origin, api('/auth/login'), {
      method: 'POST',
      headers: JSON_BODY,
      body: '{"username":"admin","password":"admin"}',
    });
    const token = login.json.token as string;
    const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp as number;
    expect(exp * 1000).toBe(clock.now() + 60_000);
    expect((await call(s.origin, api('/master/workers'), { token })).status).toBe(200);
    await clock.advance(59_999);
    expect((await call(s.origin, api('/master/workers'), { token })).status).toBe(200);
    await clock.advance(1);
    expect((await call(s.origin, api('/master/workers'), { token })).status).toBe(401);
    expect((await call(s.origin, api('/master/workers'), { token: s.token })).status).toBe(200);
  });

  it('announces the OAuth TTL in expires_in and enforces it', async () => {
    const { s, clock } = await sim({ oauthTokenTtl: '10m' });
    const body = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: 'sim-client',
      client_secret: 'sim-secret',
    });
    const r = await call(s.origin, '/oauth/token', { method: 'POST', headers: JSON_BODY, body });
    expect(r.json.expires_in).toBe(600);
    await clock.advance(600_000);
    expect((await call(s.origin, '/v1/organizations/o/workspaces', { token: r.json.access_token })).status).toBe(401);
  });

  it('revokeTokens() invalidates issued tokens but not the static one', async () => {
    const { s } = await sim();
    const login = await call(s.origin, api('/auth/login'), {
      method: 'POST',
      headers: JSON_BODY,
      body: '{"username":"admin","password":"admin"}',
    });
    expect(s.revokeTokens()).toBe(1);
    expect((await call(s.origin, api('/master/workers'), { token: login.json.token })).status).toBe(401);
    expect((await call(s.origin, api('/master/workers'), { token: s.token })).status).toBe(200);
  });
});

describe('churn', () => {
  it('changes the fleet every `every` on the injected clock, and stops when switched off', async () => {
    const { s, clock } = await sim({ churn: { every: '10s', join: 2, restart: 1 } });
    const before = s.fleet.size();
    await clock.advance(9_999);
    expect(s.fleet.size()).toBe(before);
    await clock.advance(1);
    expect(s.fleet.size()).toBe(before + 2);
    const listed = await call(s.origin, api('/master/workers'), { token: s.token });
    expect(listed.json.count).toBe(before + 2);
    await clock.advance(10_000);
    expect(s.fleet.size()).toBe(before + 4);
    s.setFaults({ churn: null });
    await clock.advance(60_000);
    expect(s.fleet.size()).toBe(before + 4);
    expect(clock.pending).toBe(0);
  });
});

describe('statistics', () => {
  it('counts requests per route template and status', async () => {
    const { s } = await sim();
    const id = s.fleet.nodes()[0]!.id;
    await call(s.origin, api(`/w/${id}/health`), { token: s.token });
    await call(s.origin, api(`/w/${id}/health`), { token: s.token });
    await call(s.origin, api('/w/other/health'), { token: s.token });
    await call(s.origin, api('/products/stream/workers'));
    await call(s.origin, api('/nope'));
    await call(s.origin, '/_sim/stats');
    const st = s.stats();
    expect(st.requests).toEqual({
      '/w/{nodeId}/health': { '200': 2, '404': 1 },
      '/products/{product}/workers': { '401': 1 },
      '(unmatched)': { '404': 1 },
    });
    expect(st.totalRequests).toBe(5);
    expect(st.inFlight).toBe(0);
    s.resetStats();
    expect(s.stats()).toMatchObject({ totalRequests: 0, requests: {}, retryAfterViolations: 0 });
  });

  it('tracks in-flight and peak concurrent requests', async () => {
    const { s, clock } = await sim({ latency: { '/health': { fixed: 100 } } });
    const pending = [1, 2, 3].map(() => call(s.origin, api('/health')));
    await parked(clock, 3);
    expect(s.stats()).toMatchObject({ inFlight: 3, peakConcurrent: 3 });
    await clock.advance(100);
    await Promise.all(pending);
    await until(() => s.stats().inFlight === 0);
    expect(s.stats()).toMatchObject({ inFlight: 0, peakConcurrent: 3 });
  });

  it('counts requests arriving inside a Retry-After sent to the same client, per client, no tokens shown', async () => {
    const { s, clock } = await sim({ rateLimit: { rate: 1, burst: 1, per: 'client' } });
    const get = (token: string): Promise<CallResult> => call(s.origin, api('/master/workers?limit=1'), { token });
    await get(s.token);
    expect((await get(s.token)).headers['retry-after']).toBe('1');
    await get(s.token); // too early: a violation
    await get(s.forbiddenToken); // another client: not a violation
    await clock.advance(1000);
    await get(s.token); // after the wait: fine
    const st = s.stats();
    expect(st.retryAfterSent).toBe(2);
    expect(st.retryAfterViolations).toBe(1);
    const clients = Object.keys(st.retryAfterViolationsByClient);
    expect(clients).toHaveLength(1);
    expect(clients[0]).toMatch(/^token:[0-9a-f]{12}$/);
    expect(JSON.stringify(st)).not.toContain(s.token);
  });

  it('identifies clients without a bearer token by remote address', async () => {
    const { s } = await sim({ unavailable: { share: 1, retryAfter: 5 } });
    await call(s.origin, api('/health'));
    await call(s.origin, api('/health'));
    expect(s.stats().retryAfterViolationsByClient).toEqual({ 'addr:127.0.0.1': 1 });
  });
});
