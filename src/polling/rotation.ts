/**
 * The rotating health polls of one product whose node detail rotates (basic, minimal: src/collectors/detail.ts): its
 * nodes wait in one queue, oldest turn first (never polled first), and leave it at the product's rotation rate
 * (src/polling/rate.ts decides it), so that each node is polled once per rotation (its nodes / the rate). A node whose
 * poll runs is out of the queue; it comes back when the poll ends, at its new turn (or its old one when the poll was
 * not about the node: throttled, paused).
 */
import type { NodeDetail } from '../collectors/detail.js';
import { KeyHeap, type HeapKey } from './due-heap.js';

/** A rotating node as its queue sees it: when its last turn ended, and where it sits in the queue. */
export interface RotatingNode {
  turn: number;
  readyIndex: number;
}

/** Most polls a rotation sends at once after it could not send (a busy loop, a pause): one second's worth. */
const CATCH_UP_MS = 1_000;

/** One product's rotation: its nodes, the queue of those not being polled, and its pace. */
export class Rotation<T extends RotatingNode> {
  readonly queue: KeyHeap<T>;
  /** Nodes of the product polled here (queued or being polled). */
  size = 0;
  /** The product's level (basic or minimal: its rate depends on it). */
  level: NodeDetail = 'minimal';
  /** Polls per second; 0 until the rate is known. */
  #rps = 0;
  /** When the next poll may go (epoch ms). */
  #nextAt = -Infinity;

  constructor(key: HeapKey<T>) {
    this.queue = new KeyHeap<T>(key);
  }

  get rps(): number {
    return this.#rps;
  }

  set rps(rps: number) {
    this.#rps = Math.max(0, rps);
  }

  /** Seconds to poll every node once at the current rate (Infinity while it has none). */
  get seconds(): number {
    return this.size === 0 ? 0 : this.#rps > 0 ? this.size / this.#rps : Infinity;
  }

  /** When the next poll may go: Infinity while nothing is queued or the rate is 0. */
  nextAt(now: number): number {
    if (this.queue.size === 0 || this.#rps <= 0) return Infinity;
    // The first poll goes now, without a burst; after a stretch it could not send, one second's worth at most.
    return this.#nextAt === -Infinity ? now : Math.max(this.#nextAt, now - CATCH_UP_MS);
  }

  /** The oldest queued node, taken out of the queue, when its poll may go at `now`; else undefined. */
  take(now: number): T | undefined {
    const at = this.nextAt(now);
    if (at > now) return undefined;
    const e = this.queue.peek();
    if (!e) return undefined;
    this.queue.remove(e);
    this.#nextAt = at + 1000 / this.#rps;
    return e;
  }
}
