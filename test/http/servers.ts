import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { ServerOptions } from 'node:https';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** A started server and how to stop it. */
export interface Started {
  url: string;
  port: number;
  close(): Promise<void>;
}

async function listen(server: Server, scheme: string): Promise<Started> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A leader stand-in answering GET /api/v1/health; reports the client certificate's CN when one was sent. */
function leaderHandler(req: IncomingMessage, res: ServerResponse): void {
  const sock = req.socket as Partial<TLSSocket>;
  const peer = typeof sock.getPeerCertificate === 'function' ? sock.getPeerCertificate() : undefined;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status: 'healthy', startTime: 1, clientCN: peer?.subject?.CN ?? null, path: req.url }));
}

/** An HTTPS leader stand-in on 127.0.0.1:0. */
export function startHttpsLeader(opts: ServerOptions): Promise<Started> {
  return listen(createHttpsServer(opts, leaderHandler), 'https');
}

/** A plain HTTP leader stand-in on 127.0.0.1:0. */
export function startHttpLeader(): Promise<Started> {
  return listen(createHttpServer(leaderHandler), 'http');
}

/**
 * A tiny forward proxy on 127.0.0.1:0: CONNECT tunnels (for https and undici's tunnelled http) and
 * absolute-URI requests; it records what it was asked for and the Proxy-Authorization it saw.
 */
export async function startProxy(
  opts: { dropTunnels?: boolean } = {},
): Promise<Started & { seen: { method: string; target: string; auth?: string }[] }> {
  const seen: { method: string; target: string; auth?: string }[] = [];
  const server = createHttpServer((req, res) => {
    seen.push({
      method: req.method ?? '',
      target: req.url ?? '',
      ...(req.headers['proxy-authorization'] ? { auth: req.headers['proxy-authorization'] } : {}),
    });
    const target = new URL(req.url ?? '');
    if (target.hostname !== '127.0.0.1') {
      res.writeHead(403).end();
      return;
    }
    const upstream = connect(Number(target.port || 80), target.hostname, () => {
      upstream.write(
        `${req.method} ${target.pathname}${target.search} HTTP/1.1\r\nhost: ${target.host}\r\nconnection: ` +
          `close\r\n\r\n`,
      );
      upstream.pipe(res.socket!);
    });
    upstream.on('error', () => res.destroy());
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    seen.push({
      method: 'CONNECT',
      target: req.url ?? '',
      ...(req.headers['proxy-authorization'] ? { auth: req.headers['proxy-authorization'] } : {}),
    });
    const [host, port] = (req.url ?? '').split(':');
    if (opts.dropTunnels) {
      client.destroy();
      return;
    }
    // Only ever to the loopback servers of the test.
    if (host !== '127.0.0.1') {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    // As real proxies do: 502 when the upstream cannot be reached.
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
    client.on('error', () => upstream.destroy());
  });
  const started = await listen(server, 'http');
  return { ...started, seen };
}
