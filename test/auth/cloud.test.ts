import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createCloudProvider, decodeTokenResponse } from '../../src/auth/cloud.js';
import type { CloudAuthConfig } from '../../src/auth/cloud.js';
import { AuthConfigError } from '../../src/auth/errors.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { startFake } from './fake-cloud.js';
import type { Reply, SeenRequest } from './fake-cloud.js';
import { captureLogger, fakeJwt, recordingMetrics, settleWithClock, untilSleeping } from './helpers.js';

const SECRET = 'cl1ent-s3cret-value';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function setup(reply: (req: SeenRequest, n: number) => Reply, over: Partial<CloudAuthConfig> = {}) {
  const fake = await startFake(reply);
  const dispatcher = new Agent();
  closers.push(fake.close, () => dispatcher.close());
  const clock = new FakeClock();
  const log = captureLogger();
  const metrics = recordingMetrics();
  const cfg: CloudAuthConfig = {
    mode: 'cloud',
    clientId: 'my-client',
    clientSecret: SECRET,
    tokenUrl: `${fake.url}/oauth/token`,
    audience: 'https://api.cribl.cloud',
    tokenBody: 'json',
    ...over,
  };
  const provider = createCloudProvider(cfg, {
    clock,
    readFile: () => Promise.resolve(`${SECRET}\n`),
    logger: log.logger,
    dispatcher,
    random: () => 0.5,
    metrics,
  });
  closers.push(() => Promise.resolve(provider.close()));
  return { fake, clock, log, metrics, provider };
}

const granted = (token: string, expiresIn = 86_400): Reply => ({
  status: 200,
  body: { access_token: token, token_type: 'Bearer', expires_in: expiresIn, scope: 'x' },
});

describe('Cribl.Cloud client credentials', () => {
  it.each([
    ['json', 'application/json'],
    ['form', 'application/x-www-form-urlencoded'],
  ] as const)('sends a %s body with grant type, client, secret and audience', async (tokenBody, contentType) => {
    const { fake, provider } = await setup(() => granted('tok'), { tokenBody });
    expect(await provider.token()).toBe('tok');
    expect(fake.seen).toHaveLength(1);
    expect(fake.seen[0]).toMatchObject({
      method: 'POST',
      url: '/oauth/token',
      contentType,
      fields: {
        grant_type: 'client_credentials',
        client_id: 'my-client',
        client_secret: SECRET,
        audience: 'https://api.cribl.cloud',
      },
    });
  });

  it('reads the secret from its file, without the trailing newline', async () => {
    const { fake, provider } = await setup(() => granted('tok'), {
      clientSecret: undefined,
      clientSecretFile: '/secret',
    });
    await provider.token();
    expect(fake.seen[0]?.fields.client_secret).toBe(SECRET);
  });

  it('caches the token until shortly before expires_in (60 s before, or 10% of the lifetime if smaller)', async () => {
    const { fake, clock, provider, metrics } = await setup((_r, n) => granted(`tok-${n}`, 300));
    const t0 = clock.now();
    expect(await provider.token()).toBe('tok-1');
    expect(metrics.expiries).toEqual([['cloud', t0 + 300_000]]);
    // 10% of 300 s = 30 s < 60 s.
    await clock.advance(270_000 - 1);
    expect(await provider.token()).toBe('tok-1');
    // From then on a renewal runs; the current token serves until it lands.
    await clock.advance(1);
    expect(await provider.token()).toBe('tok-1');
    let next = 'tok-1';
    for (let i = 0; i < 1_000 && next === 'tok-1'; i++) {
      await new Promise(setImmediate);
      next = await provider.token();
    }
    expect(next).toBe('tok-2');
    expect(fake.seen).toHaveLength(2);
  });

  it('concurrent callers share one token request', async () => {
    const { fake, provider } = await setup(() => granted('tok'));
    expect(await Promise.all([provider.token(), provider.token(), provider.token()])).toEqual(['tok', 'tok', 'tok']);
    expect(fake.seen).toHaveLength(1);
  });

  it('a 401 from the leader gets exactly one new token', async () => {
    const { fake, provider } = await setup((_r, n) => granted(`tok-${n}`));
    expect(await provider.token()).toBe('tok-1');
    expect(provider.invalidate('tok-1')).toBe(true);
    expect(await provider.token()).toBe('tok-2');
    expect(provider.invalidate('tok-1')).toBe(true);
    expect(await provider.token()).toBe('tok-2');
    expect(fake.seen).toHaveLength(2);
  });

  it('honours 429 Retry-After, then succeeds', async () => {
    const { fake, clock, provider, metrics } = await setup((_r, n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '7' }, body: { error: 'too_many_requests' } } : granted('tok'),
    );
    const pending = provider.token();
    await untilSleeping(clock);
    await clock.advance(6_999);
    expect(fake.seen).toHaveLength(1);
    await clock.advance(1);
    expect(await pending).toBe('tok');
    expect(fake.seen).toHaveLength(2);
    expect(metrics.failures).toEqual([]);
  });

  it('a Retry-After longer than the inline limit fails as rate_limited and the next attempt waits for it', async () => {
    const { fake, clock, provider, metrics } = await setup((_r, n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '120' } } : granted('tok'),
    );
    await expect(provider.token()).rejects.toMatchObject({
      reason: 'rate_limited',
      message: expect.stringContaining('HTTP 429'),
    });
    await clock.advance(119_999);
    await expect(provider.token()).rejects.toMatchObject({ reason: 'rate_limited' });
    expect(fake.seen).toHaveLength(1);
    await clock.advance(1);
    expect(await provider.token()).toBe('tok');
    expect(metrics.failures).toEqual([['cloud', 'rate_limited']]);
  });

  it('retries 5xx with backoff, up to the attempt limit', async () => {
    const { fake, clock, provider, metrics } = await setup(() => ({ status: 503 }));
    const started = clock.now();
    const err = await settleWithClock(clock, provider.token(), 100);
    // Full jitter with random 0.5: 500 ms, then 1000 ms.
    expect(clock.now() - started).toBe(1_500);
    expect(fake.seen).toHaveLength(3);
    // A token service that is down is `unavailable` (a 5xx), never a malformed answer (`bad_response`, `decode`).
    expect(err).toMatchObject({ reason: 'unavailable' });
    expect(metrics.failures).toEqual([['cloud', 'unavailable']]);
  });

  it.each([400, 401, 403])('a %d from the token endpoint is invalid_credentials, not retried', async (status) => {
    const { fake, provider } = await setup(() => ({
      status,
      body: { error: 'access_denied', error_description: `Unauthorized client ${SECRET}` },
    }));
    const err = (await provider.token().catch((e: unknown) => e)) as Error;
    expect(err).toMatchObject({ reason: 'invalid_credentials' });
    expect(err.message).toMatch(
      new RegExp(
        `^Cribl.Cloud token request \\(POST http://127.0.0.1:\\d+/oauth/token\\) failed: HTTP ${status} ` +
          `\\(access_denied\\)$`,
      ),
    );
    expect(fake.seen).toHaveLength(1);
  });

  it('an unreachable token URL is reported as unreachable after the retries', async () => {
    const { fake, clock, provider } = await setup(() => granted('x'));
    await fake.close();
    const err = (await settleWithClock(clock, provider.token(), 10_000)) as Error;
    expect(err).toMatchObject({ reason: 'unreachable' });
    expect(err.message).toMatch(/failed: ECONNREFUSED$/);
  });

  it.each([
    [
      { clientSecret: undefined },
      '--cloud.client-id needs a secret: set CRIBL_CLIENT_SECRET or --cloud.client-secret-file',
    ],
    [{ clientSecretFile: '/s' }, 'CRIBL_CLIENT_SECRET and --cloud.client-secret-file are both set: use one of them'],
    [{ tokenUrl: 'nope' }, '--cloud.token-url is not a valid URL'],
  ])('rejects %j', async (over, message) => {
    await expect(setup(() => granted('x'), over)).rejects.toThrow(new AuthConfigError(message));
  });
});

describe('decodeTokenResponse', () => {
  const now = 1_000_000;
  it.each([
    ['expires_in', { access_token: 'a', expires_in: 60 }, { token: 'a', expiresAt: now + 60_000 }],
    ['expires_in as a string', { access_token: 'a', expires_in: '60' }, { token: 'a', expiresAt: now + 60_000 }],
    ['JWT exp without expires_in', { access_token: fakeJwt(2_000) }, { token: fakeJwt(2_000), expiresAt: 2_000_000 }],
    ['no expiry at all: one hour', { access_token: 'a' }, { token: 'a', expiresAt: now + 3_600_000 }],
    ['"Bearer " prefix stripped', { access_token: 'Bearer a', expires_in: 1 }, { token: 'a', expiresAt: now + 1_000 }],
  ])('%s', (_n, json, want) => {
    expect(decodeTokenResponse(json, now)).toEqual(want);
  });

  it.each([[{}], [{ access_token: '' }], [null], [{ access_token: 3 }]])('rejects %j', (json) => {
    expect(() => decodeTokenResponse(json, now)).toThrow('answered 200 without an access_token');
  });

  it('rejects a token with a line break inside, without quoting it', () => {
    expect(() => decodeTokenResponse({ access_token: 'abc\r\nX-Evil: 1' }, now)).toThrow(
      'token request answered an access_token that contains a control character (a line break inside the token?)',
    );
  });
});
