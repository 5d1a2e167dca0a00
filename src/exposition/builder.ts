/**
 * Where the body is assembled: `inline` on the main thread (tests, tiny fleets) or in a `worker`
 * thread (the default of the exporter). Both hold the node texts the snapshots send as batches and
 * build bodies on request; the body cache (body.ts) does not know which one it talks to.
 */

import type { Worker } from 'node:worker_threads';
import { startWorker } from '../util/worker.js';
import { BodyAssembler, isSlot, type AssembleRequest, type AssembledBody, type AssemblerOptions } from './assemble.js';
import { batchTransferList, type FromWorker, type ToWorker } from './builder-protocol.js';
import type { NodeBatch } from '../store/node-batch.js';

/** The builder's interface towards the body cache. Calls are applied in order. */
export interface BodyBuilder {
  apply(leaderId: number, batch: NodeBatch): void;
  drop(leaderId: number): void;
  build(request: AssembleRequest): Promise<AssembledBody>;
  close(): Promise<void>;
}

/** Assembles on the calling thread (it yields between chunks). */
export function createInlineBuilder(options: AssemblerOptions): BodyBuilder {
  const assembler = new BodyAssembler(options);
  return {
    apply: (leaderId, batch) => assembler.apply(leaderId, batch),
    drop: (leaderId) => assembler.drop(leaderId),
    build: (request) => assembler.assemble(request),
    close: () => Promise.resolve(),
  };
}

/** Options of createWorkerBuilder besides the assembler's. */
export interface WorkerBuilderHooks {
  /** The worker died (it holds the node texts): the caller must send every node again. */
  onLost: (err: Error) => void;
}

/** A plain Uint8Array that crossed a thread, as a Buffer over the same memory. */
function asBuffer(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

/**
 * Assembles in a worker thread. The main thread's share of a build is posting the request and
 * receiving the finished buffers, which move without a copy.
 */
export function createWorkerBuilder(
  options: AssemblerOptions,
  hooks: WorkerBuilderHooks,
): BodyBuilder & { worker(): Worker | undefined } {
  let worker: Worker | undefined;
  let nextId = 1;
  let closed = false;
  const pending = new Map<number, { resolve: (b: AssembledBody) => void; reject: (e: Error) => void }>();

  const lose = (w: Worker, err: Error): void => {
    if (worker !== w) return;
    worker = undefined;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    if (!closed) hooks.onLost(err);
  };
  const ensure = (): Worker => {
    if (worker) return worker;
    const w = startWorker(import.meta.url, 'body-worker', options);
    // The main thread's own handles keep the process alive; the worker never should.
    w.unref();
    w.on('message', (m: FromWorker) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.t === 'failed') return p.reject(new Error(m.message));
      const b = m.body;
      const parts = b.parts.map((part) =>
        isSlot(part) ? part : { identity: part.identity?.map(asBuffer), gzip: part.gzip.map(asBuffer) },
      );
      p.resolve({ ...b, parts });
    });
    w.on('error', (err) => lose(w, err));
    w.on('exit', (code) => lose(w, new Error(`the body worker exited with code ${code}`)));
    worker = w;
    return w;
  };
  const post = (m: ToWorker, transfer?: ArrayBuffer[]): void => {
    if (closed) return;
    ensure().postMessage(m, transfer);
  };

  return {
    worker: () => worker,
    apply: (leader, batch) => post({ t: 'apply', leader, batch }, batchTransferList(batch)),
    drop: (leader) => post({ t: 'drop', leader }),
    build: (request) =>
      new Promise((resolve, reject) => {
        if (closed) return reject(new Error('the body builder is closed'));
        const id = nextId++;
        pending.set(id, { resolve, reject });
        post({ t: 'build', id, request });
      }),
    close: async () => {
      closed = true;
      const w = worker;
      worker = undefined;
      for (const p of pending.values()) p.reject(new Error('the body builder is closed'));
      pending.clear();
      if (w) await w.terminate();
    },
  };
}
