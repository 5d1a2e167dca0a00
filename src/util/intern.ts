/**
 * Sharing of equal values across the nodes of a fleet. A listing or metadata answer decoded by JSON.parse and zod
 * holds its own copy of every string (V8 internalizes only very short string values), so 50,000 nodes of the same
 * group, version, platform or OS hold 50,000 copies of each; kept in the store between polls, they add up. An
 * interner hands out one instance per value instead.
 *
 * Bounded: the values come from a remote API, so a table that only grew could be made to hold anything. When it is
 * full it starts over (values already handed out stay valid; only the sharing of later ones starts afresh).
 */

/** Strings longer than this are not interned (label values worth sharing are short). */
export const MAX_INTERNED_LENGTH = 128;

/** A bounded table of shared values by key. */
export class Interner<T> {
  readonly #table = new Map<string, T>();
  readonly #capacity: number;

  constructor(capacity = 4096) {
    this.#capacity = capacity;
  }

  /** Entries held. */
  get size(): number {
    return this.#table.size;
  }

  /** The value held for `key`, or `make()`'s result, held from now on. */
  get(key: string, make: () => T): T {
    const held = this.#table.get(key);
    if (held !== undefined) return held;
    const value = make();
    if (this.#table.size >= this.#capacity) this.#table.clear();
    this.#table.set(key, value);
    return value;
  }
}

/**
 * Shared strings. Its own map rather than an Interner<string>: the store interns a few strings on every poll
 * (status, failure reason), and the closure an Interner needs per call was 2 % of the main thread's allocations
 * at 50,000 nodes (bench/mem-probe.mjs --alloc-profile).
 */
export class StringInterner {
  readonly #table = new Map<string, string>();
  readonly #capacity: number;

  constructor(capacity = 4096) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#table.size;
  }

  /** One shared instance of `s` (s itself when it is not a short string). */
  intern<S extends string | undefined>(s: S): S {
    if (typeof s !== 'string' || s.length > MAX_INTERNED_LENGTH) return s;
    const held = this.#table.get(s);
    if (held !== undefined) return held as S;
    if (this.#table.size >= this.#capacity) this.#table.clear();
    this.#table.set(s, s);
    return s;
  }
}
