/**
 * One signal that aborts when any of the given ones does, with a dispose() that removes its listeners.
 * Hand-written instead of `AbortSignal.any`: the signals `any` returns stay referenced by their sources until
 * those are collected (nodejs/node#55351), and a leader client's closing signal lives as long as the client, so
 * every request ever made would be retained; removing our listeners at the end of each request frees them.
 */
export function linkSignals(...signals: (AbortSignal | undefined)[]): { signal: AbortSignal; dispose: () => void } {
  const ac = new AbortController();
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  const onAbort = function (this: AbortSignal): void {
    ac.abort(this.reason);
  };
  for (const s of live) {
    if (s.aborted) {
      ac.abort(s.reason);
      break;
    }
    s.addEventListener('abort', onAbort, { once: true });
  }
  return { signal: ac.signal, dispose: () => live.forEach((s) => s.removeEventListener('abort', onAbort)) };
}
