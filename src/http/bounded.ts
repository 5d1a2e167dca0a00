/**
 * Reading a response body with a size cap, and one bounded request to a Cribl.Cloud endpoint that is not a
 * leader (the OAuth token endpoint, the management plane). A body over the cap is an error, never a silent
 * truncation. (undici's own `maxResponseSize` is a per-dispatcher option, and these requests share the leader's
 * dispatcher for its proxy and CA; MockAgent in tests ignores it too. The leader exchange caps its body itself,
 * on undici's dispatch API: src/leader/exchange.ts.)
 */
import type { Dispatcher } from 'undici';
import type { ResponseHeaders } from './retry-after.js';

/** The body was larger than allowed (announced by Content-Length, or streamed). */
export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
  readonly code = 'RESPONSE_TOO_LARGE';
}

/** Reads the body as UTF-8; throws ResponseTooLargeError beyond `max` bytes. */
async function readCapped(res: Dispatcher.ResponseData, max: number): Promise<string> {
  const announced = Number(res.headers['content-length']);
  if (Number.isFinite(announced) && announced > max)
    throw new ResponseTooLargeError(`response larger than ${max} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new ResponseTooLargeError(`response larger than ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/** One request to a Cribl.Cloud endpoint that is not a leader (token endpoint, management plane). */
export interface BoundedRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  dispatcher: Dispatcher;
  signal?: AbortSignal;
  /** Headers and body timeouts. @default 10_000 */
  timeoutMs?: number;
}

/** Status, headers and the body parsed as JSON (undefined when it is not JSON). */
export interface BoundedResponse {
  status: number;
  headers: ResponseHeaders;
  json: unknown;
}

/** Sends the request and reads a body of 1 MiB at most; network errors and ResponseTooLargeError are thrown. */
export async function boundedRequest(req: BoundedRequest): Promise<BoundedResponse> {
  const timeout = req.timeoutMs ?? 10_000;
  // The dispatcher's own request() (what undici's top-level request() calls), so that undici's index is not loaded
  // (src/http/undici.ts).
  const url = new URL(req.url);
  const res = await req.dispatcher.request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: req.method,
    headers: req.headers,
    body: req.body ?? null,
    signal: req.signal ?? null,
    headersTimeout: timeout,
    bodyTimeout: timeout,
  });
  let text: string;
  try {
    text = await readCapped(res, 1024 * 1024);
  } catch (e) {
    res.body.destroy();
    throw e;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, json };
}
