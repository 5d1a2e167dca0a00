/** Messages between the body cache (main thread) and the body worker. */

import { isSlot, type AssembleRequest, type AssembledBody } from './assemble.js';
import type { NodeBatch } from '../store/node-batch.js';

/** Main → worker. */
export type ToWorker =
  | { t: 'apply'; leader: number; batch: NodeBatch }
  | { t: 'drop'; leader: number }
  | { t: 'build'; id: number; request: AssembleRequest };

/** Worker → main. */
export type FromWorker = { t: 'built'; id: number; body: AssembledBody } | { t: 'failed'; id: number; message: string };

/** The distinct ArrayBuffers behind `body`'s buffers, to move them without a copy. */
export function transferList(body: AssembledBody): ArrayBuffer[] {
  const set = new Set<ArrayBuffer>();
  for (const p of body.parts) {
    if (isSlot(p)) continue;
    for (const b of [...(p.identity ?? []), ...p.gzip]) set.add(b.buffer as ArrayBuffer);
  }
  return [...set];
}

/** The ArrayBuffers of a node batch (each owned by the batch alone). */
export function batchTransferList(batch: NodeBatch): ArrayBuffer[] {
  return [batch.deleted.buffer as ArrayBuffer, batch.offsets.buffer as ArrayBuffer, batch.bytes.buffer as ArrayBuffer];
}
