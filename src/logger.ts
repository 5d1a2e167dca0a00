import { pino, type DestinationStream, type Logger } from 'pino';
import PinoPretty from 'pino-pretty';
import type { LogConfig } from './config/types.js';

// Keys whose values are credentials wherever they appear. pino's redaction needs static paths, so each key is
// listed at the depths our log calls use (`{ token }`, `{ auth: { token } }`, `{ leader: { auth: { token } } }`).
const SECRET_KEYS = [
  'authorization',
  'Authorization',
  'cookie',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'idToken',
  'id_token',
  'bearerToken',
  'authToken',
  'apiToken',
  'sessionToken',
  'password',
  'passwd',
  'secret',
  'clientSecret',
  'client_secret',
  'CRIBL_TOKEN',
  'CRIBL_PASSWORD',
  'CRIBL_CLIENT_SECRET',
] as const;

const SECRET_HEADERS = ['authorization', 'Authorization', 'cookie', '["set-cookie"]', '["proxy-authorization"]'] as const;

const DEPTHS = ['', '*.', '*.*.'] as const;

const member = (key: string): string => (key.startsWith('[') ? key : `.${key}`);

/** The pino redaction paths: secret keys at depths 0-2 and secret request/response headers at depths 0-2. */
export const REDACT_PATHS: readonly string[] = Object.freeze([
  ...DEPTHS.flatMap((d) => SECRET_KEYS.map((k) => `${d}${k}`)),
  ...DEPTHS.flatMap((d) => SECRET_HEADERS.map((h) => `${d}headers${member(h)}`)),
]);

/** Creates the process logger: JSON lines by default, pretty for humans, secrets always replaced by [redacted]. */
export function createLogger(config: LogConfig, destination?: DestinationStream): Logger {
  const options = {
    level: config.level,
    redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
    // pid and hostname are the orchestrator's business; level names read better than numbers in log stores.
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  if (config.format === 'pretty') {
    // Synchronous so that the last lines before an exit are not lost; pretty output is for humans, not throughput.
    const stream = PinoPretty({ sync: true, destination: destination ?? 1, translateTime: 'SYS:standard' });
    return pino(options, stream);
  }
  return destination ? pino(options, destination) : pino(options);
}
