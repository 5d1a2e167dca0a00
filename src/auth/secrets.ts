import { REDACT_PATHS } from '../util/logger.js';
import { AuthError } from './errors.js';
import type { AuthMode, ReadFile } from './types.js';

/**
 * pino `redact.paths` for secrets: the process logger's list (src/logger.ts), so that there is one list. It holds
 * static paths only (top level, `auth.*`, request headers): pino's leading wildcards cost ~300 µs per line
 * (measured), so secrets at any other depth are censored by the logger's `censorSecrets` formatter instead.
 */
export const SECRET_LOG_PATHS: readonly string[] = REDACT_PATHS;

/** The URL without user:password (proxy URLs may carry credentials), for logs and error messages. */
export function stripUrlCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** Error code of a failed fs/network call (ENOENT, ECONNREFUSED, …) without its message, which may quote input. */
export function errorCode(e: unknown): string {
  if (typeof e === 'object' && e !== null) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    const name = (e as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return name;
  }
  return 'unknown error';
}

/**
 * Reads a secret (password, client secret) from a file, stripping trailing line breaks only: the file is read on
 * every use so a rotated Kubernetes secret takes effect at the next login.
 */
export function readSecretFile(readFile: ReadFile, path: string, setting: string, mode: AuthMode): string {
  let raw: string;
  try {
    raw = readFile(path);
  } catch (e) {
    throw new AuthError(mode, 'file_unreadable', `cannot read ${setting} ${path}: ${errorCode(e)}`);
  }
  const value = raw.replace(/[\r\n]+$/, '');
  if (value === '') throw new AuthError(mode, 'file_unreadable', `${setting} ${path} is empty`);
  return value;
}
