/**
 * Where a body is rendered: `inline` on the main thread (tests, fleets below WORKER_MIN_NODES) or in a `worker`
 * thread. Both take the leaders' items as they were when the build started, and ask the renderer (render.ts) to
 * render again only the node families that read something that changed since the last build: `Staleness` compares
 * the fields the families read (track.ts), node by node; a collector's facts the store did not write again are the
 * same object, and are not looked into.
 */
import type { Worker } from 'node:worker_threads';
import type { NodeItem, ScopeItem } from '../../collectors/collector.js';
import type { Moment } from '../../store/snapshot.js';
import { startWorker } from '../../util/worker.js';
import { yieldToLoop } from '../../util/yield.js';
import type { FamilySet } from './families.js';
import type { DeflatedPiece } from './gzip.js';
import { Renderer, type Finished, type RenderJob, type RenderLeader, type Rendered } from './render.js';
import { isPlain, WHOLE, type FamilyReads } from './track.js';

/** What to build: the management plane's facts (if any), and each leader's moment. */
export interface BuildRequest {
  readonly management?: ScopeItem;
  readonly leaders: readonly { readonly id: number; readonly targetPairs: string; readonly moment: Moment }[];
  /** Render everything anew, taking nothing from the last build (the benchmark's full render). */
  readonly fresh?: boolean;
}

/** Renders builds. */
export interface Builder {
  build(request: BuildRequest): Promise<Rendered>;
  close(): Promise<void>;
}

/**
 * What changed since the last build, per leader: which node families to render, and which collectors' facts they
 * need. A family is stale when something it read (track.ts: a collector's facts, one of their fields) changed on
 * some node, when it read the groups and one changed, when the nodes listed changed, and until a build said what
 * it reads.
 */
export class Staleness {
  /** Per node family: the collectors whose facts its samples may read (its own, and those it names). */
  readonly #needs: readonly (readonly string[])[];
  #reads: readonly (FamilyReads | undefined)[] = [];
  #seen = new Map<number, Moment>();
  #next = new Map<number, Moment>();

  constructor(needs: readonly (readonly string[])[]) {
    this.#needs = needs;
  }

  /** The leader's stale node families, and the collectors whose facts they read. */
  plan(id: number, moment: Moment, fresh: boolean): { stale: number[]; needs: Set<string> } {
    this.#next.set(id, moment);
    const prev = this.#seen.get(id);
    const changed = fresh || prev === undefined ? undefined : this.#changed(prev.nodes, moment.nodes);
    const groupsChanged = !sameArrays(prev?.groups ?? [], moment.groups);
    const stale: number[] = [];
    const needs = new Set<string>();
    this.#needs.forEach((collectors, f) => {
      const reads = this.#reads[f];
      if (changed && reads && !(reads.group && groupsChanged) && !reads.keys.some((k) => changed.has(k))) return;
      stale.push(f);
      for (const c of collectors) needs.add(c);
    });
    return { stale, needs };
  }

  /** The keys (FamilyReads) of what changed from `before` to `nodes`; undefined when the nodes listed did. */
  #changed(before: readonly NodeItem[], nodes: readonly NodeItem[]): Set<string> | undefined {
    if (before.length !== nodes.length) return undefined;
    // Per collector any family read: its keys, and the fields read (only those are compared).
    const watched = new Map<string, { any: string; fields: Map<string, string> }>();
    for (const key of this.#reads.flatMap((r) => r?.keys ?? [])) {
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

/** The job for a request, and per leader the collectors its stale families read. */
function plan(staleness: Staleness, request: BuildRequest): { job: RenderJob; needs: Set<string>[] } {
  const needs: Set<string>[] = [];
  const leaders: RenderLeader[] = request.leaders.map((l) => {
    const p = staleness.plan(l.id, l.moment, request.fresh === true);
    needs.push(p.needs);
    return { id: l.id, targetPairs: l.targetPairs, leader: l.moment.leader, groups: l.moment.groups, stale: p.stale };
  });
  return { job: { ...(request.management ? { management: request.management } : {}), leaders }, needs };
}

/** Renders on the calling thread (it yields every few ms). */
export function createInlineBuilder(families: FamilySet, reads: readonly (readonly string[])[]): Builder {
  const renderer = new Renderer(families, true);
  const staleness = new Staleness(reads);
  return {
    build: async (request) => {
      const { job } = plan(staleness, request);
      const build = renderer.begin(job);
      for (const [i, l] of request.leaders.entries()) {
        if (job.leaders[i]?.stale.length) void build.nodes(i, l.moment.nodes).catch(() => undefined);
      }
      const { texts, reads } = await build.finish();
      staleness.commit(reads);
      return texts;
    },
    close: () => Promise.resolve(),
  };
}

/** Main → worker: a build's job, its nodes in chunks (in body order), then its end. */
export type ToWorker =
  | { t: 'begin'; id: number; job: RenderJob }
  | { t: 'nodes'; id: number; leader: number; nodes: readonly NodeItem[] }
  | { t: 'end'; id: number };

/** Worker → main: a chunk was rendered (the main thread keeps only a few ahead), a build's result or failure. */
export type FromWorker =
  | { t: 'took'; id: number }
  | { t: 'built'; id: number; rendered: Finished }
  | { t: 'failed'; id: number; message: string };

/**
 * Nodes per message to the worker. Posting clones them on the main thread (V8's serializer, a few µs a node with the
 * facts a build needs): 1,000 a message keeps each post at a few ms of the event loop.
 */
const NODES_PER_MESSAGE = 1000;

/** Messages of nodes posted and not yet rendered by the worker (bounds the clones waiting in its queue). */
const MAX_MESSAGES_AHEAD = 4;

interface Job {
  resolve: (r: Finished) => void;
  reject: (e: Error) => void;
  took: number;
  wake: (() => void) | undefined;
}

/** A node with only the facts of the collectors given (what the worker needs of it). */
function pick(n: NodeItem, needs: ReadonlySet<string>): NodeItem {
  const facts: Record<string, unknown> = {};
  for (const c of needs) if (n.facts[c] !== undefined) facts[c] = n.facts[c];
  return { key: n.key, ident: n.ident, facts };
}

/** A Uint8Array that crossed a thread, as a Buffer over the same memory. */
function asBuffer(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

/**
 * Renders in a worker thread (body-worker.ts), which builds its families from the registry itself. The main thread's
 * share of a build is comparing facts and posting the nodes of stale families (in messages of NODES_PER_MESSAGE,
 * yielding between them); the compressed pieces come back in shared memory, without a copy.
 */
export function createWorkerBuilder(
  reads: readonly (readonly string[])[],
  onLost: (err: Error) => void,
): Builder & { worker(): Worker | undefined } {
  const staleness = new Staleness(reads);
  let worker: Worker | undefined;
  let nextId = 1;
  let closed = false;
  const jobs = new Map<number, Job>();

  const failAll = (err: Error): void => {
    for (const job of jobs.values()) {
      job.reject(err);
      job.wake?.();
    }
    jobs.clear();
  };
  const lose = (w: Worker, err: Error): void => {
    if (worker !== w) return;
    worker = undefined;
    staleness.reset();
    failAll(err);
    if (!closed) onLost(err);
  };
  const ensure = (): Worker => {
    if (worker) return worker;
    const w = startWorker(import.meta.url, 'body-worker');
    // The main thread's own handles keep the process alive; the worker never should.
    w.unref();
    w.on('message', (m: FromWorker) => {
      const job = jobs.get(m.id);
      if (!job) return;
      if (m.t === 'took') {
        job.took++;
        const wake = job.wake;
        job.wake = undefined;
        wake?.();
        return;
      }
      jobs.delete(m.id);
      if (m.t === 'failed') return job.reject(new Error(m.message));
      const toBuffers = (p: DeflatedPiece): DeflatedPiece => ({ ...p, deflated: asBuffer(p.deflated) });
      const { texts, reads } = m.rendered;
      job.resolve({ texts: texts.map((pieces) => pieces.map(toBuffers)), reads });
    });
    w.on('error', (err) => lose(w, err));
    w.on('exit', (code) => lose(w, new Error(`the body worker exited with code ${code}`)));
    worker = w;
    return w;
  };
  const post = (m: ToWorker): void => {
    if (!closed) ensure().postMessage(m);
  };

  /** Sends the nodes of build `id` in messages, a few ahead of the worker, then its end. */
  const send = async (id: number, job: Job, request: BuildRequest, stale: boolean[], needs: Set<string>[]) => {
    let sent = 0;
    for (const [leader, { moment }] of request.leaders.entries()) {
      if (!stale[leader]) continue;
      const need = needs[leader] ?? new Set<string>();
      for (let at = 0; at < moment.nodes.length; at += NODES_PER_MESSAGE) {
        while (jobs.has(id) && sent - job.took >= MAX_MESSAGES_AHEAD) {
          await new Promise<void>((resolve) => (job.wake = resolve));
        }
        if (!jobs.has(id)) return;
        const nodes = moment.nodes.slice(at, at + NODES_PER_MESSAGE).map((n) => pick(n, need));
        post({ t: 'nodes', id, leader, nodes });
        sent++;
        await yieldToLoop();
      }
    }
    if (jobs.has(id)) post({ t: 'end', id });
  };

  return {
    worker: () => worker,
    build: (request) =>
      new Promise<Rendered>((resolve, reject) => {
        if (closed) return reject(new Error('the body builder is closed'));
        const id = nextId++;
        const { job, needs } = plan(staleness, request);
        const entry: Job = {
          resolve: (r) => {
            staleness.commit(r.reads);
            resolve(r.texts);
          },
          reject,
          took: 0,
          wake: undefined,
        };
        jobs.set(id, entry);
        post({ t: 'begin', id, job });
        const stale = job.leaders.map((l) => l.stale.length > 0);
        send(id, entry, request, stale, needs).catch((err: unknown) => {
          jobs.delete(id);
          reject(err instanceof Error ? err : new Error(String(err)));
        });
      }),
    close: async () => {
      closed = true;
      const w = worker;
      worker = undefined;
      failAll(new Error('the body builder is closed'));
      if (w) await w.terminate();
    },
  };
}
