import { request } from 'undici';
import type { Dispatcher } from 'undici';
import type { ResponseHeaders } from './retry-after.js';

/** One request to a Cribl.Cloud endpoint that is not a leader (token endpoint, management plane). */
export interface CloudRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  dispatcher: Dispatcher;
  signal?: AbortSignal;
  /** Headers and body timeouts. @default 10_000 */
  timeoutMs?: number;
  /** Larger bodies are cut off (and then fail to parse). @default 1 MiB */
  maxBytes?: number;
}

/** Status, headers and the body parsed as JSON (undefined when it is not JSON). */
export interface CloudResponse {
  status: number;
  headers: ResponseHeaders;
  json: unknown;
}

/** Sends the request and reads a bounded body; network errors are thrown as undici raised them. */
export async function cloudRequest(req: CloudRequest): Promise<CloudResponse> {
  const timeout = req.timeoutMs ?? 10_000;
  const res = await request(req.url, {
    method: req.method,
    headers: req.headers,
    body: req.body ?? null,
    dispatcher: req.dispatcher,
    signal: req.signal ?? null,
    headersTimeout: timeout,
    bodyTimeout: timeout,
  });
  const max = req.maxBytes ?? 1024 * 1024;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      res.body.destroy();
      break;
    }
    chunks.push(chunk);
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, json };
}
