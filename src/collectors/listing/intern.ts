/**
 * One copy of each of a listing's repeated strings (a node's group, Cribl version, platform, architecture, config
 * version, status): JSON.parse makes a new string for every entry of every page, and at 250,000 nodes those copies
 * were about 210 bytes per node of the 1,240 the exporter keeps (bench/memory-per-node.mjs). Bounded: past `max`
 * distinct values it starts afresh, so that config versions that come and go never pile up.
 */
export class Interner {
  readonly #values = new Map<string, string>();
  readonly #max: number;

  constructor(max = 4096) {
    this.#max = max;
  }

  /** The one copy of `s` (undefined stays undefined). */
  of<S extends string | undefined>(s: S): S {
    if (s === undefined) return s;
    const known = this.#values.get(s);
    if (known !== undefined) return known as S;
    if (this.#values.size >= this.#max) this.#values.clear();
    this.#values.set(s, s);
    return s;
  }
}
