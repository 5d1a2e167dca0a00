import { describe, expect, it } from 'vitest';
import { AuthConfigError, AuthError } from '../../src/auth/errors.js';
import { createLoginProvider, decodeAuthToken, loginFailureReason } from '../../src/auth/login.js';
import type { LoginAuthConfig } from '../../src/auth/login.js';
import type { LoginFn } from '../../src/auth/types.js';
import type { AuthToken } from '@cribl-exporter/api/shapes';
import type { LeaderResult } from '../../src/leader/types.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { captureLogger, fakeJwt, recordingMetrics, until } from './helpers.js';

const cfg: LoginAuthConfig = { mode: 'login', username: 'admin', password: 'hunter2-secret', fallbackTtlMs: 3_600_000 };

/** A fake leader login whose answers the test scripts; it records every call. */
function scriptedLogin(answer: (n: number) => LeaderResult<AuthToken> | Promise<LeaderResult<AuthToken>>) {
  const calls: { username: string; password: string }[] = [];
  const login: LoginFn = async (body) => {
    calls.push(body);
    return answer(calls.length);
  };
  return { login, calls };
}

const ok = (token: string, forcePasswordChange = false): LeaderResult<AuthToken> => ({
  ok: true,
  status: 200,
  body: { token, forcePasswordChange },
});

function setup(answer: Parameters<typeof scriptedLogin>[0], over: Partial<LoginAuthConfig> = {}) {
  const clock = new FakeClock();
  const log = captureLogger();
  const metrics = recordingMetrics();
  const { login, calls } = scriptedLogin(answer);
  const readFile = (p: string): Promise<string> => {
    if (p === '/pw') return Promise.resolve('file-password\n');
    return Promise.reject(Object.assign(new Error('nope'), { code: 'ENOENT' }));
  };
  const provider = createLoginProvider({ ...cfg, ...over }, { clock, readFile, logger: log.logger, login, metrics });
  return { clock, log, metrics, calls, provider };
}

describe('login provider', () => {
  it('logs in once and renews shortly before the JWT exp (60 s or 10% of the lifetime, the smaller)', async () => {
    const t0 = new FakeClock().now();
    const { clock, calls, provider, metrics } = setup((n) => ok(fakeJwt((t0 + n * 3_600_000) / 1000)));
    const first = await provider.token();
    expect(calls).toEqual([{ username: 'admin', password: 'hunter2-secret' }]);
    expect(provider.expiresAt()).toBe(t0 + 3_600_000);
    expect(metrics.expiries).toEqual([['login', t0 + 3_600_000]]);
    await clock.advance(3_600_000 - 60_001);
    expect(await provider.token()).toBe(first);
    expect(calls).toHaveLength(1);
    // From then on a renewal runs; the current token serves until it lands.
    await clock.advance(1);
    expect(await provider.token()).toBe(first);
    await clock.advance(0);
    const second = await provider.token();
    expect(second).not.toBe(first);
    expect(calls).toHaveLength(2);
  });

  it('uses the fallback TTL when the token has no readable exp', async () => {
    const { clock, calls, provider } = setup(() => ok('opaque'), { fallbackTtlMs: 600_000 });
    await provider.token();
    expect(provider.expiresAt()).toBe(clock.now() + 600_000);
    await clock.advance(600_000 - 60_000 - 1);
    await provider.token();
    expect(calls).toHaveLength(1);
    await clock.advance(1);
    await provider.token();
    expect(calls).toHaveLength(2);
  });

  it('a renewal that fails or hangs holds nothing up while the current token is valid; then callers wait', async () => {
    const t0 = new FakeClock().now();
    let release!: (r: LeaderResult<AuthToken>) => void;
    const { clock, calls, provider } = setup((n) =>
      n === 1
        ? ok(fakeJwt((t0 + 3_600_000) / 1000))
        : n === 2
          ? { ok: false, reason: 'http_5xx', status: 503, message: 'POST /auth/login: HTTP 503' }
          : new Promise<LeaderResult<AuthToken>>((r) => (release = r)),
    );
    const first = await provider.token();
    // Past the renewal time: the renewal fails (503), then the next one hangs; the current token serves throughout.
    await clock.advance(3_600_000 - 30_000);
    expect(await provider.token()).toBe(first);
    await until(() => calls.length === 2);
    await clock.advance(10_000);
    expect(await provider.token()).toBe(first);
    await until(() => calls.length === 3);
    expect(await provider.token()).toBe(first);
    // Expired: now a caller waits for the renewal in flight.
    await clock.advance(20_000);
    let got: string | undefined;
    const waiting = provider.token().then((t) => (got = t));
    await new Promise(setImmediate);
    expect(got).toBeUndefined();
    release(ok(fakeJwt((t0 + 7_200_000) / 1000)));
    await waiting;
    expect(got).not.toBe(first);
    expect(calls).toHaveLength(3);
  });

  it('a 401 while a renewal runs: the retry waits for the new token, not the refused one', async () => {
    const t0 = new FakeClock().now();
    let release!: (r: LeaderResult<AuthToken>) => void;
    const { clock, provider } = setup((n) =>
      n === 1 ? ok(fakeJwt((t0 + 3_600_000) / 1000)) : new Promise<LeaderResult<AuthToken>>((r) => (release = r)),
    );
    const first = await provider.token();
    await clock.advance(3_600_000 - 30_000);
    expect(await provider.token()).toBe(first);
    expect(provider.invalidate(first)).toBe(true);
    const retry = provider.token();
    release(ok(fakeJwt((t0 + 7_200_000) / 1000)));
    const second = await retry;
    expect(second).not.toBe(first);
  });

  it('shares one login between concurrent callers', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { calls, provider } = setup(async () => {
      await gate;
      return ok('shared');
    });
    const all = Promise.all([provider.token(), provider.token(), provider.token()]);
    await until(() => calls.length === 1);
    release();
    expect(await all).toEqual(['shared', 'shared', 'shared']);
    expect(calls).toHaveLength(1);
  });

  it(
    'after a 401, invalidate() allows exactly one new login; late 401s of the old token do not log in ' + 'again',
    async () => {
      const { calls, provider } = setup((n) => ok(`tok-${n}`));
      expect(await provider.token()).toBe('tok-1');
      expect(provider.invalidate()).toBe(true);
      expect(await provider.token()).toBe('tok-2');
      // Two more requests that had been sent with tok-1 come back 401.
      expect(provider.invalidate()).toBe(true);
      expect(provider.invalidate('tok-1')).toBe(true);
      expect(await provider.token()).toBe('tok-2');
      expect(calls).toHaveLength(2);
    },
  );

  it('invalidate(rejected) drops only the token that was rejected', async () => {
    const { calls, provider } = setup((n) => ok(`tok-${n}`));
    await provider.token();
    expect(provider.invalidate('something-else')).toBe(true);
    expect(await provider.token()).toBe('tok-1');
    expect(provider.invalidate('tok-1')).toBe(true);
    expect(await provider.token()).toBe('tok-2');
    expect(calls).toHaveLength(2);
  });

  it(
    'a failed login reports its reason, then waits before trying again (no tight loop), longer each ' + 'time',
    async () => {
      const { clock, calls, provider, metrics } = setup((n) =>
        n <= 2
          ? { ok: false, reason: 'http_4xx', status: 401, message: 'HTTP 401 from POST /auth/login' }
          : ok('finally'),
      );
      const err = await provider.token().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthError);
      expect((err as AuthError).reason).toBe('invalid_credentials');
      expect((err as AuthError).message).toBe(
        'login to the leader as "admin" (POST /auth/login) failed: HTTP 401 from POST /auth/login',
      );
      await expect(provider.token()).rejects.toThrow(AuthError);
      await clock.advance(4_999);
      await expect(provider.token()).rejects.toThrow(AuthError);
      expect(calls).toHaveLength(1);
      await clock.advance(1);
      await expect(provider.token()).rejects.toThrow(AuthError);
      expect(calls).toHaveLength(2);
      await clock.advance(9_999);
      await expect(provider.token()).rejects.toThrow(AuthError);
      expect(calls).toHaveLength(2);
      await clock.advance(1);
      expect(await provider.token()).toBe('finally');
      expect(metrics.failures).toEqual([
        ['login', 'invalid_credentials'],
        ['login', 'invalid_credentials'],
      ]);
    },
  );

  it('keeps the still-valid token when a renewal fails', async () => {
    const t0 = new FakeClock().now();
    const { clock, calls, provider } = setup((n) =>
      n === 1 ? ok(fakeJwt((t0 + 600_000) / 1000)) : { ok: false, reason: 'connect', message: 'connect ECONNREFUSED' },
    );
    const first = await provider.token();
    await clock.advance(600_000 - 60_000);
    expect(await provider.token()).toBe(first);
    expect(calls).toHaveLength(2);
    await clock.advance(59_999);
    expect(await provider.token()).toBe(first);
    await clock.advance(1);
    await expect(provider.token()).rejects.toMatchObject({ reason: 'unreachable' });
  });

  it('a throttled login (429 through the budget) is reported as rate_limited', async () => {
    const { provider, metrics } = setup(() => ({
      ok: false,
      reason: 'throttled',
      status: 429,
      message: 'HTTP 429 from POST /auth/login',
    }));
    await expect(provider.token()).rejects.toMatchObject({ reason: 'rate_limited' });
    expect(metrics.failures).toEqual([['login', 'rate_limited']]);
  });

  it('warns once when the leader asks for a password change', async () => {
    const { provider, log } = setup((n) => ok(`t${n}`, true));
    await provider.token();
    await provider.invalidate();
    await provider.token();
    expect(log.records().filter((r) => String(r.msg).includes('forcePasswordChange'))).toHaveLength(1);
  });

  it('reads the password file at each login', async () => {
    const { calls, provider } = setup(() => ok('t'), { password: undefined, passwordFile: '/pw' });
    await provider.token();
    expect(calls[0]).toEqual({ username: 'admin', password: 'file-password' });
  });

  it('an unreadable password file is a file_unreadable failure naming the file', async () => {
    const { provider, calls } = setup(() => ok('t'), { password: undefined, passwordFile: '/missing' });
    await expect(provider.token()).rejects.toThrow('cannot read --leader.password-file /missing: ENOENT');
    expect(calls).toHaveLength(0);
  });

  it('renews after the fallback TTL when the JWT exp is already past by our clock', async () => {
    const t0 = new FakeClock().now();
    const { provider, log } = setup(() => ok(fakeJwt((t0 - 10_000) / 1000)), { fallbackTtlMs: 900_000 });
    await provider.token();
    expect(provider.expiresAt()).toBe(t0 + 900_000);
    expect(log.lines.join('')).toContain('clock skew');
  });

  it.each([
    [{ password: undefined }, '--leader.username needs a password: set CRIBL_PASSWORD or --leader.password-file'],
    [{ passwordFile: '/pw' }, 'CRIBL_PASSWORD and --leader.password-file are both set: use one of them'],
    [{ username: '' }, '--leader.username is empty'],
  ])('rejects incomplete or conflicting settings %j', (over, message) => {
    expect(() => setup(() => ok('t'), over)).toThrow(new AuthConfigError(message));
  });
});

describe('loginFailureReason', () => {
  it.each([
    [{ reason: 'throttled', status: 429 }, 'rate_limited'],
    [{ reason: 'throttled' }, 'rate_limited'],
    [{ reason: 'http_4xx', status: 401 }, 'invalid_credentials'],
    [{ reason: 'http_4xx', status: 403 }, 'invalid_credentials'],
    [{ reason: 'http_4xx', status: 400 }, 'invalid_credentials'],
    [{ reason: 'http_4xx', status: 404 }, 'bad_response'],
    [{ reason: 'connect' }, 'unreachable'],
    [{ reason: 'timeout' }, 'unreachable'],
    [{ reason: 'leader_unavailable', status: 503 }, 'unreachable'],
    [{ reason: 'http_5xx', status: 500 }, 'unavailable'],
    [{ reason: 'http_5xx', status: 502 }, 'unavailable'],
    [{ reason: 'decode', status: 200 }, 'bad_response'],
  ])('%j → %s', (result, want) => {
    expect(loginFailureReason(result)).toBe(want);
  });
});

describe('decodeAuthToken', () => {
  it.each([
    [
      { token: 'x', forcePasswordChange: true },
      { token: 'x', forcePasswordChange: true },
    ],
    [{ token: 'x' }, { token: 'x', forcePasswordChange: false }],
  ])('%j', (json, want) => {
    expect(decodeAuthToken(json)).toEqual(want);
  });

  it.each([[null], [{}], [{ token: '' }], [{ token: 5 }], ['str']])('rejects %j without quoting it', (json) => {
    expect(() => decodeAuthToken(json)).toThrow(/^login response/);
  });
});

describe('login provider: a token with a control character', () => {
  it('is a bad response, never sent as a bearer', async () => {
    const { provider, metrics } = setup(() => ok('abc\r\nX-Evil: 1'));
    await expect(provider.token()).rejects.toThrow(
      'POST /auth/login answered a token that contains a control character (a line break inside the token?)',
    );
    expect(metrics.failures).toEqual([['login', 'bad_response']]);
  });
});
