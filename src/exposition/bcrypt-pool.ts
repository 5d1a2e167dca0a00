/**
 * bcrypt comparisons on worker threads. bcryptjs (pure JavaScript) rather than the native `bcrypt` package:
 * measured on this project's 2-core machine, a comparison takes 87 ms (cost 10) and 327 ms (cost 12) with bcryptjs,
 * 57 ms and 227 ms with bcrypt 6 (native): 1.5× faster, not worth a native addon (install scripts, per-platform
 * builds) once the work is off the main thread, bounded, and cached for valid credentials (basic-auth.ts).
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../util/worker.js';

/** To the worker. */
export interface CompareRequest {
  id: number;
  password: string;
  hash: string;
}

/** From the worker. */
export interface CompareResult {
  id: number;
  ok: boolean;
}

/** Runs bcrypt comparisons; at most `size` run at once (one per worker), the caller queues the rest. */
export interface BcryptPool {
  readonly size: number;
  /** True when the password matches; a malformed hash or a lost worker is false. */
  compare(password: string, hash: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Workers on a machine of `cores`: all but one core, at most 4, at least one. The main thread keeps a core for
 * the scrapes and probes; on 2 cores that is one bcrypt worker.
 */
export function defaultPoolSize(cores = availableParallelism()): number {
  return Math.max(1, Math.min(4, cores - 1));
}

interface Slot {
  worker: Worker | undefined;
  pending: Map<number, (ok: boolean) => void>;
}

/** Starts workers lazily (none until the first comparison) and again after one dies. */
export function createBcryptPool(size = defaultPoolSize()): BcryptPool {
  const slots: Slot[] = Array.from({ length: size }, () => ({ worker: undefined, pending: new Map() }));
  let next = 0;
  let nextId = 1;
  let closed = false;

  const lose = (slot: Slot, w: Worker): void => {
    if (slot.worker !== w) return;
    slot.worker = undefined;
    for (const resolve of slot.pending.values()) resolve(false);
    slot.pending.clear();
  };
  const ensure = (slot: Slot): Worker => {
    if (slot.worker) return slot.worker;
    const w = startWorker(import.meta.url, 'bcrypt-worker');
    w.unref();
    w.on('message', (m: CompareResult) => {
      const resolve = slot.pending.get(m.id);
      slot.pending.delete(m.id);
      resolve?.(m.ok);
    });
    w.on('error', () => lose(slot, w));
    w.on('exit', () => lose(slot, w));
    slot.worker = w;
    return w;
  };

  return {
    size,
    compare(password, hash) {
      if (closed) return Promise.resolve(false);
      // The least busy worker (the caller keeps at most `size` running, so usually an idle one).
      let slot = slots[next % size]!;
      for (const s of slots) if (s.pending.size < slot.pending.size) slot = s;
      next++;
      const id = nextId++;
      return new Promise<boolean>((resolve) => {
        slot.pending.set(id, resolve);
        const request: CompareRequest = { id, password, hash };
        ensure(slot).postMessage(request);
      });
    },
    async close() {
      closed = true;
      await Promise.all(
        slots.map(async (slot) => {
          const w = slot.worker;
          if (w) lose(slot, w);
          await w?.terminate();
        }),
      );
    },
  };
}
