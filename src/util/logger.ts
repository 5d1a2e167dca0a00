import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { pino, type DestinationStream, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';

// pino-pretty and its dependencies are loaded only for --log.format=pretty: JSON logging (the default) does not pay
// for them (idle, bench/base-mem.mjs: heap used −0.3 MB).
const require = createRequire(import.meta.url);

/** Log settings. */
export interface LogConfig {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
  format: 'json' | 'pretty';
}

const CENSOR = '[redacted]';

// Static paths for pino's redaction, the common shapes of our log calls. Leading wildcards (`*.token`) are left out
// on purpose: with them every line cost ~140 µs instead of ~5 µs (measured); censorSecrets covers any depth instead.
const SECRET_KEYS = [
  'authorization',
  'token',
  'access_token',
  'accessToken',
  'refresh_token',
  'id_token',
  'password',
  'secret',
  'client_secret',
  'clientSecret',
  'CRIBL_TOKEN',
  'CRIBL_PASSWORD',
  'CRIBL_CLIENT_SECRET',
] as const;
const SECRET_HEADERS = [
  'authorization',
  'Authorization',
  'cookie',
  '["set-cookie"]',
  '["proxy-authorization"]',
] as const;
const HEADER_HOLDERS = ['headers', 'req.headers', 'request.headers', 'res.headers', 'response.headers'] as const;
const member = (key: string): string => (key.startsWith('[') ? key : `.${key}`);

/** The pino redaction paths: secret keys at the top and under `auth`, and secret headers where headers usually sit. */
export const REDACT_PATHS: readonly string[] = Object.freeze([
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `auth.${k}`),
  ...HEADER_HOLDERS.flatMap((h) => SECRET_HEADERS.map((k) => `${h}${member(k)}`)),
]);

/**
 * Key names whose values are credentials, at any depth: auth headers and anything ending in secret, password or token.
 */
export const SECRET_KEY =
  /^(?:authorization|proxy-authorization|cookie|set-cookie)$|(?:secret|password|passwd|token|api[-_]?key)$/i;

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * Returns `value` with every SECRET_KEY value replaced by [redacted], at any depth of plain objects and arrays.
 * Copies only what changes, so the caller's objects are never mutated and clean lines cost no allocation.
 */
export function censorSecrets<T>(value: T, depth = 0): T {
  if (depth > 10) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item: unknown, i) => {
      const censored = censorSecrets(item, depth + 1);
      if (censored !== item) (out ??= value.slice())[i] = censored;
    });
    return (out ?? value) as T;
  }
  if (!isPlainObject(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const item = value[key];
    const censored = SECRET_KEY.test(key) && item !== undefined ? CENSOR : censorSecrets(item, depth + 1);
    if (censored !== item) (out ??= { ...value })[key] = censored;
  }
  return (out ?? value) as T;
}

/** Creates the process logger: JSON lines by default, pretty for humans, secrets always replaced by [redacted]. */
export function createLogger(config: LogConfig, destination?: DestinationStream): Logger {
  const options = {
    level: config.level,
    redact: { paths: [...REDACT_PATHS], censor: CENSOR },
    // pid and hostname are the orchestrator's business; level names read better than numbers in log stores.
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label: string) => ({ level: label }),
      log: (object: Record<string, unknown>) => censorSecrets(object),
      bindings: (bindings: Record<string, unknown>) => censorSecrets(bindings),
    },
  };
  if (config.format === 'pretty') {
    // Synchronous so that the last lines before an exit are not lost; pretty output is for humans, not throughput.
    const { build } = require('pino-pretty') as typeof PinoPretty;
    const stream = build({ sync: true, destination: asStream(destination) ?? 1, translateTime: 'SYS:standard' });
    return pino(options, stream);
  }
  return destination ? pino(options, destination) : pino(options);
}

/**
 * The logger with `leader` bound, unless it already is: every layer that logs for a leader (app, client,
 * transport) may ask, and a JSON line still carries one `leader` key (pino writes each child's bindings again).
 */
export function forLeader(logger: Logger, leader: string | undefined): Logger {
  if (leader === undefined) return logger;
  const bound = typeof logger.bindings === 'function' ? logger.bindings() : {};
  return bound.leader === leader ? logger : logger.child({ leader });
}

/** pino-pretty pipes into its destination: a bare `{ write }` (tests, the demo's callers) becomes a Writable. */
function asStream(destination: DestinationStream | undefined): NodeJS.WritableStream | undefined {
  if (destination === undefined || 'on' in destination) return destination as NodeJS.WritableStream | undefined;
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      destination.write(chunk.toString());
      callback();
    },
  });
}
