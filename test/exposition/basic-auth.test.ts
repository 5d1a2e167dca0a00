import bcrypt from 'bcryptjs';
import { afterAll, describe, expect, it } from 'vitest';
import { bcryptCost, createBasicAuth, type AuthOutcome } from '../../src/exposition/basic-auth.js';
import { createBcryptPool, defaultPoolSize } from '../../src/exposition/bcrypt-pool.js';
import { FakeClock } from '../helpers/fake-clock.js';

// Cost 4 and 6 keep the tests fast; what matters is that they differ.
const ALICE_HASH = bcrypt.hashSync('alice-pw', 4);
const BOB_HASH = bcrypt.hashSync('bob-pw', 6);
const users = new Map([
  ['alice', ALICE_HASH],
  ['bob', BOB_HASH],
]);

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** A pool whose comparisons end when the test says, with the right answer. */
function manualPool(size = 1) {
  const calls: { password: string; hash: string; finish: () => void }[] = [];
  return {
    calls,
    pool: {
      size,
      compare: (password: string, hash: string) =>
        new Promise<boolean>((resolve) => {
          calls.push({ password, hash, finish: () => resolve(bcrypt.compareSync(password, hash)) });
        }),
      close: () => Promise.resolve(),
    },
  };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('createBasicAuth on worker threads', () => {
  const pool = createBcryptPool(1);
  const auth = createBasicAuth({ pool });
  afterAll(() => auth.close());

  it.each([
    ['right password', basic('alice', 'alice-pw'), 'ok'],
    ['right password, higher cost', basic('bob', 'bob-pw'), 'ok'],
    ['wrong password', basic('alice', 'nope'), 'denied'],
    ['unknown user', basic('mallory', 'alice-pw'), 'denied'],
    ['no header', undefined, 'denied'],
    ['bearer', 'Bearer abc', 'denied'],
    ['no colon', `Basic ${Buffer.from('alice').toString('base64')}`, 'denied'],
    ['lower-case scheme', basic('alice', 'alice-pw').replace('Basic', 'basic'), 'ok'],
  ])('%s', async (_name, authorization, expected) => {
    const out = await auth.check(users, { authorization, client: `c-${_name}` });
    expect(out.result).toBe(expected);
  });

  it('reads the cost of every bcrypt variant', () => {
    expect(['$2b$12$x', '$2a$04$x', '$2y$31$x', '$2$10$x'].map(bcryptCost)).toEqual([12, 4, 31, 10]);
  });

  it('uses all but one core, at least one and at most four', () => {
    expect([1, 2, 3, 8, 64].map(defaultPoolSize)).toEqual([1, 1, 2, 4, 4]);
  });
});

describe('createBasicAuth: cost', () => {
  it('runs bcrypt once per valid (user, hash, password); a changed hash is verified again', async () => {
    const { pool, calls } = manualPool();
    const auth = createBasicAuth({ pool });
    const check = (u: ReadonlyMap<string, string>) =>
      auth.check(u, { authorization: basic('alice', 'alice-pw'), client: 'a' });
    const first = check(users);
    await flush();
    calls[0]!.finish();
    expect((await first).result).toBe('ok');
    for (let i = 0; i < 5; i++) expect((await check(users)).result).toBe('ok');
    expect(calls).toHaveLength(1);
    const other = check(new Map([['alice', bcrypt.hashSync('other', 4)]]));
    await flush();
    calls[1]!.finish();
    expect((await other).result).toBe('denied');
  });

  it('an unknown user is compared against a decoy of the highest configured cost', async () => {
    const { pool, calls } = manualPool();
    const auth = createBasicAuth({ pool });
    const out = auth.check(users, { authorization: basic('mallory', 'x'), client: 'a' });
    await flush();
    expect(calls).toHaveLength(1);
    expect(bcryptCost(calls[0]!.hash)).toBe(6);
    expect(calls[0]!.hash).not.toBe(BOB_HASH);
    calls[0]!.finish();
    expect((await out).result).toBe('denied');
  });

  it('a failure with a cheaper hash waits out the time of the highest cost (no user enumeration)', async () => {
    const clock = new FakeClock();
    const { pool, calls } = manualPool();
    const auth = createBasicAuth({ pool, clock });
    let done: AuthOutcome | undefined;
    void auth.check(users, { authorization: basic('alice', 'wrong'), client: 'a' }).then((o) => (done = o));
    await flush();
    await clock.advance(10);
    calls[0]!.finish();
    await flush();
    // Cost 4 took 10 ms: cost 6 takes 4× as long, so 30 ms more.
    await clock.advance(29);
    expect(done).toBeUndefined();
    await clock.advance(1);
    expect(done?.result).toBe('denied');
  });

  it('a failure at the highest cost and a success are answered at once', async () => {
    const clock = new FakeClock();
    const { pool, calls } = manualPool();
    const auth = createBasicAuth({ pool, clock });
    const wrong = auth.check(users, { authorization: basic('bob', 'wrong'), client: 'a' });
    await flush();
    await clock.advance(40);
    calls[0]!.finish();
    expect((await wrong).result).toBe('denied');
    const right = auth.check(users, { authorization: basic('alice', 'alice-pw'), client: 'a' });
    await flush();
    calls[1]!.finish();
    expect((await right).result).toBe('ok');
    expect(clock.pending).toBe(0);
  });
});

describe('createBasicAuth: limits', () => {
  it('a full queue answers 429 at once, with a Retry-After of at least a second', async () => {
    const { pool, calls } = manualPool(1);
    const auth = createBasicAuth({ pool, maxQueue: 2 });
    const waiting = [0, 1, 2].map((i) =>
      auth.check(users, { authorization: basic('alice', `x${i}`), client: `c${i}` }),
    );
    await flush();
    expect(calls).toHaveLength(1);
    const full = await auth.check(users, { authorization: basic('alice', 'x3'), client: 'c3' });
    expect(full).toEqual({ result: 'limited', retryAfterSeconds: expect.any(Number) as number });
    expect((full as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 3; i++) {
      calls[i]!.finish();
      await flush();
    }
    expect((await Promise.all(waiting)).map((o) => o.result)).toEqual(['denied', 'denied', 'denied']);
  });

  it('one client has at most maxPerClient checks in flight; others still get theirs', async () => {
    const { pool, calls } = manualPool(1);
    const auth = createBasicAuth({ pool, maxPerClient: 2 });
    const a = [0, 1].map((i) => auth.check(users, { authorization: basic('alice', `x${i}`), client: 'flood' }));
    expect((await auth.check(users, { authorization: basic('alice', 'x2'), client: 'flood' })).result).toBe('limited');
    const b = auth.check(users, { authorization: basic('alice', 'alice-pw'), client: 'scraper' });
    await flush();
    for (let i = 0; i < 3; i++) {
      calls[i]!.finish();
      await flush();
    }
    expect((await b).result).toBe('ok');
    await Promise.all(a);
  });

  it('drops a waiting check whose client went away: bcrypt never runs for it', async () => {
    const { pool, calls } = manualPool(1);
    const auth = createBasicAuth({ pool });
    const running = auth.check(users, { authorization: basic('alice', 'x'), client: 'a' });
    const ac = new AbortController();
    const waiting = auth.check(users, { authorization: basic('alice', 'y'), client: 'b', signal: ac.signal });
    await flush();
    ac.abort();
    expect((await waiting).result).toBe('gone');
    calls[0]!.finish();
    await running;
    await flush();
    expect(calls).toHaveLength(1);
  });

  it('after failureBurst wrong credentials a client gets 429 without bcrypt until the bucket refills', async () => {
    const clock = new FakeClock();
    const { pool, calls } = manualPool(1);
    const auth = createBasicAuth({ pool, clock, failureBurst: 3, failureRefillMs: 6_000 });
    const wrong = (client: string) => auth.check(users, { authorization: basic('bob', 'wrong'), client });
    for (let i = 0; i < 3; i++) {
      const p = wrong('mallory');
      await flush();
      calls[i]!.finish();
      expect((await p).result).toBe('denied');
    }
    expect(await wrong('mallory')).toEqual({ result: 'limited', retryAfterSeconds: 6 });
    expect(calls).toHaveLength(3);
    // Another client is not affected, and the flooder's valid cached credentials still work.
    const other = wrong('someone-else');
    await flush();
    calls[3]!.finish();
    expect((await other).result).toBe('denied');
    await clock.advance(6_000);
    const again = wrong('mallory');
    await flush();
    expect(calls).toHaveLength(5);
    calls[4]!.finish();
    expect((await again).result).toBe('denied');
  });

  it('valid credentials already verified pass even when the client is over its failure limit', async () => {
    const { pool, calls } = manualPool(1);
    const auth = createBasicAuth({ pool, failureBurst: 1 });
    const good = auth.check(users, { authorization: basic('alice', 'alice-pw'), client: 'a' });
    await flush();
    calls[0]!.finish();
    expect((await good).result).toBe('ok');
    const bad = auth.check(users, { authorization: basic('alice', 'nope'), client: 'a' });
    await flush();
    calls[1]!.finish();
    await bad;
    expect((await auth.check(users, { authorization: basic('alice', 'nope'), client: 'a' })).result).toBe('limited');
    expect((await auth.check(users, { authorization: basic('alice', 'alice-pw'), client: 'a' })).result).toBe('ok');
  });
});
