import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';

/** Outcome of one raw HTTP call to a simulator. */
export interface CallResult {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** Parsed body, or undefined when it is not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are checked field by field in the tests
  json: any;
  /** Set when the connection failed instead of answering (e.g. ECONNRESET). */
  error?: string;
}

/** Options of `call`. */
export interface CallOptions {
  method?: string;
  token?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/**
 * Sends one request with the path exactly as given (no URL normalisation, unlike fetch), on a fresh
 * connection. `origin` is e.g. sim.origin.
 */
export function call(origin: string, path: string, opts: CallOptions = {}): Promise<CallResult> {
  const url = new URL(origin);
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  if (
    opts.body !== undefined &&
    headers['content-length'] === undefined &&
    headers['transfer-encoding'] === undefined
  ) {
    headers['content-length'] = String(Buffer.byteLength(opts.body));
  }
  return new Promise((resolve) => {
    const req = request(
      { host: url.hostname, port: url.port, path, method: opts.method ?? 'GET', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: '',
            json: undefined,
            error: (e as NodeJS.ErrnoException).code ?? e.message,
          }),
        );
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', (e) =>
      resolve({
        status: 0,
        headers: {},
        text: '',
        json: undefined,
        error: (e as NodeJS.ErrnoException).code ?? e.message,
      }),
    );
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** JSON body headers. */
export const JSON_BODY = { 'content-type': 'application/json' };

/** Lets pending I/O callbacks run (used between FakeClock steps that wake server-side sleeps). */
export function tick(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/** One listed item, loosely typed for field-by-field assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON under test
export type Item = Record<string, any>;

/** The `items` of a listing body. */
export function itemsOf(body: unknown): Item[] {
  return (body as { items: Item[] }).items;
}

/** The `id`s of a listing body's items. */
export function idsOf(body: unknown): string[] {
  return itemsOf(body).map((e) => String(e.id));
}
