/**
 * Reads a small text file (a secret, a certificate) synchronously: re-read cheaply, and callable from
 * `invalidate()`.
 */
export type ReadFile = (path: string) => string;
