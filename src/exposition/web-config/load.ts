/** Reading a web configuration file and the TLS files it names. */

import { stat as fsStat } from 'node:fs/promises';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { CONFIG_MAX_BYTES, fileProblem, readFileSafely, type ReadFile } from '../../util/files.js';
import { fail, parseWebConfig, type WebConfig } from './parse.js';

/** File access, injectable for tests. */
export interface WebConfigFs {
  /** Reads a file with a timeout and a size cap, regular files only (src/util/files.ts). */
  readFile: ReadFile;
  /** A string that changes when the file changes (mtime, size, inode). */
  fingerprint(path: string): Promise<string>;
}

/** The real file system. */
export const nodeWebConfigFs: WebConfigFs = {
  readFile: readFileSafely,
  fingerprint: async (path) => {
    const s = await fsStat(path);
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  },
};

/** A validated configuration with its TLS material loaded. */
export interface LoadedWebConfig {
  readonly config: WebConfig;
  /** Options for tls.createServer / server.setSecureContext; absent without TLS. */
  readonly secureContext?: SecureContextOptions;
}

export function tlsFiles(config: WebConfig): string[] {
  const t = config.tls;
  return t ? [t.certFile, t.keyFile, t.clientCaFile].filter((p): p is string => !!p) : [];
}

/** Reads the file and the TLS files it names; throws one-line WebConfigErrors. */
export async function loadWebConfig(path: string, fs: WebConfigFs = nodeWebConfigFs): Promise<LoadedWebConfig> {
  const read = async (file: string, setting: string): Promise<Buffer> => {
    try {
      return Buffer.from(await fs.readFile(file, { setting, maxBytes: CONFIG_MAX_BYTES }), 'utf8');
    } catch (err) {
      return fail(path, file === path ? fileProblem(err) : `${setting} ${file}: ${fileProblem(err)}`);
    }
  };
  const config = parseWebConfig((await read(path, '--web.config.file')).toString('utf8'), path);
  const t = config.tls;
  if (!t) return { config };
  const cert = t.certFile ? await read(t.certFile, 'tls_server_config.cert_file') : Buffer.from(t.cert ?? '');
  const key = t.keyFile ? await read(t.keyFile, 'tls_server_config.key_file') : Buffer.from(t.key ?? '');
  const ca = t.clientCaFile
    ? await read(t.clientCaFile, 'tls_server_config.client_ca_file')
    : t.clientCa
      ? Buffer.from(t.clientCa)
      : undefined;
  const secureContext: SecureContextOptions = {
    cert,
    key,
    minVersion: t.minVersion,
    maxVersion: t.maxVersion,
    honorCipherOrder: t.honorCipherOrder,
    ...(ca ? { ca } : {}),
    ...(t.ciphers ? { ciphers: t.ciphers } : {}),
    ...(t.ecdhCurve ? { ecdhCurve: t.ecdhCurve } : {}),
  };
  try {
    createSecureContext(secureContext);
  } catch (err) {
    // OpenSSL's messages name the problem (e.g. "key values mismatch") without echoing key material.
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    fail(path, `tls_server_config: cannot use the certificate and key: ${reason}`);
  }
  return { config, secureContext };
}
