import { PRODUCTS } from '@cribl-exporter/api/products';
import type { Product } from '@cribl-exporter/api/products';
import type { Env, Request } from './env.js';
import { isObject, ok, pageEnvelope, parsePaging, readJsonBody } from './http.js';
import type { Reply } from './http.js';

/** Answers several endpoints share: `{count, items}` envelopes, paged lists, JSON bodies of writes, products. */

/** A paged list (`limit`/`offset`), or the 400 of bad paging. */
export function list(env: Env, r: Request, all: readonly unknown[]): Reply {
  const paging = parsePaging(r.query);
  if (typeof paging === 'string') return env.fail('control', 400, paging);
  return ok(pageEnvelope(all, paging));
}

/** `{count: 1, items: [item]}`. */
export const counted = (item: unknown): Reply => ok({ count: 1, items: [item] });

/** Body of a write: the parsed JSON object, or the refusal to send. */
export type Parsed = { ok: true; body: Record<string, unknown> } | { ok: false; reply: Reply };

/** A write's body as a JSON object (JSON only: 415; 5 MB: 413; valid JSON object: 400). */
export async function jsonObject(env: Env, r: Request): Promise<Parsed> {
  const body = await readJsonBody(r.req);
  if (!body.ok) return { ok: false, reply: env.fail('control', body.status, body.message) };
  if (!isObject(body.value)) {
    return { ok: false, reply: env.fail('control', 400, 'Request body must be a JSON object') };
  }
  return { ok: true, body: body.value };
}

/** The `{product}` path parameter: stream, edge, or outpost (which has no nodes or groups here). */
export function productScope(p: string): Product | 'outpost' | undefined {
  if (p === 'outpost') return 'outpost';
  return (PRODUCTS as readonly string[]).includes(p) ? (p as Product) : undefined;
}

/** The 400 of an unknown `{product}`. */
export const badProduct = (env: Env, p: string): Reply =>
  env.fail('control', 400, `Invalid product "${p}": expected stream, edge or outpost`);
