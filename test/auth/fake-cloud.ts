import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake saw, with its body parsed from JSON or form encoding. */
export interface SeenRequest {
  method: string;
  url: string;
  contentType: string;
  authorization: string | undefined;
  fields: Record<string, string>;
}

export type Reply = { status: number; headers?: Record<string, string>; body?: unknown };

/** A scripted HTTP server on 127.0.0.1:0 (token endpoint, management plane). */
export async function startFake(reply: (req: SeenRequest, n: number) => Reply): Promise<{
  url: string;
  seen: SeenRequest[];
  close: () => Promise<void>;
}> {
  const seen: SeenRequest[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const contentType = req.headers['content-type'] ?? '';
    let fields: Record<string, string> = {};
    if (contentType.startsWith('application/json')) fields = JSON.parse(raw) as Record<string, string>;
    else if (contentType.startsWith('application/x-www-form-urlencoded'))
      fields = Object.fromEntries(new URLSearchParams(raw));
    const s: SeenRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      contentType,
      authorization: req.headers.authorization,
      fields,
    };
    seen.push(s);
    const r = reply(s, seen.length);
    res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
    res.end(r.body === undefined ? '' : JSON.stringify(r.body));
  };
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
