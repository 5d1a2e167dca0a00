// Types of retry-after-proxy.mjs (for the TypeScript tests in test/bench).

/** A loopback proxy in front of `target` that gives every 429 `Retry-After: retryAfterS`. */
export function startRetryAfterProxy(
  target: string,
  options: { retryAfterS: number; connections?: number; now?: () => number },
): Promise<{
  url: string;
  stats(): { retryAfterS: number; rewritten: number; violations: number };
  close(): Promise<void>;
}>;
