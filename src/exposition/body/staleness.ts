/**
 * What a build renders anew: the node families that read something that changed since the last build. `Staleness`
 * compares the fields the families read (track.ts), node by node; a collector's facts the store did not write again
 * are the same object, and are not looked into. Both builders (builder.ts, worker-builder.ts) ask it.
 */
import type { NodeItem, ScopeItem } from '../../collectors/collector.js';
import { detailFacts, exportedAnywhere, sameLevels } from '../../collectors/detail.js';
import type { Moment } from '../../store/snapshot.js';
import type { RenderJob, RenderLeader } from './render.js';
import { isPlain, WHOLE, type FamilyReads } from './track.js';

/** What to build: the management plane's facts (if any), and each leader's moment. */
export interface BuildRequest {
  readonly management?: ScopeItem;
  readonly leaders: readonly { readonly id: number; readonly targetPairs: string; readonly moment: Moment }[];
  /** Render everything anew, taking nothing from the last build (the benchmark's full render). */
  readonly fresh?: boolean;
}

/**
 * What changed since the last build, per leader: which node families to render, and which collectors' facts they
 * need. A family is stale when something it read (track.ts: a collector's facts, one of their fields) changed on
 * some node, when it read the groups and one changed, when the nodes listed changed, when the leader's node
 * detail levels changed (every node family), and until a build said what it reads. A family that no level in force
 * exports is never stale: its text is none (render.ts), and its nodes are not looked at.
 */
export class Staleness {
  /** Per node family: the collectors whose facts its samples may read (its own, and those it names). */
  readonly #needs: readonly (readonly string[])[];
  /** Per node family: its node detail tag (NodeFamily.detail); without them, every family counts as exported. */
  readonly #tags: readonly ('basic' | undefined)[] | undefined;
  #reads: readonly (FamilyReads | undefined)[] = [];
  #seen = new Map<number, Moment>();
  #next = new Map<number, Moment>();

  constructor(needs: readonly (readonly string[])[], tags?: readonly ('basic' | undefined)[]) {
    this.#needs = needs;
    this.#tags = tags;
  }

  /** The leader's stale node families, and the collectors whose facts they read. */
  plan(id: number, moment: Moment, fresh: boolean): { stale: number[]; needs: Set<string> } {
    this.#next.set(id, moment);
    const prev = this.#seen.get(id);
    const levels = detailFacts.of(moment.leader)?.levels;
    // The families some level in force exports: only what they read is compared (none at minimal).
    const alive = this.#needs.map((_, f) => !this.#tags || exportedAnywhere(levels, this.#tags[f]));
    const stale: number[] = [];
    const needs = new Set<string>();
    if (!alive.includes(true)) return { stale, needs };
    const anew = fresh || prev === undefined || !sameLevels(detailFacts.of(prev.leader)?.levels, levels);
    const changed = anew ? undefined : this.#changed(prev.nodes, moment.nodes, alive);
    const groupsChanged = !sameArrays(prev?.groups ?? [], moment.groups);
    this.#needs.forEach((collectors, f) => {
      const reads = this.#reads[f];
      if (!alive[f]) return;
      if (changed && reads && !(reads.group && groupsChanged) && !reads.keys.some((k) => changed.has(k))) return;
      stale.push(f);
      for (const c of collectors) needs.add(c);
    });
    return { stale, needs };
  }

  /**
   * The keys (FamilyReads) of what the `alive` families read that changed from `before` to `nodes`; undefined when the
   * nodes listed did.
   */
  #changed(
    before: readonly NodeItem[],
    nodes: readonly NodeItem[],
    alive: readonly boolean[],
  ): Set<string> | undefined {
    if (before.length !== nodes.length) return undefined;
    // Per collector any family read: its keys, and the fields read (only those are compared).
    const watched = new Map<string, { any: string; fields: Map<string, string> }>();
    for (const key of this.#reads.flatMap((r, f) => (alive[f] ? (r?.keys ?? []) : []))) {
      const dot = key.indexOf('.');
      const [c, k] = dot < 0 ? [key, undefined] : [key.slice(0, dot), key.slice(dot + 1)];
      const w = watched.get(c) ?? { any: `${c}.${WHOLE}`, fields: new Map() };
      watched.set(c, w);
      if (k !== undefined && k !== WHOLE) w.fields.set(k, key);
    }
    const changed = new Set<string>();
    for (let i = 0; i < nodes.length; i++) {
      const a = before[i] as NodeItem;
      const b = nodes[i] as NodeItem;
      if (a === b) continue;
      if (a.ident !== b.ident) return undefined;
      for (const [c, { any, fields }] of watched) {
        const fa = a.facts[c];
        const fb = b.facts[c];
        if (fa === fb) continue;
        changed.add(any);
        if (!isPlain(fa) || !isPlain(fb)) changed.add(c);
        else for (const [k, key] of fields) if (fa[k] !== fb[k]) changed.add(key);
      }
    }
    return changed;
  }

  /** The build planned last succeeded: what it saw is what the next one compares with, by what its families read. */
  commit(reads: readonly FamilyReads[]): void {
    this.#reads = reads;
    this.#seen = this.#next;
    this.#next = new Map();
  }

  /** The renderer lost what it kept (a new worker): everything is stale. */
  reset(): void {
    this.#seen = new Map();
    this.#reads = [];
  }
}

function sameArrays(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The render job for a request, and per leader the collectors its stale families read. */
export function renderJob(staleness: Staleness, request: BuildRequest): { job: RenderJob; needs: Set<string>[] } {
  const needs: Set<string>[] = [];
  const leaders: RenderLeader[] = request.leaders.map((l) => {
    const p = staleness.plan(l.id, l.moment, request.fresh === true);
    needs.push(p.needs);
    const levels = detailFacts.of(l.moment.leader)?.levels;
    const { leader, groups } = l.moment;
    return { id: l.id, targetPairs: l.targetPairs, leader, groups, stale: p.stale, ...(levels ? { levels } : {}) };
  });
  return { job: { ...(request.management ? { management: request.management } : {}), leaders }, needs };
}
