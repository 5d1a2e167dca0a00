import type { ReadFile } from '../util/files.js';
import { errorLabel } from '../util/errors.js';
import { AuthError } from './errors.js';
import type { AuthMode } from './types.js';

/**
 * Reads a secret (password, client secret) from a file, stripping trailing line breaks only: the file is read on
 * every use so a rotated Kubernetes secret takes effect at the next login.
 */
export function readSecretFile(readFile: ReadFile, path: string, setting: string, mode: AuthMode): string {
  let raw: string;
  try {
    raw = readFile(path);
  } catch (e) {
    throw new AuthError(mode, 'file_unreadable', `cannot read ${setting} ${path}: ${errorLabel(e)}`);
  }
  const value = raw.replace(/[\r\n]+$/, '');
  if (value === '') throw new AuthError(mode, 'file_unreadable', `${setting} ${path} is empty`);
  return value;
}
