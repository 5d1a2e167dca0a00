/**
 * Basic auth of the web configuration (`basic_auth_users`): bcrypt hashes, as the exporter-toolkit has them.
 * bcrypt is slow on purpose, so a flood of wrong passwords must cost the flooder, never the probes or the valid
 * scrapes: comparisons run on worker threads (bcrypt-pool.ts) behind a bounded queue that answers 429 at once when
 * full, a client has few checks in flight and few failures per minute, a check whose client hung up is dropped
 * before it runs, and valid credentials are cached so a scrape costs one bcrypt per (user, hash, password) ever.
 */

import { createHash, randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '@cribl-exporter/api/clock';
import { createBcryptPool, type BcryptPool } from './bcrypt-pool.js';

/** The limits of basic auth (docs/runbook.md, "Basic auth limits"). */
export interface BasicAuthLimits {
  /** Checks waiting for a worker, beyond those running; more are answered 429 at once. */
  maxQueue: number;
  /** Checks of one client (remote address) waiting or running at once; more are answered 429 at once. */
  maxPerClient: number;
  /** Wrong credentials one client may send in a burst… */
  failureBurst: number;
  /** …and one more per this many ms; beyond, its checks are answered 429 without running bcrypt. */
  failureRefillMs: number;
  /** Valid credentials remembered (as digests). */
  maxCacheEntries: number;
  /** Clients whose failures are remembered (the oldest are forgotten first). */
  maxClients: number;
}

export const DEFAULT_BASIC_AUTH_LIMITS: BasicAuthLimits = {
  maxQueue: 32,
  maxPerClient: 4,
  failureBurst: 10,
  failureRefillMs: 6_000,
  maxCacheEntries: 1024,
  maxClients: 4096,
};

/** How a check ended: `ok`, `denied` (401), `limited` (429 with Retry-After) or `gone` (the client left first). */
export type AuthOutcome =
  | { readonly result: 'ok' }
  | { readonly result: 'denied' }
  | { readonly result: 'limited'; readonly retryAfterSeconds: number }
  | { readonly result: 'gone' };

/** One request to check. */
export interface AuthRequest {
  authorization: string | undefined;
  /** Who is asking, for the per-client limits: the remote address. */
  client: string;
  /** Aborted when the client's connection closes: a check still waiting is dropped. */
  signal?: AbortSignal;
}

/** Checks HTTP basic auth against bcrypt hashes. */
export interface BasicAuth {
  check(users: ReadonlyMap<string, string>, request: AuthRequest): Promise<AuthOutcome>;
  /** Stops the workers. */
  close(): Promise<void>;
}

/** Options of createBasicAuth. */
export interface BasicAuthOptions extends Partial<BasicAuthLimits> {
  clock?: Clock;
  /** Where comparisons run. @default worker threads, started at the first check */
  pool?: Pick<BcryptPool, 'size' | 'compare' | 'close'>;
}

const OK: AuthOutcome = { result: 'ok' };
const DENIED: AuthOutcome = { result: 'denied' };
const GONE: AuthOutcome = { result: 'gone' };
const limited = (ms: number): AuthOutcome => ({
  result: 'limited',
  retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)),
});

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The cost of a bcrypt hash (`$2b$12$…` → 12, `$2$10$…` → 10); the web config admits only well-formed hashes. */
export function bcryptCost(hash: string): number {
  return Number(/^\$2[aby]?\$(\d\d)\$/.exec(hash)?.[1] ?? 10);
}

/**
 * A hash of `cost` that no password matches: a random salt and digest. Comparing against it takes as long as
 * against a real hash of that cost, so an unknown user costs as much time as a known one.
 */
function decoyHash(cost: number): string {
  const chars = Array.from(randomBytes(53), (b) => BCRYPT_ALPHABET[b % 64]).join('');
  return `$2b$${String(cost).padStart(2, '0')}$${chars}`;
}

interface Job {
  password: string;
  hash: string;
  signal: AbortSignal | undefined;
  resolve: (ok: boolean | 'gone') => void;
}

interface Bucket {
  tokens: number;
  at: number;
}

type Pool = Pick<BcryptPool, 'size' | 'compare' | 'close'>;

/**
 * The comparisons waiting for a worker and those running, at most one per worker; a waiting one whose client hung
 * up is dropped. Keeps the time one comparison takes, for Retry-After.
 */
class CompareQueue {
  readonly #queue: Job[] = [];
  #running = 0;
  #pool: Pool | undefined;
  readonly #clock: Clock;
  /** Duration of one comparison, for Retry-After; updated as comparisons run. */
  averageMs = 100;

  constructor(pool: Pool | undefined, clock: Clock) {
    this.#pool = pool;
    this.#clock = clock;
  }

  /** Comparisons waiting for a worker. */
  get length(): number {
    return this.#queue.length;
  }

  /** The pool; its worker threads start at the first call. */
  workers(): Pool {
    return (this.#pool ??= createBcryptPool());
  }

  compare(password: string, hash: string, signal: AbortSignal | undefined): Promise<boolean | 'gone'> {
    return new Promise((resolve) => {
      const job: Job = { password, hash, signal, resolve };
      signal?.addEventListener(
        'abort',
        () => {
          const i = this.#queue.indexOf(job);
          if (i >= 0) {
            this.#queue.splice(i, 1);
            resolve('gone');
          }
        },
        { once: true },
      );
      this.#queue.push(job);
      this.#pump();
    });
  }

  async close(): Promise<void> {
    for (const job of this.#queue.splice(0)) job.resolve('gone');
    await this.#pool?.close();
  }

  #pump(): void {
    const p = this.workers();
    while (this.#running < p.size && this.#queue.length > 0) {
      const job = this.#queue.shift()!;
      if (job.signal?.aborted) {
        job.resolve('gone');
        continue;
      }
      this.#running++;
      const started = this.#clock.now();
      p.compare(job.password, job.hash).then(
        (ok) => this.#finish(job, ok, started),
        () => this.#finish(job, false, started),
      );
    }
  }

  #finish(job: Job, ok: boolean, started: number): void {
    this.#running--;
    this.averageMs = 0.8 * this.averageMs + 0.2 * Math.max(1, this.#clock.now() - started);
    job.resolve(ok);
    this.#pump();
  }
}

/** Each client's allowance of wrong credentials: a token bucket, the least recently seen clients forgotten first. */
class FailureBuckets {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    readonly limits: Pick<BasicAuthLimits, 'failureBurst' | 'failureRefillMs' | 'maxClients'>,
    readonly clock: Clock,
  ) {}

  /** The client's bucket, refilled to now. */
  of(client: string): Bucket {
    const { limits } = this;
    const now = this.clock.now();
    let b = this.#buckets.get(client);
    if (b) {
      this.#buckets.delete(client);
      b.tokens = Math.min(limits.failureBurst, b.tokens + (now - b.at) / limits.failureRefillMs);
      b.at = now;
    } else {
      b = { tokens: limits.failureBurst, at: now };
      if (this.#buckets.size >= limits.maxClients) this.#buckets.delete(this.#buckets.keys().next().value!);
    }
    // Re-inserted: the map's order is least recently seen first.
    this.#buckets.set(client, b);
    return b;
  }
}

/** The user and password of an `Authorization: Basic …` header, if it has them. */
function credentialsOf(authorization: string | undefined): { user: string; password: string } | undefined {
  const m = /^basic\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Creates a basic-auth checker; its worker threads start at the first check that needs bcrypt. */
export function createBasicAuth(options: BasicAuthOptions = {}): BasicAuth {
  const limits: BasicAuthLimits = { ...DEFAULT_BASIC_AUTH_LIMITS, ...options };
  const clock = options.clock ?? systemClock;
  const cache = new Map<string, true>();
  const buckets = new FailureBuckets(limits, clock);
  const perClient = new Map<string, number>();
  const decoys = new Map<number, string>();
  const queue = new CompareQueue(options.pool, clock);

  return {
    async check(users, request) {
      const cred = credentialsOf(request.authorization);
      if (!cred) return DENIED;
      const { user, password } = cred;
      const known = users.get(user);
      // Keyed by a digest so that the cache never holds a password in clear.
      const key = createHash('sha256')
        .update(`${user}\u0000${known ?? ''}\u0000${password}`)
        .digest('base64');
      if (known !== undefined && cache.has(key)) return OK;

      const { client } = request;
      const bucket = buckets.of(client);
      if (bucket.tokens < 1) return limited((1 - bucket.tokens) * limits.failureRefillMs);
      const mine = perClient.get(client) ?? 0;
      if (mine >= limits.maxPerClient) return limited(queue.averageMs);
      if (queue.length >= limits.maxQueue) return limited((queue.length / queue.workers().size) * queue.averageMs);
      if (request.signal?.aborted) return GONE;

      const maxCost = Math.max(...[...users.values()].map(bcryptCost));
      let hash = known;
      if (hash === undefined) {
        hash = decoys.get(maxCost) ?? decoyHash(maxCost);
        decoys.set(maxCost, hash);
      }
      perClient.set(client, mine + 1);
      const started = clock.now();
      let ok: boolean | 'gone';
      try {
        ok = await queue.compare(password, hash, request.signal);
      } finally {
        const left = (perClient.get(client) ?? 1) - 1;
        if (left > 0) perClient.set(client, left);
        else perClient.delete(client);
      }
      if (ok === 'gone') return GONE;
      if (ok && known !== undefined) {
        if (cache.size >= limits.maxCacheEntries) cache.delete(cache.keys().next().value!);
        cache.set(key, true);
        return OK;
      }
      buckets.of(client).tokens -= 1;
      // Every failure takes as long as a comparison at the highest cost configured: bcrypt's time doubles per
      // cost step, so a cheaper hash's failure waits out the difference. Which users exist, and with which cost,
      // cannot be told from the time a 401 takes.
      const elapsed = clock.now() - started;
      const pad = elapsed * (2 ** (maxCost - bcryptCost(hash)) - 1);
      if (pad > 0) await clock.sleep(pad);
      return DENIED;
    },
    close: () => queue.close(),
  };
}
