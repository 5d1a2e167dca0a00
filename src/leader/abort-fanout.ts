/**
 * Abort listeners on long-lived signals (the poller's, a client's closing signal) without an EventTarget listener
 * per request: one listener per signal, and a Set of the requests that wait on it. addEventListener and
 * removeEventListener with an AbortController per request were about 7 % of the exporter's CPU in its start-up
 * burst at 10,000 nodes (node:internal/event_target and abort_controller); a Set entry costs
 * a fraction of that.
 */

/** Something that stops when a signal aborts. */
export interface Abortable {
  abort(reason: unknown): void;
}

const waiting = new WeakMap<AbortSignal, Set<Abortable>>();

/**
 * Calls `target.abort(signal.reason)` when `signal` aborts (not when it already has: the caller checks
 * `signal.aborted` first). Returns the set to remove `target` from (`set.delete(target)`) once it no longer waits.
 */
export function onAbort(signal: AbortSignal, target: Abortable): Set<Abortable> {
  let set = waiting.get(signal);
  if (set === undefined) {
    const s = new Set<Abortable>();
    set = s;
    waiting.set(signal, s);
    signal.addEventListener(
      'abort',
      () => {
        const reason: unknown = signal.reason;
        for (const t of [...s]) t.abort(reason);
        s.clear();
      },
      { once: true },
    );
  }
  set.add(target);
  return set;
}
