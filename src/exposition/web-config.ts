/**
 * `--web.config.file`: the Prometheus exporter-toolkit web configuration (TLS, mTLS, basic auth,
 * security headers, rate limit), same YAML schema so operators can reuse their files. Relative
 * paths are resolved against the file's directory, as the toolkit does. Unknown keys are errors.
 */

import { createHash } from 'node:crypto';
import { readFile as fsReadFile, stat as fsStat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { createSecureContext, type SecureContextOptions, type SecureVersion } from 'node:tls';
import bcrypt from 'bcryptjs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { Clock } from '../util/clock.js';
import { parseGoDuration } from '../util/duration.js';

/** A web configuration that cannot be used; the message is one line naming the setting. */
export class WebConfigError extends Error {
  override readonly name = 'WebConfigError';
}

/** Go `crypto/tls` client auth policies, as the toolkit names them. */
export const CLIENT_AUTH_TYPES = [
  'NoClientCert',
  'RequestClientCert',
  'RequireAnyClientCert',
  'RequireClientCert',
  'VerifyClientCertIfGiven',
  'RequireAndVerifyClientCert',
] as const;
export type ClientAuthType = Exclude<(typeof CLIENT_AUTH_TYPES)[number], 'RequireClientCert'>;

const TLS_VERSIONS: Readonly<Record<string, SecureVersion>> = {
  TLS10: 'TLSv1',
  TLS11: 'TLSv1.1',
  TLS12: 'TLSv1.2',
  TLS13: 'TLSv1.3',
};

const CURVES: Readonly<Record<string, string>> = { CurveP256: 'P-256', CurveP384: 'P-384', CurveP521: 'P-521', X25519: 'X25519' };

// Go cipher suite names (tls.CipherSuites()) → OpenSSL names. TLS 1.3 suites are not configurable in Go.
const CIPHERS: Readonly<Record<string, string | null>> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_AES_128_GCM_SHA256: null,
  TLS_AES_256_GCM_SHA384: null,
  TLS_CHACHA20_POLY1305_SHA256: null,
};
const TLS13_SUITES = 'TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256';

// The toolkit allows only these headers (and these values where it lists some).
const ALLOWED_HEADERS: Readonly<Record<string, readonly string[] | null>> = {
  'Strict-Transport-Security': null,
  'X-Content-Type-Options': ['nosniff'],
  'X-Frame-Options': ['deny', 'sameorigin'],
  'X-XSS-Protection': null,
  'Content-Security-Policy': null,
};

const BCRYPT_HASH = /^\$2[aby]?\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

const optionalString = z.string().optional();
const nullable = <T extends z.ZodType>(schema: T) => schema.nullish();

const schema = z.strictObject({
  tls_server_config: nullable(
    z.strictObject({
      cert: optionalString,
      key: optionalString,
      client_ca: optionalString,
      cert_file: optionalString,
      key_file: optionalString,
      client_auth_type: z.enum(CLIENT_AUTH_TYPES).optional(),
      client_ca_file: optionalString,
      cipher_suites: z.array(z.string()).optional(),
      curve_preferences: z.array(z.string()).optional(),
      min_version: z.enum(Object.keys(TLS_VERSIONS) as [string, ...string[]]).optional(),
      max_version: z.enum(Object.keys(TLS_VERSIONS) as [string, ...string[]]).optional(),
      prefer_server_cipher_suites: z.boolean().optional(),
      client_allowed_sans: z.array(z.string()).optional(),
    }),
  ),
  http_server_config: nullable(
    z.strictObject({
      http2: z.boolean().optional(),
      headers: nullable(z.record(z.string(), z.string())),
    }),
  ),
  basic_auth_users: nullable(z.record(z.string(), z.string())),
  rate_limit: nullable(
    z.strictObject({
      burst: z.number().int().nonnegative().optional(),
      interval: optionalString,
    }),
  ),
});

/** TLS settings after validation; file paths are absolute. */
export interface WebTlsConfig {
  certFile?: string;
  keyFile?: string;
  /** Inline PEM (`cert`); a secret only in the key's case. */
  cert?: string;
  key?: string;
  clientCaFile?: string;
  clientCa?: string;
  clientAuth: ClientAuthType;
  minVersion: SecureVersion;
  maxVersion: SecureVersion;
  ciphers?: string;
  ecdhCurve?: string;
  honorCipherOrder: boolean;
  clientAllowedSans?: readonly string[];
}

/** The web configuration file after validation. */
export interface WebConfig {
  tls?: WebTlsConfig;
  /** Extra response headers (`http_server_config.headers`). */
  headers: Readonly<Record<string, string>>;
  /** user → bcrypt hash; empty map = no basic auth. */
  users: ReadonlyMap<string, string>;
  rateLimit?: { intervalMs: number; burst: number };
}

function fail(source: string, message: string): never {
  throw new WebConfigError(`web config ${source}: ${message}`);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => (where ? `${where}.${k}` : k));
    return `unknown key ${keys.map((k) => `"${k}"`).join(', ')}`;
  }
  if (issue.code === 'invalid_value') return `${where}: expected one of ${issue.values.map(String).join(', ')}`;
  return `${where || 'file'}: ${issue.message}`;
}

/**
 * Parses and validates the YAML text of a web configuration file. `path` names the file in errors
 * and anchors relative paths. Throws a one-line WebConfigError; never echoes secret values.
 */
export function parseWebConfig(text: string, path: string): WebConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (err) {
    fail(path, `invalid YAML: ${(err instanceof Error ? err.message : String(err)).split('\n')[0] ?? ''}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) fail(path, describeIssue(parsed.error.issues[0] as z.core.$ZodIssue));
  const c = parsed.data;
  const dir = dirname(path);
  const abs = (p: string | undefined): string | undefined => (p ? resolve(dir, p) : undefined);

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(c.http_server_config?.headers ?? {})) {
    if (!(name in ALLOWED_HEADERS)) fail(path, `http_server_config.headers: header "${name}" can not be configured`);
    const allowed = ALLOWED_HEADERS[name];
    if (allowed && !allowed.includes(value)) {
      fail(path, `http_server_config.headers.${name}: expected one of ${allowed.join(', ')}`);
    }
    headers[name] = value;
  }

  const users = new Map<string, string>();
  for (const [user, hash] of Object.entries(c.basic_auth_users ?? {})) {
    if (!BCRYPT_HASH.test(hash)) fail(path, `basic_auth_users.${user}: not a bcrypt hash`);
    users.set(user, hash);
  }

  let rateLimit: WebConfig['rateLimit'];
  if (c.rate_limit?.interval !== undefined) {
    const intervalMs = parseGoDuration(c.rate_limit.interval);
    if (intervalMs === undefined) fail(path, `rate_limit.interval: "${c.rate_limit.interval}" is not a duration such as 1s`);
    if (intervalMs > 0) rateLimit = { intervalMs, burst: c.rate_limit.burst ?? 0 };
  }

  const t = c.tls_server_config;
  const tlsEnabled = !!t && !!(t.cert_file || t.cert || t.key_file || t.key || t.client_ca_file || t.client_ca || t.client_auth_type);
  if (!t || !tlsEnabled) return { headers, users, ...(rateLimit ? { rateLimit } : {}) };

  if (!t.cert_file && !t.cert) fail(path, 'tls_server_config: missing one of cert or cert_file');
  if (!t.key_file && !t.key) fail(path, 'tls_server_config: missing one of key or key_file');
  const clientAuth: ClientAuthType =
    t.client_auth_type === 'RequireClientCert' ? 'RequireAnyClientCert' : (t.client_auth_type ?? 'NoClientCert');
  if ((t.client_ca_file || t.client_ca) && clientAuth === 'NoClientCert') {
    fail(path, 'tls_server_config: client_ca_file is set but client_auth_type is NoClientCert');
  }
  if (t.client_allowed_sans && clientAuth !== 'RequireAnyClientCert' && clientAuth !== 'RequireAndVerifyClientCert') {
    fail(path, 'tls_server_config.client_allowed_sans: needs client_auth_type RequireAnyClientCert or RequireAndVerifyClientCert');
  }
  const minVersion = TLS_VERSIONS[t.min_version ?? 'TLS12'] ?? 'TLSv1.2';
  const maxVersion = TLS_VERSIONS[t.max_version ?? 'TLS13'] ?? 'TLSv1.3';
  let ciphers: string | undefined;
  if (t.cipher_suites?.length) {
    const names = t.cipher_suites.map((s) => {
      const name = CIPHERS[s];
      if (name === undefined) fail(path, `tls_server_config.cipher_suites: unknown cipher "${s}"`);
      return name;
    });
    ciphers = [...names.filter((n): n is string => n !== null), TLS13_SUITES].join(':');
  }
  let ecdhCurve: string | undefined;
  if (t.curve_preferences?.length) {
    ecdhCurve = t.curve_preferences
      .map((s) => CURVES[s] ?? fail(path, `tls_server_config.curve_preferences: unknown curve "${s}"`))
      .join(':');
  }
  const tls: WebTlsConfig = {
    clientAuth,
    minVersion,
    maxVersion,
    honorCipherOrder: t.prefer_server_cipher_suites ?? true,
    ...(t.cert_file ? { certFile: abs(t.cert_file) } : t.cert ? { cert: t.cert } : {}),
    ...(t.key_file ? { keyFile: abs(t.key_file) } : t.key ? { key: t.key } : {}),
    ...(t.client_ca_file ? { clientCaFile: abs(t.client_ca_file) } : t.client_ca ? { clientCa: t.client_ca } : {}),
    ...(ciphers ? { ciphers } : {}),
    ...(ecdhCurve ? { ecdhCurve } : {}),
    ...(t.client_allowed_sans ? { clientAllowedSans: t.client_allowed_sans } : {}),
  };
  return { tls, headers, users, ...(rateLimit ? { rateLimit } : {}) };
}

/** File access, injectable for tests. */
export interface WebConfigFs {
  readFile(path: string): Promise<Buffer>;
  /** A string that changes when the file changes (mtime, size, inode). */
  fingerprint(path: string): Promise<string>;
}

/** The real file system. */
export const nodeWebConfigFs: WebConfigFs = {
  readFile: (path) => fsReadFile(path),
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

function tlsFiles(config: WebConfig): string[] {
  const t = config.tls;
  return t ? [t.certFile, t.keyFile, t.clientCaFile].filter((p): p is string => !!p) : [];
}

/** Reads the file and the TLS files it names; throws one-line WebConfigErrors. */
export async function loadWebConfig(path: string, fs: WebConfigFs = nodeWebConfigFs): Promise<LoadedWebConfig> {
  const read = async (file: string, setting: string): Promise<Buffer> => {
    try {
      return await fs.readFile(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'read error';
      return fail(path, `${setting} ${file}: ${code}`);
    }
  };
  const config = parseWebConfig((await read(path, 'file')).toString('utf8'), path);
  const t = config.tls;
  if (!t) return { config };
  const cert = t.certFile ? await read(t.certFile, 'cert_file') : Buffer.from(t.cert ?? '');
  const key = t.keyFile ? await read(t.keyFile, 'key_file') : Buffer.from(t.key ?? '');
  const ca = t.clientCaFile ? await read(t.clientCaFile, 'client_ca_file') : t.clientCa ? Buffer.from(t.clientCa) : undefined;
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

/** Outcome of a reload attempt, for the reload metric and logs. */
export type ReloadResult = { ok: true; config: LoadedWebConfig } | { ok: false; error: WebConfigError };

/** Options of createWebConfigSource. */
export interface WebConfigSourceOptions {
  path: string;
  clock: Clock;
  /** Files are stat'ed at most this often (on request). @default 1000 */
  recheckMs?: number;
  fs?: WebConfigFs;
  /** Vetoes a reloaded configuration: returns why it cannot be applied, or undefined. */
  accept?: (next: LoadedWebConfig) => string | undefined;
  onReload?: (result: ReloadResult) => void;
}

/** The current web configuration, re-read when the file or a file it names changes. */
export interface WebConfigSource {
  /** The configuration in force, without checking the files. */
  latest(): LoadedWebConfig;
  /** The configuration in force: the last one that loaded. Checks the files when the recheck period has passed. */
  current(): Promise<LoadedWebConfig>;
}

/**
 * Loads the configuration once (throwing on error: a bad file at startup is fatal) and returns a
 * source that re-reads it when its files change; `onReload` hears about every later reload. A bad
 * file later keeps the previous configuration.
 */
export async function createWebConfigSource(options: WebConfigSourceOptions): Promise<WebConfigSource> {
  const fs = options.fs ?? nodeWebConfigFs;
  const recheckMs = options.recheckMs ?? 1000;
  const fingerprintOf = async (config: WebConfig | undefined): Promise<string> => {
    const files = [options.path, ...(config ? tlsFiles(config) : [])];
    const prints = await Promise.all(files.map((f) => fs.fingerprint(f).catch(() => 'missing')));
    return prints.join('|');
  };

  let loaded = await loadWebConfig(options.path, fs);
  let lastPrint = await fingerprintOf(loaded.config);
  let lastCheck = options.clock.now();
  let checking: Promise<LoadedWebConfig> | undefined;

  const check = async (): Promise<LoadedWebConfig> => {
    const print = await fingerprintOf(loaded.config);
    if (print === lastPrint) return loaded;
    lastPrint = print;
    try {
      const next = await loadWebConfig(options.path, fs);
      // The new file may name other TLS files: fingerprint those from now on.
      lastPrint = await fingerprintOf(next.config);
      const veto = options.accept?.(next);
      if (veto !== undefined) fail(options.path, veto);
      loaded = next;
      options.onReload?.({ ok: true, config: next });
    } catch (err) {
      const error = err instanceof WebConfigError ? err : new WebConfigError(`web config ${options.path}: ${String(err)}`);
      options.onReload?.({ ok: false, error });
    }
    return loaded;
  };

  return {
    latest: () => loaded,
    current(): Promise<LoadedWebConfig> {
      if (checking) return checking;
      if (options.clock.now() - lastCheck < recheckMs) return Promise.resolve(loaded);
      lastCheck = options.clock.now();
      checking = check().finally(() => {
        checking = undefined;
      });
      return checking;
    },
  };
}

// A bcrypt hash of a throwaway password: unknown users cost as much time as known ones.
const DECOY_HASH = '$2b$10$oQHOHPW0qVQ6NuuuBqdbguikS2n8v4YVQe1PfeOaMNmk6pNswQetK';

/** Checks HTTP basic auth against bcrypt hashes, running bcrypt once per distinct credential. */
export interface BasicAuth {
  /** True when `authorization` carries a user of `users` with the right password. */
  check(users: ReadonlyMap<string, string>, authorization: string | undefined): Promise<boolean>;
}

/** Options of createBasicAuth. */
export interface BasicAuthOptions {
  /** @default 1024 */
  maxCacheEntries?: number;
  /** bcrypt comparison; injectable so tests can count calls. @default bcryptjs compare */
  compare?: (password: string, hash: string) => Promise<boolean>;
}

/** Creates a basic-auth checker with a bounded cache of verification outcomes. */
export function createBasicAuth(options: BasicAuthOptions = {}): BasicAuth {
  const maxCacheEntries = options.maxCacheEntries ?? 1024;
  const compare = options.compare ?? ((password: string, hash: string) => bcrypt.compare(password, hash));
  const cache = new Map<string, boolean>();
  // bcrypt is CPU-heavy: run one comparison at a time.
  let queue: Promise<unknown> = Promise.resolve();

  return {
    async check(users, authorization) {
      const m = /^basic\s+(\S+)\s*$/i.exec(authorization ?? '');
      if (!m?.[1]) return false;
      const decoded = Buffer.from(m[1], 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return false;
      const user = decoded.slice(0, colon);
      const password = decoded.slice(colon + 1);
      const hash = users.get(user);
      // Keyed by a digest so that the cache never holds a password in clear.
      const key = createHash('sha256').update(`${user}\u0000${hash ?? ''}\u0000${password}`).digest('base64');
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      const run = queue.then(() => compare(password, hash ?? DECOY_HASH));
      queue = run.catch(() => false);
      const ok = (await run.catch(() => false)) && hash !== undefined;
      if (cache.size >= maxCacheEntries) {
        const oldest = cache.keys().next();
        if (!oldest.done) cache.delete(oldest.value);
      }
      cache.set(key, ok);
      return ok;
    },
  };
}
