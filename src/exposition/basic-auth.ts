/** Basic auth of the web configuration (`basic_auth_users`): bcrypt hashes, as the exporter-toolkit has them. */

import { createHash } from 'node:crypto';
import bcrypt from 'bcryptjs';

// A bcrypt hash of a throwaway password: unknown users cost as much time as known ones.
const DECOY_HASH = '$2b$10$oQHOHPW0qVQ6NuuuBqdbguikS2n8v4YVQe1PfeOaMNmk6pNswQetK';

/** Checks HTTP basic auth against bcrypt hashes, running bcrypt once per distinct credential. */
export interface BasicAuth {
  /** True when `authorization` carries a user of `users` with the right password. */
  check(users: ReadonlyMap<string, string>, authorization: string | undefined): Promise<boolean>;
}

/** Options of createBasicAuth. */
export interface BasicAuthOptions {
  /** @default 1024 */
  maxCacheEntries?: number;
  /** bcrypt comparison; injectable so tests can count calls. @default bcryptjs compare */
  compare?: (password: string, hash: string) => Promise<boolean>;
}

/** Creates a basic-auth checker with a bounded cache of verification outcomes. */
export function createBasicAuth(options: BasicAuthOptions = {}): BasicAuth {
  const maxCacheEntries = options.maxCacheEntries ?? 1024;
  const compare = options.compare ?? ((password: string, hash: string) => bcrypt.compare(password, hash));
  const cache = new Map<string, boolean>();
  // bcrypt is CPU-heavy: run one comparison at a time.
  let queue: Promise<unknown> = Promise.resolve();

  return {
    async check(users, authorization) {
      const m = /^basic\s+(\S+)\s*$/i.exec(authorization ?? '');
      if (!m?.[1]) return false;
      const decoded = Buffer.from(m[1], 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return false;
      const user = decoded.slice(0, colon);
      const password = decoded.slice(colon + 1);
      const hash = users.get(user);
      // Keyed by a digest so that the cache never holds a password in clear.
      const key = createHash('sha256')
        .update(`${user}\u0000${hash ?? ''}\u0000${password}`)
        .digest('base64');
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      const run = queue.then(() => compare(password, hash ?? DECOY_HASH));
      queue = run.catch(() => false);
      const ok = (await run.catch(() => false)) && hash !== undefined;
      if (cache.size >= maxCacheEntries) {
        const oldest = cache.keys().next();
        if (!oldest.done) cache.delete(oldest.value);
      }
      cache.set(key, ok);
      return ok;
    },
  };
}
