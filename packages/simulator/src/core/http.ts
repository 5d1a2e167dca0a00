import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Largest request body accepted: the API's documented 5 MB limit (5,000,000 bytes). */
export const MAX_REQUEST_BODY = 5_000_000;

/** Content-Type of every JSON answer. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** Content-Type of search results. */
export const NDJSON_TYPE = 'application/x-ndjson';

/** One answer, before faults that alter bodies are applied. */
export interface Reply {
  status: number;
  /** '' with status 202/204: no body and no Content-Type. */
  body: string;
  headers?: OutgoingHttpHeaders;
  /** Defaults to JSON_TYPE. */
  type?: string;
  /** Eligible for truncated / malformed / oversized faults (200 answers of the API). */
  mutable?: boolean;
  /** Close the connection after answering (the request body was not read). */
  close?: boolean;
}

/** A 200 JSON answer. */
export function ok(body: unknown): Reply {
  return { status: 200, body: JSON.stringify(body), mutable: true };
}

/** The media type of a request, lower case, without parameters ('' when absent). */
export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** True for application/json and the structured-syntax `+json` types. */
export function isJsonType(type: string): boolean {
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** Parsed `offset`/`limit` query parameters, or a one-line error. */
export interface Paging {
  offset: number;
  limit?: number;
  offsetGiven: boolean;
}

export function parsePaging(query: URLSearchParams): Paging | string {
  const o = query.get('offset');
  const l = query.get('limit');
  if (o !== null && !/^\d+$/.test(o)) return 'offset must be a non-negative integer';
  if (l !== null && !/^\d+$/.test(l)) return 'limit must be a non-negative integer';
  const out: Paging = { offset: o === null ? 0 : Number(o), offsetGiven: o !== null };
  if (l !== null) out.limit = Number(l);
  return out;
}

/**
 * The 4.17+ list envelope: `{count, items}`, plus `offset, limit, totalCount` when a limit is given (and `offset`
 * alone when only it is given), as the official examples show.
 */
export function pageEnvelope(all: readonly unknown[], paging: Paging): Record<string, unknown> {
  const { offset, limit } = paging;
  const items = all.slice(offset, limit === undefined ? undefined : offset + limit);
  const env: Record<string, unknown> = { count: items.length, items };
  if (limit !== undefined) Object.assign(env, { offset, limit, totalCount: all.length });
  else if (paging.offsetGiven) env.offset = offset;
  return env;
}

/** Discards the rest of a request body, giving up on absurd uploads. */
export function drain(req: IncomingMessage): void {
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > 16 * MAX_REQUEST_BODY) req.socket.destroy();
  });
  req.resume();
}

/**
 * Reads a request body as UTF-8. Undefined when it exceeds MAX_REQUEST_BODY: reading stops there, the rest is
 * never read, and the caller answers 413 with `close` (the connection cannot be reused).
 */
export function readBody(req: IncomingMessage): Promise<string | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_REQUEST_BODY) return Promise.resolve(undefined);
  // Listeners rather than for-await: leaving a for-await loop early would destroy the socket before the 413.
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (value: string | undefined): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onEnd);
      resolve(value);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_REQUEST_BODY) {
        req.pause();
        done(undefined);
      } else chunks.push(chunk);
    };
    const onEnd = (): void => done(Buffer.concat(chunks).toString('utf8'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onEnd);
  });
}

/**
 * After a 413 sent with `Connection: close`: discards what the client still sends for a while (closing a socket
 * with unread data would reset it and could lose the answer), and cuts the connection after another 5 MB.
 */
export function discardRest(req: IncomingMessage): void {
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > MAX_REQUEST_BODY) req.socket.destroy();
  });
  req.resume();
}

/** Outcome of reading a JSON request body: the value, or the status and message of the refusal. */
export type JsonBody = { ok: true; value: unknown } | { ok: false; status: 400 | 413 | 415; message: string };

/**
 * The spec's body rules for JSON endpoints: Content-Type missing or not JSON → 415 (body not read), over 5 MB → 413
 * (reading stops at the limit), not JSON → 400.
 */
export async function readJsonBody(req: IncomingMessage): Promise<JsonBody> {
  const type = mediaType(req);
  if (!isJsonType(type)) {
    return {
      ok: false,
      status: 415,
      message: `Unsupported Media Type: expected application/json, got ${type === '' ? 'no Content-Type' : type}`,
    };
  }
  const raw = await readBody(req);
  if (raw === undefined) return { ok: false, status: 413, message: 'Request body larger than 5 MB' };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch {
    return { ok: false, status: 400, message: 'Request body is not valid JSON' };
  }
}

/** True for a plain JSON object (not an array, not null). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Resolves when the response can take more data or is gone. */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

const PADDING_CHUNK = 'x'.repeat(64 * 1024);

/** Sends a reply (202/204 without a body); a body the handler did not read is dropped, or cut off after a 413. */
export function writeReply(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  if (res.headersSent || res.destroyed) return;
  const empty = reply.body === '' && (reply.status === 204 || reply.status === 202);
  const headers = {
    ...(empty ? {} : { 'content-type': reply.type ?? JSON_TYPE, 'content-length': Buffer.byteLength(reply.body) }),
    ...reply.headers,
    ...(reply.close ? { connection: 'close' } : {}),
  };
  res.writeHead(reply.status, headers);
  res.end(empty ? undefined : reply.body);
  // A body the handler did not read: dropped, or (413) cut off after a bounded discard.
  if (!req.complete) {
    if (reply.close) discardRest(req);
    else drain(req);
  }
}

/** A 200 whose valid JSON body is padded to `bytes` (chunked, no Content-Length). */
export async function writeOversized(res: ServerResponse, body: string, bytes: number): Promise<void> {
  res.writeHead(200, { 'content-type': JSON_TYPE });
  const head = `${body.slice(0, -1)},"padding":"`;
  let remaining = Math.max(0, bytes - head.length - 2);
  if (!res.write(head)) await drained(res);
  while (remaining > 0 && !res.destroyed) {
    const chunk = remaining >= PADDING_CHUNK.length ? PADDING_CHUNK : PADDING_CHUNK.slice(0, remaining);
    remaining -= chunk.length;
    if (!res.write(chunk)) await drained(res);
  }
  if (!res.destroyed) res.end('"}');
}

/**
 * A 200 sent slowly: headers at once (with Content-Length), then `bytes` bytes of the body every `everyMs` (on
 * `sleep`, the simulator's clock) until `durationMs` has passed, then the rest. Stops when the client goes away.
 */
export async function writeDripping(
  res: ServerResponse,
  body: string,
  drip: { every: number; duration: number; bytes: number },
  sleep: (ms: number) => Promise<boolean>,
): Promise<void> {
  const bytes = Buffer.from(body, 'utf8');
  res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': bytes.length });
  res.flushHeaders();
  let sent = 0;
  for (let waited = 0; waited < drip.duration && sent < bytes.length; waited += drip.every) {
    if (!(await sleep(drip.every)) || res.destroyed) return;
    const n = Math.min(drip.bytes, bytes.length - sent);
    res.write(bytes.subarray(sent, sent + n));
    sent += n;
  }
  if (!res.destroyed) res.end(bytes.subarray(sent));
}
