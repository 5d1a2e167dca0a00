/**
 * Content negotiation for /metrics: the format from Accept (q-weights, versions, wildcards) and
 * gzip from Accept-Encoding. We offer Prometheus text 0.0.4 and OpenMetrics 1.0.0; anything else
 * falls back to text 0.0.4, as the Prometheus content-negotiation guide asks.
 *
 * Hand-written instead of `negotiator` or `@hapi/accept`: on Prometheus 3's default Accept
 * (`application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,…,text/plain;version=0.0.4;q=0.3,…`)
 * both pick text 0.0.4 (checked with negotiator 1.0 and @hapi/accept 6.0), because they require every parameter
 * of a range (`escaping`) to match the offer; Prometheus means OpenMetrics 1.0.0 there. Without parameters in the
 * offers @hapi/accept returns the range itself, losing the version we must answer with.
 */

import type { Format } from '../format/format.js';

interface Range {
  type: string;
  subtype: string;
  params: Map<string, string>;
  q: number;
  order: number;
}

interface Offer {
  format: Format;
  type: string;
  subtype: string;
  version: string;
}

const OFFERS: readonly Offer[] = [
  { format: 'text', type: 'text', subtype: 'plain', version: '0.0.4' },
  { format: 'openmetrics', type: 'application', subtype: 'openmetrics-text', version: '1.0.0' },
];

/** Splits on commas outside quoted strings. */
function splitList(header: string, separator: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (const c of header) {
    if (c === '"') quoted = !quoted;
    if (c === separator && !quoted) {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/** Parses q (default 1); undefined when malformed. */
function parseQ(value: string | undefined): number | undefined {
  if (value === undefined) return 1;
  if (!/^\s*(0(\.\d{0,3})?|1(\.0{0,3})?)\s*$/.test(value)) return undefined;
  return Number(value);
}

function parseAccept(header: string): Range[] {
  const ranges: Range[] = [];
  splitList(header, ',').forEach((item, order) => {
    const [mediaType = '', ...rawParams] = splitList(item, ';');
    const [type = '', subtype = ''] = mediaType.toLowerCase().split('/', 2);
    if (!type || !subtype) return;
    const params = new Map<string, string>();
    for (const p of rawParams) {
      const m = /^([^=]*)=(.*)$/s.exec(p);
      if (m) params.set(m[1]!.trim().toLowerCase(), m[2]!.trim().replace(/^"(.*)"$/, '$1'));
    }
    const q = parseQ(params.get('q'));
    if (q === undefined) return;
    params.delete('q');
    ranges.push({ type, subtype, params, q, order });
  });
  return ranges;
}

/** How specifically `range` names `offer` (higher wins), or -1 when it does not match it. */
function specificity(range: Range, offer: Offer): number {
  if (range.type === '*') return range.subtype === '*' ? 0 : -1;
  if (range.type !== offer.type) return -1;
  if (range.subtype === '*') return 1;
  if (range.subtype !== offer.subtype) return -1;
  const version = range.params.get('version');
  if (version === undefined) return 2;
  return version === offer.version ? 3 : -1;
}

/** Picks the exposition format for an Accept header: the supported one with the highest q. */
export function negotiateFormat(accept: string | undefined): Format {
  if (!accept) return 'text';
  const ranges = parseAccept(accept);
  let best: { format: Format; q: number; order: number } | undefined;
  for (const offer of OFFERS) {
    // The most specific range that matches an offer decides its q (RFC 9110 §12.5.1).
    let decisive: Range | undefined;
    let decisiveSpecificity = -1;
    for (const range of ranges) {
      const s = specificity(range, offer);
      if (s > decisiveSpecificity) {
        decisive = range;
        decisiveSpecificity = s;
      }
    }
    if (!decisive || decisive.q <= 0) continue;
    // Ties go to the range the client listed first; OFFERS order (text first) breaks the rest.
    if (!best || decisive.q > best.q || (decisive.q === best.q && decisive.order < best.order)) {
      best = { format: offer.format, q: decisive.q, order: decisive.order };
    }
  }
  return best?.format ?? 'text';
}

/** True when Accept-Encoding allows gzip and does not explicitly prefer the identity encoding. */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  const qs = new Map<string, number>();
  for (const item of splitList(acceptEncoding, ',')) {
    const [coding = '', ...params] = splitList(item, ';');
    const qParam = params.find((p) => /^q\s*=/i.test(p));
    const q = parseQ(qParam?.slice(qParam.indexOf('=') + 1));
    if (q !== undefined) qs.set(coding.toLowerCase().replace(/^x-gzip$/, 'gzip'), q);
  }
  const gzipQ = qs.get('gzip') ?? qs.get('*') ?? 0;
  const identity = qs.get('identity');
  // An unlisted identity is merely acceptable, not preferred; only an explicit higher q beats gzip.
  return gzipQ > 0 && (identity === undefined || gzipQ >= identity);
}
