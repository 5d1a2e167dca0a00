/**
 * Sharing of equal strings across the nodes of a fleet. A listing decoded by JSON.parse and zod holds its own copy of
 * every string (V8 internalizes only very short string values), so 50,000 nodes of the same group, version or
 * platform hold 50,000 copies of each; kept in the store between listings, they add up. An interner hands out one
 * instance per value instead.
 *
 * Bounded: the values come from a remote API, so a table that only grew could be made to hold anything. When it is
 * full it starts over (values already handed out stay valid; only the sharing of later ones starts afresh).
 */

/** Strings longer than this are not interned (label values worth sharing are short). */
export const MAX_INTERNED_LENGTH = 128;

/** A bounded table of shared strings. */
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
