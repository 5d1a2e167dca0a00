import { parseDuration } from '@cribl-exporter/api/duration';
import { ValueError } from '@cribl-exporter/api/errors';
import { parseListenAddress } from '@cribl-exporter/api/listen-address';
import { parseBytes } from '@cribl-exporter/api/size';
import { withoutCredentials } from '../util/url.js';

/** A setting's value as given: a string (flag, env, file scalar), a boolean (flag, file) or a list (file). */
export type Raw = string | boolean | readonly string[];

const show = (raw: Raw): string => JSON.stringify(raw);

/** A non-empty string. */
export function asString(raw: Raw): string {
  if (typeof raw !== 'string') throw new ValueError(`${show(raw)} must be a string`);
  if (raw.trim() === '') throw new ValueError('must not be empty');
  return raw;
}

/** true/false (also 1/0, as environment variables often say). */
export function asBool(raw: Raw): boolean {
  if (typeof raw === 'boolean') return raw;
  if (typeof raw === 'string') {
    const v = raw.trim().toLowerCase();
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
  }
  throw new ValueError(`${show(raw)} is not a boolean (use true or false)`);
}

/** A duration greater than zero, in ms. */
export function asDuration(raw: Raw): number {
  const ms = parseDuration(asString(raw).trim());
  if (ms <= 0) throw new ValueError(`${show(raw)} must be greater than 0`);
  return ms;
}

/**
 * The shortest interval a setting admits. Below it nothing works: a discovery every millisecond never ends one, a
 * health interval of 1 ms asks the leader for 1,000 polls per second and node.
 */
export const MIN_INTERVAL_MS = 1000;

/** An interval (how often something is done), in ms: a duration of at least MIN_INTERVAL_MS. */
export function asInterval(raw: Raw): number {
  const ms = asDuration(raw);
  if (ms < MIN_INTERVAL_MS) throw new ValueError(`${show(raw)} is too short: an interval must be at least 1s`);
  return ms;
}

/** A size greater than zero, in bytes. */
export function asBytes(raw: Raw): number {
  const bytes = parseBytes(asString(raw));
  if (bytes <= 0) throw new ValueError(`${show(raw)} must be greater than 0`);
  return bytes;
}

/** An integer ≥ min. */
export function asInt(raw: Raw, min: number): number {
  const text = asString(raw).trim();
  const n = /^-?\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n)) throw new ValueError(`${show(raw)} is not an integer`);
  if (n < min) throw new ValueError(`${show(raw)} must be at least ${min}`);
  return n;
}

/** A decimal number greater than zero. */
export function asPositiveNumber(raw: Raw): number {
  const text = asString(raw).trim();
  const n = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(n)) throw new ValueError(`${show(raw)} is not a number`);
  if (n <= 0) throw new ValueError(`${show(raw)} must be greater than 0`);
  return n;
}

/** One of `values`. */
export function asEnum<T extends string>(raw: Raw, values: readonly T[]): T {
  const text = asString(raw).trim();
  const found = values.find((v) => v === text);
  if (found === undefined) throw new ValueError(`${show(raw)} is not one of ${values.join(', ')}`);
  return found;
}

/** A non-empty, duplicate-free list of `values`, from a comma-separated string or a YAML list. */
export function asList<T extends string>(raw: Raw, values: readonly T[], noun: string): readonly T[] {
  if (typeof raw === 'boolean') throw new ValueError(`${show(raw)} must be a comma-separated list`);
  const items = (typeof raw === 'string' ? raw.split(',') : raw).map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw new ValueError(`must list at least one ${noun} (${values.join(', ')})`);
  const out: T[] = [];
  for (const item of items) {
    const found = values.find((v) => v === item);
    if (found === undefined)
      throw new ValueError(`${JSON.stringify(item)} is not a ${noun} (use ${values.join(', ')})`);
    if (!out.includes(found)) out.push(found);
  }
  return out;
}

/** An http(s) URL without credentials, query or fragment. */
export function asHttpUrl(raw: Raw, opts: { allowCredentials?: boolean } = {}): URL {
  const text = asString(raw).trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ValueError(`${JSON.stringify(withoutCredentials(text))} is not a URL (use e.g. https://host:9000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValueError(`${JSON.stringify(withoutCredentials(text))} must be an http(s) URL`);
  }
  if (!opts.allowCredentials && (url.username !== '' || url.password !== '')) {
    throw new ValueError('must not contain a user or password (use the token or password settings)');
  }
  return url;
}

/** The leader's global-context base URL: http(s), ending in /api/v1 (a trailing slash is dropped). */
export function asLeaderUrl(raw: Raw): string {
  const text = asString(raw).trim();
  const bad = new ValueError(`${JSON.stringify(withoutCredentials(text))} must be an http(s) URL ending in /api/v1`);
  let url: URL;
  try {
    url = asHttpUrl(text);
  } catch (e) {
    if (e instanceof ValueError && e.message.startsWith('must not contain')) throw e;
    throw bad;
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/api/v1') || url.search !== '' || url.hash !== '') throw bad;
  return `${url.origin}${path}`;
}

/**
 * One or more leader URLs (as asLeaderUrl each), from a comma-separated string, a YAML list or a repeated flag; no
 * two with the same host:port.
 */
export function asLeaderUrls(raw: Raw): readonly string[] {
  if (typeof raw === 'boolean') throw new ValueError(`${show(raw)} must be a URL or a list of URLs`);
  const items = (typeof raw === 'string' ? [raw] : raw).flatMap((s) => s.split(',')).map((s) => s.trim());
  const urls = items.filter((s) => s !== '').map((s) => asLeaderUrl(s));
  if (urls.length === 0) throw new ValueError('must list at least one URL');
  const seen = new Set<string>();
  for (const u of urls) {
    const host = new URL(u).host;
    if (seen.has(host)) throw new ValueError(`${JSON.stringify(host)} is listed twice`);
    seen.add(host);
  }
  return urls;
}

/** host:port to listen on; the host may be empty (all interfaces) or a bracketed IPv6 address. */
export function asListenAddress(raw: Raw): string {
  const text = asString(raw).trim();
  parseListenAddress(text);
  return text;
}

/** A URL path for metrics: starts with /, is not / itself and is not one of the fixed routes. */
export function asTelemetryPath(raw: Raw): string {
  const text = asString(raw).trim();
  if (!text.startsWith('/') || text === '/' || /[\s?#]/.test(text)) {
    throw new ValueError(`${show(raw)} must be a path starting with / (e.g. /metrics), not / itself`);
  }
  if (text === '/healthz' || text === '/readyz') throw new ValueError(`${show(raw)} is reserved for the probes`);
  return text;
}

/** A DNS domain such as cribl.cloud. */
export function asDomain(raw: Raw): string {
  const text = asString(raw).trim().toLowerCase();
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(text)) {
    throw new ValueError(`${show(raw)} is not a domain (e.g. cribl.cloud)`);
  }
  return text;
}

/** A Cribl.Cloud workspace ID: lower-case letters and digits (the management plane's own rule). */
export function asWorkspace(raw: Raw): string {
  const text = asString(raw).trim();
  if (!/^[a-z0-9]+$/.test(text))
    throw new ValueError(`${show(raw)} is not a workspace ID (lower-case letters and digits)`);
  return text;
}

/** A Cribl.Cloud organization ID: lower-case letters, digits and hyphens. */
export function asOrganization(raw: Raw): string {
  const text = asString(raw).trim();
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(text)) {
    throw new ValueError(`${show(raw)} is not an organization ID (lower-case letters, digits and hyphens)`);
  }
  return text;
}

/** The ordinal at the end of a StatefulSet pod name (`cribl-exporter-3` → 3). */
export function asPodOrdinal(raw: Raw): number {
  const text = asString(raw).trim();
  const match = /-(\d+)$/.exec(text);
  const n = match ? Number(match[1]) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw new ValueError(`${show(raw)} does not end in -<ordinal> like a StatefulSet pod name (cribl-exporter-3)`);
  }
  return n;
}

/** An interval (at least 1s), or 0 (off). */
export function asIntervalOrOff(raw: Raw): number {
  return typeof raw === 'string' && /^\s*0+(?:\.0*)?(?:ms|s|m|h|d)?\s*$/.test(raw) ? 0 : asInterval(raw);
}
