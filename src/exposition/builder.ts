/**
 * Where the body is assembled: `inline` on the main thread (tests, fleets below WORKER_MIN_NODES) or in a `worker`
 * thread. Neither keeps node states between builds: a build gets them as they were when it started and renders what
 * changed (the last build's pieces and runs: assemble.ts). The body cache (body.ts) does not know which one it talks
 * to.
 */

import type { Worker } from 'node:worker_threads';
import { startWorker } from '../util/worker.js';
import { yieldToLoop } from '../util/yield.js';
import {
  BodyAssembler,
  isSlot,
  type AssembleRequest,
  type AssembledBody,
  type AssemblerOptions,
  type NodeRendering,
  runEnds,
  RUN_NODES,
} from './assemble.js';
import type { FromWorker, ToWorker } from './builder-protocol.js';

/** The builder's interface towards the body cache. */
export interface BodyBuilder<N> {
  build(request: AssembleRequest<N>): Promise<AssembledBody>;
  close(): Promise<void>;
}

/** Assembles on the calling thread (it yields every few ms). */
export function createInlineBuilder<N>(options: AssemblerOptions, rendering: NodeRendering<N>): BodyBuilder<N> {
  const assembler = new BodyAssembler(options, rendering);
  return {
    build: (request) => assembler.assemble(request),
    close: () => Promise.resolve(),
  };
}

/** Options of createWorkerBuilder besides the assembler's. */
export interface WorkerBuilderHooks {
  /** The worker died or failed to start; the builds in flight fail, the next build starts a new worker. */
  onLost: (err: Error) => void;
}

/**
 * Node states per message to the worker, about: a run of the assembler's (RUN_NODES, runEnds), which the worker
 * fingerprints as a whole. Posting clones them on the main thread (V8's serializer, about 2.4 µs a node measured with
 * 20,000 simulator nodes): about 1,000 a message (2,000 at most) keeps each post near 2.5 ms (5 ms) of the event loop.
 */
export const NODES_PER_MESSAGE = RUN_NODES;

/** Messages of node states posted and not yet rendered by the worker (bounds the clones waiting in its queue). */
const MAX_MESSAGES_AHEAD = 4;

/** A plain Uint8Array that crossed a thread, as a Buffer over the same memory. */
function asBuffer(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

interface Job {
  resolve: (b: AssembledBody) => void;
  reject: (e: Error) => void;
  /** `nodes` messages the worker has rendered. */
  took: number;
  /** Wakes the sender waiting for the worker to catch up. */
  wake: (() => void) | undefined;
}

/**
 * Assembles in a worker thread, which renders the node states and gzips. The main thread's share of a build is
 * posting the states (in messages of NODES_PER_MESSAGE, yielding between them) and receiving the finished buffers,
 * which move without a copy. The worker renders the families with the real NODE_RENDERING (it cannot be given
 * functions): `N` is NodeState in the exporter.
 */
export function createWorkerBuilder<N>(
  options: AssemblerOptions,
  hooks: WorkerBuilderHooks,
): BodyBuilder<N> & { worker(): Worker | undefined } {
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
    failAll(err);
    if (!closed) hooks.onLost(err);
  };
  const ensure = (): Worker => {
    if (worker) return worker;
    const w = startWorker(import.meta.url, 'body-worker', options);
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
      const b = m.body;
      const parts = b.parts.map((part) =>
        isSlot(part) ? part : { ...part, identity: part.identity?.map(asBuffer), deflate: part.deflate.map(asBuffer) },
      );
      job.resolve({ ...b, parts });
    });
    w.on('error', (err) => lose(w, err));
    w.on('exit', (code) => lose(w, new Error(`the body worker exited with code ${code}`)));
    worker = w;
    return w;
  };
  const post = (m: ToWorker, transfer?: ArrayBuffer[]): void => {
    if (!closed) ensure().postMessage(m, transfer);
  };

  /** Sends the node states of build `id` in messages, a few ahead of the worker, then its end. */
  const send = async (id: number, job: Job, request: AssembleRequest<N>): Promise<void> => {
    let sent = 0;
    for (const [leader, { nodes }] of request.leaders.entries()) {
      let at = 0;
      // A run a message: the worker fingerprints each pack as a run.
      for (const end of runEnds(nodes)) {
        while (jobs.has(id) && sent - job.took >= MAX_MESSAGES_AHEAD) {
          await new Promise<void>((resolve) => (job.wake = resolve));
        }
        if (!jobs.has(id)) return;
        const packed = nodes.pack?.(at, end);
        if (packed) post({ t: 'packed', id, leader, packed: packed.data }, packed.transfer);
        else post({ t: 'nodes', id, leader, states: nodes.slice(at, end) });
        at = end;
        sent++;
        await yieldToLoop();
      }
    }
    if (jobs.has(id)) post({ t: 'end', id });
  };

  return {
    worker: () => worker,
    build: (request) =>
      new Promise((resolve, reject) => {
        if (closed) return reject(new Error('the body builder is closed'));
        const id = nextId++;
        const job: Job = { resolve, reject, took: 0, wake: undefined };
        jobs.set(id, job);
        const { generation, management, leaders, keepIdentity, fresh } = request;
        const head = leaders.map(({ targetPairs, leaderTexts, groupTexts }) => ({
          targetPairs,
          leaderTexts,
          groupTexts,
        }));
        post({
          t: 'build',
          id,
          head: {
            generation,
            ...(management ? { management } : {}),
            leaders: head,
            ...(keepIdentity === undefined ? {} : { keepIdentity }),
            ...(fresh === true ? { fresh } : {}),
          },
        });
        send(id, job, request).catch((err: unknown) => {
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
