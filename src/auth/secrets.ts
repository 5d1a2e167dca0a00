import { fileProblem, SECRET_MAX_BYTES, type ReadFile } from '../util/files.js';
import type { Logger } from 'pino';
import { AuthError } from './errors.js';
import type { AuthMode } from './types.js';

/**
 * Reads a secret (password, client secret) from a file, stripping trailing line breaks only: the file is read on
 * every use so a rotated Kubernetes secret takes effect at the next login.
 */
export async function readSecretFile(
  readFile: ReadFile,
  path: string,
  setting: string,
  mode: AuthMode,
): Promise<string> {
  let raw: string;
  try {
    raw = await readFile(path, { setting, maxBytes: SECRET_MAX_BYTES });
  } catch (e) {
    throw new AuthError(mode, 'file_unreadable', `cannot read ${setting} ${path}: ${fileProblem(e)}`);
  }
  const value = raw.replace(/[\r\n]+$/, '');
  if (value === '') throw new AuthError(mode, 'file_unreadable', `${setting} ${path} is empty`);
  return value;
}

/** Reads a secret file at once (SIGHUP) and logs whether it can be used; the next login reads it again. */
export async function recheckSecretFile(
  readFile: ReadFile,
  path: string,
  setting: string,
  mode: AuthMode,
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<void> {
  try {
    await readSecretFile(readFile, path, setting, mode);
    logger.info({ mode, file: path }, `${setting} re-read; the next login uses it`);
  } catch (e) {
    logger.warn({ mode, file: path }, e instanceof Error ? e.message : String(e));
  }
}
