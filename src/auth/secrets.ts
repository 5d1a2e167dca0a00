import { AuthError } from './errors.js';
import type { AuthMode, ReadFile } from './types.js';

/** Object keys whose values are secrets wherever they appear in a log record. */
export const SECRET_KEYS = [
  'password',
  'token',
  'accessToken',
  'access_token',
  'refresh_token',
  'id_token',
  'clientSecret',
  'client_secret',
  'secret',
  'authorization',
  'Authorization',
  'proxy-authorization',
  'cookie',
] as const;

function keyPath(prefix: string, key: string): string {
  const safe = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
  if (prefix === '') return safe;
  return safe.startsWith('[') ? `${prefix}${safe}` : `${prefix}.${safe}`;
}

/**
 * pino `redact.paths` covering every secret key at depths 0 to 4 (pino's wildcards match exactly one level,
 * so `*.password` alone would miss `config.leaders[0].auth.password`).
 */
export const SECRET_LOG_PATHS: readonly string[] = SECRET_KEYS.flatMap((key) =>
  ['', '*', '*.*', '*.*.*', '*.*.*.*'].map((prefix) => keyPath(prefix, key)),
);

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
