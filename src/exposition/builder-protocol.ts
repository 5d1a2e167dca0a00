/** Messages between the body cache (main thread) and the body worker. */

import { isSlot, type AssembleHead, type AssembledBody } from './assemble.js';

/**
 * Main → worker. A build is `build`, then its node states in `nodes` chunks (in body order), then `end`; the
 * worker answers each chunk with `took` once rendered (the main thread keeps only a few chunks ahead).
 */
export type ToWorker =
  | { t: 'build'; id: number; head: AssembleHead }
  | { t: 'nodes'; id: number; leader: number; states: readonly unknown[] }
  /** The same as `nodes`, packed by the NodeList's `pack` (the store's columns). */
  | { t: 'packed'; id: number; leader: number; packed: unknown }
  | { t: 'end'; id: number };

/** Worker → main. */
export type FromWorker =
  | { t: 'took'; id: number }
  | { t: 'built'; id: number; body: AssembledBody }
  | { t: 'failed'; id: number; message: string };

/**
 * The distinct ArrayBuffers behind `body`'s buffers, to move them without a copy. SharedArrayBuffers are not moved
 * but shared (the deflated pieces, which the worker's memo keeps for the next build).
 */
export function transferList(body: AssembledBody): ArrayBuffer[] {
  const set = new Set<ArrayBuffer>();
  for (const p of body.parts) {
    if (isSlot(p)) continue;
    for (const b of [...(p.identity ?? []), ...p.deflate]) {
      if (b.buffer instanceof ArrayBuffer) set.add(b.buffer);
    }
  }
  return [...set];
}
