/**
 * How long a leader asked us to wait: `retry-after-ms`, and `Retry-After` in both of its RFC 9110 forms
 * (delta-seconds and HTTP-date). Pure: the current time is an argument.
 */

/** Response headers as undici hands them over (lower-case names; repeated headers as arrays). */
export type ResponseHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

// The three HTTP-date forms of RFC 9110 §5.6.7. Parsed by hand because Date.parse reads asctime as local
// time and accepts garbage such as "1" (the year 2001).
const IMF_FIXDATE = /^[a-z]{3}, (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt$/;
const RFC850_DATE = /^[a-z]{6,9}, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt$/;
const ASCTIME_DATE = /^[a-z]{3} ([a-z]{3}) (\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * Milliseconds to wait before the next request, or undefined when no header gives a usable delay.
 * When several values are present (both headers, or a repeated header) the longest wins, so a server's
 * delay is never shortened. A date in the past means 0. Non-numeric, negative or non-finite values are ignored.
 */
export function parseRetryAfter(headers: ResponseHeaders, nowMs: number): number | undefined {
  let longest: number | undefined;
  const consider = (ms: number | undefined): void => {
    if (ms !== undefined && (longest === undefined || ms > longest)) longest = ms;
  };
  for (const value of headerValues(headers, 'retry-after-ms')) consider(delay(value, 1));
  for (const value of headerValues(headers, 'retry-after')) consider(parseRetryAfterValue(value, nowMs));
  return longest;
}

/** One `Retry-After` value (delta-seconds or HTTP-date) as milliseconds from `nowMs`; undefined when unusable. */
export function parseRetryAfterValue(value: string, nowMs: number): number | undefined {
  const seconds = delay(value, 1000);
  if (seconds !== undefined) return seconds;
  const at = parseHttpDate(value, nowMs);
  return at === undefined ? undefined : Math.max(0, at - nowMs);
}

/** A non-negative decimal number of `unitMs`, in whole milliseconds; undefined when it is not one. */
function delay(value: string, unitMs: number): number | undefined {
  const v = value.trim();
  const ms = /^\d+(\.\d+)?$/.test(v) ? Number(v) * unitMs : NaN;
  return Number.isFinite(ms) ? Math.ceil(ms) : undefined;
}

/**
 * An RFC 9110 HTTP-date as epoch ms; undefined when it is not one of the three forms or not a real date.
 * `nowMs` resolves the century of the obsolete two-digit-year form.
 */
export function parseHttpDate(value: string, nowMs: number): number | undefined {
  // asctime pads single-digit days with a second space; collapsing whitespace keeps one pattern for both.
  const v = value.trim().toLowerCase().replace(/\s+/g, ' ');
  let m = IMF_FIXDATE.exec(v);
  if (m) return utc(m[3], m[2], m[1], m[4], m[5], m[6]);
  m = RFC850_DATE.exec(v);
  if (m) {
    // RFC 9110: a two-digit year that looks more than 50 years in the future is in the past century.
    const yy = Number(m[3]);
    const thisYear = new Date(nowMs).getUTCFullYear();
    let year = 2000 + yy;
    if (year > thisYear + 50) year -= 100;
    return utc(String(year), m[2], m[1], m[4], m[5], m[6]);
  }
  m = ASCTIME_DATE.exec(v);
  if (m) return utc(m[6], m[1], m[2], m[3], m[4], m[5]);
  return undefined;
}

/** Epoch ms of year, month (its name), day, hour, minute and second, as the date patterns capture them. */
function utc(...parts: (string | undefined)[]): number | undefined {
  const mon = MONTHS.indexOf(parts[1] ?? '');
  const [y, , d, h, mi, s] = parts.map(Number) as [number, number, number, number, number, number];
  if (mon < 0 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return undefined;
  const ms = Date.UTC(y, mon, d, h, mi, Math.min(s, 59));
  // Reject dates that Date.UTC would roll over (31 Feb → 3 Mar).
  if (new Date(ms).getUTCDate() !== d) return undefined;
  return ms;
}

function headerValues(headers: ResponseHeaders, name: string): readonly string[] {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    // A repeated header may also arrive joined by commas; only delta-seconds can be split safely.
    const list = typeof value === 'string' ? [value] : value;
    return list.flatMap((v) => (/^[\d.,\s]+$/.test(v) ? v.split(',') : [v]));
  }
  return [];
}
