import { ENDPOINTS } from '@cribl-exporter/api/routes';
import type { AuthConfig } from '../../src/auth/types.js';
import { withAuth } from '../../src/auth/with-auth.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import type { Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createAuthProvider } from '../../src/auth/index.js';
import type { AuthProvider } from '../../src/auth/types.js';
import { RequestBudget } from '../../src/leader/budget.js';
import { createLeaderClient } from '../../src/leader/client.js';
import type { LeaderResult } from '../../src/leader/types.js';
import { startSimulator } from '@cribl-exporter/simulator';
import type { Simulator, SimulatorOptions } from '@cribl-exporter/simulator';
import type { ReadFile } from '../../src/util/files.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { captureLogger, recordingMetrics, settleWithClock } from './helpers.js';

const PASSWORD = 'L0gin-Pa55word!';
const CLIENT_SECRET = 'Cl1ent-S3cret-xyz';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function sim(clock: FakeClock, opts: SimulatorOptions = {}): Promise<Simulator> {
  const s = await startSimulator({
    nodes: 3,
    clock,
    users: [{ username: 'admin', password: PASSWORD }],
    clients: [{ clientId: 'exporter', clientSecret: CLIENT_SECRET }],
    ...opts,
  });
  cleanups.push(() => s.close());
  return s;
}

/** The chain the app builds: dispatcher → auth (login through the client) → budgeted client. */
function chain(s: Simulator, clock: FakeClock, auth: AuthConfig, readFile: ReadFile = () => Promise.resolve('')) {
  const log = captureLogger();
  const metrics = recordingMetrics();
  const dispatcher: Dispatcher = new Agent();
  const raw = createLeaderClient({
    baseUrl: s.baseUrl,
    name: 'sim',
    dispatcher,
    budget: new RequestBudget({ maxRps: 100, burst: 50, maxConcurrency: 4, clock }),
    clock,
    random: () => 0.5,
    logger: log.logger,
  });
  const provider: AuthProvider = createAuthProvider(auth, {
    clock,
    readFile,
    logger: log.logger,
    metrics,
    dispatcher,
    random: () => 0.5,
    client: raw,
  });
  const c = withAuth(raw, provider);
  cleanups.push(async () => {
    provider.close();
    await c.close();
  });
  const workers = (): Promise<LeaderResult<unknown>> =>
    c.request({ endpoint: ENDPOINTS.workers, path: '/products/stream/workers', decode: (j) => j });
  return { client: c, provider, log, metrics, workers };
}

const count = (s: Simulator, route: string, status: string): number => s.stats().requests[route]?.[status] ?? 0;

describe('on-prem login against the simulated leader', () => {
  const login: AuthConfig = { mode: 'login', username: 'admin', password: PASSWORD, fallbackTtlMs: 3_600_000 };

  it('logs in, renews before the JWT expires, and after a 401 logs in exactly once more', async () => {
    const clock = new FakeClock();
    const s = await sim(clock);
    s.setFaults({ tokenTtl: 600_000 });
    const { workers, provider, metrics } = chain(s, clock, login);

    expect((await workers()).ok).toBe(true);
    expect(count(s, '/auth/login', '200')).toBe(1);
    expect(provider.expiresAt()).toBe(Math.floor((clock.now() + 600_000) / 1000) * 1000);

    // 10% of 10 min = 60 s before exp: still the same token one second earlier.
    await clock.advance(600_000 - 61_000);
    expect((await workers()).ok).toBe(true);
    expect(count(s, '/auth/login', '200')).toBe(1);
    await clock.advance(2_000);
    expect((await workers()).ok).toBe(true);
    expect(count(s, '/auth/login', '200')).toBe(2);
    expect(count(s, '/products/{product}/workers', '401')).toBe(0);

    // The leader forgets every session (restart): one 401, one login, the request still succeeds.
    await clock.advance(1_000);
    s.revokeTokens();
    expect((await workers()).ok).toBe(true);
    expect(count(s, '/products/{product}/workers', '401')).toBe(1);
    expect(count(s, '/auth/login', '200')).toBe(3);
    expect(metrics.failures).toEqual([]);
  });

  it('when the new token is rejected too, the request fails after exactly one refresh', async () => {
    const clock = new FakeClock();
    const s = await sim(clock);
    const { workers, provider } = chain(s, clock, login);
    expect((await workers()).ok).toBe(true);
    await clock.advance(1_000);
    // Tokens issued from now on are already expired when used.
    s.setFaults({ tokenTtl: 0 });
    s.revokeTokens();
    const r = await workers();
    expect(r).toMatchObject({ ok: false, status: 401 });
    expect(count(s, '/products/{product}/workers', '401')).toBe(2);
    expect(count(s, '/auth/login', '200')).toBe(2);
    expect(provider.mode).toBe('login');
  });

  it("honours the leader's login rate limit (429 + Retry-After) through the budget", async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 22, 12, 0, 0, 100));
    const s = await sim(clock);
    s.setFaults({ loginRateLimit: '2/second' });
    const { workers } = chain(s, clock, login);
    expect((await workers()).ok).toBe(true);
    s.revokeTokens();
    expect((await workers()).ok).toBe(true);
    expect(count(s, '/auth/login', '200')).toBe(2);
    // A third login in the same second is refused with 429; the budget waits for Retry-After, then logs in.
    s.revokeTokens();
    const started = clock.now();
    const r = (await settleWithClock(clock, workers(), 100)) as LeaderResult<unknown>;
    expect(r.ok).toBe(true);
    expect(count(s, '/auth/login', '429')).toBe(1);
    expect(count(s, '/auth/login', '200')).toBe(3);
    expect(s.stats().retryAfterViolations).toBe(0);
    expect(clock.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('wrong password: a clear failure naming the user, invalid_credentials counted, no retry storm', async () => {
    const clock = new FakeClock();
    const s = await sim(clock);
    const { workers, metrics } = chain(s, clock, { ...login, password: 'wrong' });
    const r = await workers();
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toContain('login to the leader as "admin" (POST /auth/login) failed');
    expect(await workers()).toMatchObject({ ok: false });
    expect(count(s, '/auth/login', '401')).toBe(1);
    expect(metrics.failures).toEqual([['login', 'invalid_credentials']]);
  });
});

describe('static token file against the simulated leader', () => {
  it('picks up a rotated token file with no restart (after the reload interval, or at once after a 401)', async () => {
    const clock = new FakeClock();
    const s = await sim(clock);
    const dir = mkdtempSync(join(tmpdir(), 'tok-'));
    cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    const file = join(dir, 'token');
    writeFileSync(file, `${s.token}\n`);
    const readFile = (p: string): Promise<string> => Promise.resolve(readFileSync(p, 'utf8'));
    const { workers } = chain(s, clock, { mode: 'token', tokenFile: file }, readFile);
    expect((await workers()).ok).toBe(true);

    // Rotated to a token the leader does not know: used after the reload interval, and the 401 is final.
    writeFileSync(file, 'revoked-token\n');
    await clock.advance(10_000);
    expect(await workers()).toMatchObject({ ok: false, status: 401 });
    expect(count(s, '/products/{product}/workers', '401')).toBe(1);

    // Rotated back before the interval ends: the 401 re-reads the file, the retry succeeds.
    writeFileSync(file, `Bearer ${s.token}\n`);
    expect((await workers()).ok).toBe(true);
    expect(count(s, '/products/{product}/workers', '401')).toBe(2);
  });
});

describe('Cribl.Cloud client credentials against the simulated token endpoint', () => {
  it.each(['json', 'form'] as const)('%s body: token, expiry renewal, one refresh after a 401', async (tokenBody) => {
    const clock = new FakeClock();
    const s = await sim(clock);
    s.setFaults({ oauthTokenTtl: 300_000 });
    const cfg: AuthConfig = {
      mode: 'cloud',
      clientId: 'exporter',
      clientSecret: CLIENT_SECRET,
      tokenUrl: s.oauthTokenUrl,
      audience: 'https://api.cribl.cloud',
      tokenBody,
    };
    const { workers, provider } = chain(s, clock, cfg);
    expect((await workers()).ok).toBe(true);
    expect(count(s, '/oauth/token', '200')).toBe(1);
    expect(provider.expiresAt()).toBe(clock.now() + 300_000);

    await clock.advance(300_000 - 30_000);
    expect((await workers()).ok).toBe(true);
    expect(count(s, '/oauth/token', '200')).toBe(2);

    s.revokeTokens();
    expect((await workers()).ok).toBe(true);
    expect(count(s, '/products/{product}/workers', '401')).toBe(1);
    expect(count(s, '/oauth/token', '200')).toBe(3);
  });

  it('a wrong client secret is invalid_credentials, never retried in a loop', async () => {
    const clock = new FakeClock();
    const s = await sim(clock);
    const { workers, metrics } = chain(s, clock, {
      mode: 'cloud',
      clientId: 'exporter',
      clientSecret: 'nope',
      tokenUrl: s.oauthTokenUrl,
      audience: 'https://api.cribl.cloud',
      tokenBody: 'json',
    });
    expect(await workers()).toMatchObject({ ok: false });
    expect(await workers()).toMatchObject({ ok: false });
    expect(count(s, '/oauth/token', '401')).toBe(1);
    expect(metrics.failures).toEqual([['cloud', 'invalid_credentials']]);
  });
});
