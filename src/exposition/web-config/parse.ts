/**
 * `--web.config.file`: the Prometheus exporter-toolkit web configuration (TLS, mTLS, basic auth,
 * security headers, rate limit), same YAML schema so operators can reuse their files. Relative
 * paths are resolved against the file's directory, as the toolkit does. Unknown keys are errors.
 */

import { dirname, resolve } from 'node:path';
import type { SecureVersion } from 'node:tls';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { parseGoDuration } from '@cribl-exporter/api/duration';

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

const CURVES: Readonly<Record<string, string>> = {
  CurveP256: 'P-256',
  CurveP384: 'P-384',
  CurveP521: 'P-521',
  X25519: 'X25519',
};

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

/**
 * The highest bcrypt cost admitted. Each step doubles the time of a comparison: at 14 one takes about a second on
 * a current core; at 31 one takes days, so a few requests for that user would hold the CPU and lock the real user
 * out (every failure waits as long as a comparison at the highest cost, src/exposition/basic-auth.ts).
 */
export const MAX_BCRYPT_COST = 14;

const optionalString = z.string().optional();

const schema = z.strictObject({
  tls_server_config: z
    .strictObject({
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
    })
    .nullish(),
  http_server_config: z
    .strictObject({
      http2: z.boolean().optional(),
      headers: z.record(z.string(), z.string()).nullish(),
    })
    .nullish(),
  basic_auth_users: z.record(z.string(), z.string()).nullish(),
  rate_limit: z
    .strictObject({
      burst: z.number().int().nonnegative().optional(),
      interval: optionalString,
    })
    .nullish(),
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

export function fail(source: string, message: string): never {
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

/** The file as the schema read it. */
type Parsed = z.infer<typeof schema>;

/**
 * Parses and validates the YAML text of a web configuration file. `path` names the file in errors
 * and anchors relative paths. Throws a one-line WebConfigError; never echoes secret values.
 */
export function parseWebConfig(text: string, path: string): WebConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    fail(path, `invalid YAML: ${(err instanceof Error ? err.message : String(err)).split('\n')[0] ?? ''}`);
  }
  // An editor or a config sync that empties the file while it writes it must not switch basic auth off.
  if (raw === null || raw === undefined) {
    fail(path, 'the file is empty (to serve without TLS and basic auth, leave out --web.config.file)');
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) fail(path, describeIssue(parsed.error.issues[0] as z.core.$ZodIssue));
  const c = parsed.data;
  const headers = parseHeaders(c, path);
  // The toolkit serves HTTP/2 over TLS when `http2` is true (its default). This server speaks HTTP/1.1 only, so an
  // explicit `http2: true` is refused rather than silently ignored; `false` is what it does anyway.
  if (c.http_server_config?.http2 === true) {
    fail(
      path,
      'http_server_config.http2: true is not supported (this exporter serves HTTP/1.1); remove it or set false',
    );
  }
  const users = parseUsers(c, path);
  const rateLimit = parseRateLimit(c, path);
  const tls = parseTls(c.tls_server_config, path);
  return { ...(tls ? { tls } : {}), headers, users, ...(rateLimit ? { rateLimit } : {}) };
}

/** `http_server_config.headers`: only the headers the toolkit allows, with the values it allows. */
function parseHeaders(c: Parsed, path: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(c.http_server_config?.headers ?? {})) {
    if (!(name in ALLOWED_HEADERS)) fail(path, `http_server_config.headers: header "${name}" can not be configured`);
    const allowed = ALLOWED_HEADERS[name];
    if (allowed && !allowed.includes(value)) {
      fail(path, `http_server_config.headers.${name}: expected one of ${allowed.join(', ')}`);
    }
    headers[name] = value;
  }
  return headers;
}

/** `basic_auth_users`: names that can log in, bcrypt hashes of a bounded cost. */
function parseUsers(c: Parsed, path: string): Map<string, string> {
  const users = new Map<string, string>();
  for (const [user, hash] of Object.entries(c.basic_auth_users ?? {})) {
    // RFC 7617: the user-id ends at the first colon, so a name with one (or an empty one) can never log in.
    if (user === '') fail(path, 'basic_auth_users: an empty user name can never log in');
    if (user.includes(':')) fail(path, `basic_auth_users: user name "${user}" contains ":" and can never log in`);
    if (!BCRYPT_HASH.test(hash)) fail(path, `basic_auth_users.${user}: not a bcrypt hash`);
    const cost = Number(hash.split('$')[2]);
    if (cost > MAX_BCRYPT_COST) {
      fail(
        path,
        `basic_auth_users.${user}: bcrypt cost ${cost} is above ${MAX_BCRYPT_COST} (each step doubles the CPU time ` +
          `of every login, failed ones too); hash the password again with a cost of ${MAX_BCRYPT_COST} or less`,
      );
    }
    users.set(user, hash);
  }
  return users;
}

/** `rate_limit`: none unless its interval is a duration above 0. */
function parseRateLimit(c: Parsed, path: string): WebConfig['rateLimit'] {
  if (c.rate_limit?.interval === undefined) return undefined;
  const intervalMs = parseGoDuration(c.rate_limit.interval);
  if (intervalMs === undefined)
    fail(path, `rate_limit.interval: "${c.rate_limit.interval}" is not a duration such as 1s`);
  return intervalMs > 0 ? { intervalMs, burst: c.rate_limit.burst ?? 0 } : undefined;
}

/** `tls_server_config`: undefined when it turns nothing of TLS on; else certificate, key, client auth, suites. */
function parseTls(t: Parsed['tls_server_config'], path: string): WebTlsConfig | undefined {
  const tlsEnabled =
    !!t && !!(t.cert_file || t.cert || t.key_file || t.key || t.client_ca_file || t.client_ca || t.client_auth_type);
  if (!t || !tlsEnabled) return undefined;
  const dir = dirname(path);
  const abs = (p: string | undefined): string | undefined => (p ? resolve(dir, p) : undefined);

  if (!t.cert_file && !t.cert) fail(path, 'tls_server_config: missing one of cert or cert_file');
  if (!t.key_file && !t.key) fail(path, 'tls_server_config: missing one of key or key_file');
  const clientAuth: ClientAuthType =
    t.client_auth_type === 'RequireClientCert' ? 'RequireAnyClientCert' : (t.client_auth_type ?? 'NoClientCert');
  if ((t.client_ca_file || t.client_ca) && clientAuth === 'NoClientCert') {
    fail(path, 'tls_server_config: client_ca_file is set but client_auth_type is NoClientCert');
  }
  if (t.client_allowed_sans && clientAuth !== 'RequireAnyClientCert' && clientAuth !== 'RequireAndVerifyClientCert') {
    fail(
      path,
      'tls_server_config.client_allowed_sans: needs client_auth_type RequireAnyClientCert or ' +
        'RequireAndVerifyClientCert',
    );
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
  return tls;
}
