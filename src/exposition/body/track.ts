/**
 * What a node family reads of the nodes it renders, learnt while it renders them: per collector, the fields of the
 * node's facts its samples read, and whether they read the node's group. A family's text is a function of what it
 * read, so the builder (staleness.ts) renders it again only when one of those changed: a new heartbeat
 * time re-renders the heartbeat family, not the fifteen others of the listing. No family declares any of it. What it
 * saves in steady CPU and memory, and what it costs the full render (which reads through the trackers): BENCHMARKS.md,
 * "Mechanisms".
 *
 * What a family read is kept as the union of all its renders (a field read once stays read): a field its samples
 * read only on some path (a failure's reason while the node is down) is then watched from the first time a path
 * read it, and before that the fields that chose the path were.
 */
import type { GroupItem, NodeContext, NodeItem } from '../../collectors/collector.js';

/**
 * What a family read: `keys`, per collector read, its name (its facts, there or not), `name.field` for each field
 * read, or `name.*` for the facts as a whole (read otherwise than field by field); `group`: the node's group.
 */
export interface FamilyReads {
  readonly keys: readonly string[];
  readonly group: boolean;
}

/** The field of a key (FamilyReads) that stands for the facts as a whole. */
export const WHOLE = '*';

/** Facts read field by field: a plain object (its fields are compared one by one); anything else is compared whole. */
export function isPlain(v: unknown): v is Readonly<Record<string, unknown>> {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** One collector's facts as a family reads them: the fields read so far, and the facts of the node being rendered. */
interface Watch {
  fields: Set<string> | true;
  facts: Readonly<Record<string, unknown>>;
  readonly proxy: object;
}

/** Records one family's reads: `lens` stands for the node being rendered (`at`), `context` for its context. */
export class ReadTracker {
  readonly lens: NodeItem;
  readonly context: NodeContext;
  #node: NodeItem | undefined;
  #group: GroupItem | undefined;
  #readsGroup = false;
  /** Per collector read. */
  readonly #watches = new Map<string, Watch>();

  constructor() {
    const node = (): NodeItem => this.#node as NodeItem;
    // The facts record, read by collector name (factsKey.of): an accessor per name, made at its first read by the
    // prototype, a proxy (a proxy's trap on every read cost about a third more of a full render's tracking).
    const facts = Object.create(
      new Proxy(
        {},
        {
          get: (_t, c, receiver: object) => {
            if (typeof c !== 'string') return undefined;
            Object.defineProperty(receiver, c, { get: () => this.#facts(c), enumerable: true });
            return this.#facts(c);
          },
        },
      ),
    ) as Record<string, unknown>;
    const context = { group: (): GroupItem | undefined => ((this.#readsGroup = true), this.#group) };
    this.lens = {
      get key() {
        return node().key;
      },
      get ident() {
        return node().ident;
      },
      facts,
    };
    this.context = {
      get group() {
        return context.group();
      },
    };
  }

  /** The node (and its context) the next sample reads through `lens` and `context`. */
  at(node: NodeItem, group: GroupItem | undefined): void {
    this.#node = node;
    this.#group = group;
  }

  /** What the family read in all its renders so far. */
  reads(): FamilyReads {
    const keys = [...this.#watches].flatMap(([c, w]) => [
      c,
      ...[...(w.fields === true ? [WHOLE] : w.fields)].map((k) => `${c}.${k}`),
    ]);
    return { keys, group: this.#readsGroup };
  }

  #watch(c: string): Watch {
    let w = this.#watches.get(c);
    if (w) return w;
    const watch: Watch = {
      fields: new Set(),
      facts: {},
      proxy: new Proxy(
        {},
        {
          get: (_t, k) => (read(watch, k), watch.facts[k as string]),
          has: (_t, k) => (read(watch, k), k in watch.facts),
          ownKeys: () => ((watch.fields = true), Reflect.ownKeys(watch.facts)),
          getOwnPropertyDescriptor: (_t, k) => ((watch.fields = true), configurable(watch.facts, k)),
        },
      ),
    };
    this.#watches.set(c, (w = watch));
    return w;
  }

  #facts(c: string): unknown {
    const v = (this.#node as NodeItem).facts[c];
    const w = this.#watch(c);
    if (w.fields === true || v === undefined) return v;
    if (!isPlain(v)) {
      w.fields = true;
      return v;
    }
    w.facts = v;
    return w.proxy;
  }
}

/** Records a read of field `k` (a symbol's: of the facts as a whole). */
function read(watch: Watch, k: string | symbol): void {
  if (watch.fields === true) return;
  if (typeof k === 'string') watch.fields.add(k);
  else watch.fields = true;
}

/** An own property's descriptor, made configurable (a proxy over an empty target may not report it otherwise). */
function configurable(o: object, k: string | symbol): PropertyDescriptor | undefined {
  const d = Reflect.getOwnPropertyDescriptor(o, k);
  return d && { ...d, configurable: true };
}
