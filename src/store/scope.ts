/**
 * The store of a scope that is not a leader: the Cribl.Cloud management plane (its workspaces). It owns that
 * scope's state, renders it to text on every write with the renderer it is given, and tells the body cache when
 * the text changed (unchanged text is not a change).
 */

/** A scope's state and its rendered texts (one string per family of the scope, in body order). */
export interface ScopeSnapshot<S> {
  /** The latest state; undefined before the first write. */
  state(): S | undefined;
  set(state: S): void;
  /** Family texts, in body order. */
  texts(): readonly string[];
  /** Calls `listener` after each change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

/** Creates a scope store; `render(undefined)` gives the texts before the first write. */
export function createScopeSnapshot<S>(render: (state: S | undefined) => readonly string[]): ScopeSnapshot<S> {
  let state: S | undefined;
  let texts = render(undefined);
  const listeners = new Set<() => void>();
  return {
    state: () => state,
    set(next) {
      state = next;
      const rendered = render(next);
      if (rendered.length === texts.length && rendered.every((t, i) => t === texts[i])) return;
      texts = rendered;
      for (const listener of listeners) listener();
    },
    texts: () => texts,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
