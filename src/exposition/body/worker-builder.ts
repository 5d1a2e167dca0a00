/**
 * The worker builder, the main thread's side: it compares facts (staleness.ts) and posts the nodes of the stale
 * families to the body worker (body-worker.ts), which renders and compresses them; the compressed pieces come back in
 * shared memory, without a copy. The messages between the two threads are defined here.
 */
import type { Worker } from 'node:worker_threads';
import type { NodeItem } from '../../collectors/collector.js';
import { startWorker } from '../../util/worker.js';
import { yieldToLoop } from '../../util/yield.js';
import type { Builder } from './builder.js';
import type { DeflatedPiece } from './gzip.js';
import type { Finished, RenderJob, Rendered } from './render.js';
import { renderJob, Staleness, type BuildRequest } from './staleness.js';

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
 * yielding between them). A worker that stops fails the builds in flight and is reported to `onLost`; the next
 * build starts a new one.
 */
export class WorkerBuilder implements Builder {
  readonly #staleness: Staleness;
  readonly #onLost: (err: Error) => void;
  readonly #jobs = new Map<number, Job>();
  #worker: Worker | undefined;
  #nextId = 1;
  #closed = false;

  /** `tags`: each node family's detail tag (families.ts, nodeTags), so that families no level exports are not sent. */
  constructor(
    reads: readonly (readonly string[])[],
    onLost: (err: Error) => void,
    tags?: readonly ('basic' | undefined)[],
  ) {
    this.#staleness = new Staleness(reads, tags);
    this.#onLost = onLost;
  }

  /** The worker thread, while one runs. */
  worker(): Worker | undefined {
    return this.#worker;
  }

  build(request: BuildRequest): Promise<Rendered> {
    return new Promise<Rendered>((resolve, reject) => {
      if (this.#closed) return reject(new Error('the body builder is closed'));
      const id = this.#nextId++;
      const { job, needs } = renderJob(this.#staleness, request);
      const entry: Job = {
        resolve: (r) => {
          this.#staleness.commit(r.reads);
          resolve(r.texts);
        },
        reject,
        took: 0,
        wake: undefined,
      };
      this.#jobs.set(id, entry);
      this.#post({ t: 'begin', id, job });
      const stale = job.leaders.map((l) => l.stale.length > 0);
      this.#send(id, entry, request, stale, needs).catch((err: unknown) => {
        this.#jobs.delete(id);
        reject(err instanceof Error ? err : new Error(String(err)));
      });
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const w = this.#worker;
    this.#worker = undefined;
    this.#failAll(new Error('the body builder is closed'));
    if (w) await w.terminate();
  }

  /** Sends the nodes of build `id` in messages, a few ahead of the worker, then its end. */
  async #send(id: number, job: Job, request: BuildRequest, stale: boolean[], needs: Set<string>[]): Promise<void> {
    let sent = 0;
    for (const [leader, { moment }] of request.leaders.entries()) {
      if (!stale[leader]) continue;
      const need = needs[leader] ?? new Set<string>();
      for (let at = 0; at < moment.nodes.length; at += NODES_PER_MESSAGE) {
        while (this.#jobs.has(id) && sent - job.took >= MAX_MESSAGES_AHEAD) {
          await new Promise<void>((resolve) => (job.wake = resolve));
        }
        if (!this.#jobs.has(id)) return;
        const nodes = moment.nodes.slice(at, at + NODES_PER_MESSAGE).map((n) => pick(n, need));
        this.#post({ t: 'nodes', id, leader, nodes });
        sent++;
        await yieldToLoop();
      }
    }
    if (this.#jobs.has(id)) this.#post({ t: 'end', id });
  }

  #post(m: ToWorker): void {
    if (!this.#closed) this.#ensure().postMessage(m);
  }

  /** The running worker, or a new one. */
  #ensure(): Worker {
    if (this.#worker) return this.#worker;
    const w = startWorker(import.meta.url, 'body-worker');
    // The main thread's own handles keep the process alive; the worker never should.
    w.unref();
    w.on('message', (m: FromWorker) => this.#received(m));
    w.on('error', (err) => this.#lose(w, err));
    w.on('exit', (code) => this.#lose(w, new Error(`the body worker exited with code ${code}`)));
    this.#worker = w;
    return w;
  }

  #received(m: FromWorker): void {
    const job = this.#jobs.get(m.id);
    if (!job) return;
    if (m.t === 'took') {
      job.took++;
      const wake = job.wake;
      job.wake = undefined;
      wake?.();
      return;
    }
    this.#jobs.delete(m.id);
    if (m.t === 'failed') return job.reject(new Error(m.message));
    const toBuffers = (p: DeflatedPiece): DeflatedPiece => ({ ...p, deflated: asBuffer(p.deflated) });
    const { texts, reads } = m.rendered;
    job.resolve({ texts: texts.map((pieces) => pieces.map(toBuffers)), reads });
  }

  #lose(w: Worker, err: Error): void {
    if (this.#worker !== w) return;
    this.#worker = undefined;
    this.#staleness.reset();
    this.#failAll(err);
    if (!this.#closed) this.#onLost(err);
  }

  #failAll(err: Error): void {
    for (const job of this.#jobs.values()) {
      job.reject(err);
      job.wake?.();
    }
    this.#jobs.clear();
  }
}

/** Makes a worker builder (the cache's option of the same name lets tests inject one they can stop). */
export function createWorkerBuilder(
  reads: readonly (readonly string[])[],
  onLost: (err: Error) => void,
  tags?: readonly ('basic' | undefined)[],
): Builder & { worker(): Worker | undefined } {
  return new WorkerBuilder(reads, onLost, tags);
}
