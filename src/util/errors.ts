/**
 * The stable `code` of an error (ENOENT, ECONNREFUSED, UND_ERR_…), looking through `cause` and AggregateError
 * members.
 */
export function errorCode(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 4) return undefined;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && e.code !== '') return e.code;
  const fromCause = errorCode(e.cause, depth + 1);
  if (fromCause) return fromCause;
  if (Array.isArray(e.errors)) {
    for (const inner of e.errors as unknown[]) {
      const c = errorCode(inner, depth + 1);
      if (c) return c;
    }
  }
  return undefined;
}

/**
 * What to say about a failed fs or network call in a message: its code, else its class name, never its message
 * (which may quote input such as a file's content or a URL with credentials).
 */
export function errorLabel(err: unknown): string {
  const code = errorCode(err);
  if (code) return code;
  const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== '' ? name : 'unknown error';
}
