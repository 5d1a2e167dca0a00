/**
 * The HTTP server's own limits: header, request and keep-alive timeouts (Node's defaults let a slowloris client
 * hold a socket for minutes), a cap on open connections with the last slot kept for the probes, and
 * `Connection: close` on error answers to requests that carry a body (so a dribbled body is not read for
 * minutes after the answer). docs/runbook.md ("Web server limits") lists them and how to raise them.
 */
import type {
  IncomingMessage,
  Server as HttpServer,
  ServerOptions as HttpServerOptions,
  ServerResponse,
} from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';

/** Timeouts and the connection cap of the server. */
export interface ServerLimits {
  /** Time to receive a request's headers, from the first byte of the connection or of the request. */
  headersTimeoutMs: number;
  /** Time to receive a whole request (headers and body). */
  requestTimeoutMs: number;
  /** Idle time after a response before a keep-alive connection is closed. */
  keepAliveTimeoutMs: number;
  /** How often Node looks for connections past the header or request timeout. */
  checkIntervalMs: number;
  /** Open connections at most (`--web.max-connections`); the last one serves only /healthz and /readyz. */
  maxConnections: number;
  /** Time to write a whole response: past it, its socket is closed (a client that never reads). */
  writeTimeoutMs: number;
  /** Bodies of /metrics (and the status page) being written at once (src/exposition/writes.ts). */
  maxBodies: number;
}

/** Default of `--web.max-connections`: far below the usual limit of 1024 open files. */
export const DEFAULT_MAX_CONNECTIONS = 512;

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  maxConnections: DEFAULT_MAX_CONNECTIONS,
  writeTimeoutMs: 60_000,
  maxBodies: 32,
};

/** Paths that stay reachable without credentials and on the reserved connection. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

/** Options of http(s).createServer that carry the limits (TLS handshakes get the header timeout too). */
export function serverOptions(limits: ServerLimits): HttpServerOptions & { handshakeTimeout: number } {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: limits.checkIntervalMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    handshakeTimeout: limits.headersTimeoutMs,
  };
}

/** Decides which connections and requests the server takes. */
export interface ConnectionGuard {
  /** True when the request came on the reserved connection for another path than a probe: answer 503, close. */
  refuse(req: IncomingMessage, path: string, res: ServerResponse): boolean;
}

const REFUSED_HTTP =
  'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: text/plain\r\n' +
  'X-Content-Type-Options: nosniff\r\n' +
  'Content-Length: 21\r\n\r\ntoo many connections\n';

const keyOf = (s: { remoteAddress?: string | undefined; remotePort?: number | undefined }): string =>
  `${s.remoteAddress ?? ''}|${s.remotePort ?? ''}`;

/**
 * Counts the server's connections. Below `maxConnections - 1` a connection is served; the last slot is kept for
 * the probes: it serves /healthz and /readyz (then closes) and answers anything else 503. A newcomer takes that
 * slot from a connection that has sent nothing yet (an idle socket must not keep a kubelet out); beyond it, a
 * connection is refused: a 503 for HTTP, a close for HTTPS (before the handshake there is no way to say more).
 */
export function guardConnections(
  server: HttpServer | HttpsServer,
  limits: ServerLimits,
  tls: boolean,
): ConnectionGuard {
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  const normal = Math.max(0, limits.maxConnections - 1);
  let open = 0;
  let reserved: { socket: Socket; key: string; used: boolean } | undefined;

  const refuse = (socket: Socket): void => {
    if (tls) socket.destroy();
    else socket.end(REFUSED_HTTP, () => socket.destroy());
  };

  server.prependListener('connection', (socket: Socket) => {
    if (open < normal) {
      open++;
      socket.once('close', () => open--);
      return;
    }
    if (reserved && reserved.used) return refuse(socket);
    reserved?.socket.destroy();
    const mine = { socket, key: keyOf(socket), used: false };
    reserved = mine;
    socket.once('close', () => {
      if (reserved === mine) reserved = undefined;
    });
  });

  return {
    refuse(req, path, res) {
      if (!reserved || reserved.key !== keyOf(req.socket)) return false;
      reserved.used = true;
      // The slot frees itself as soon as this answer is out.
      res.shouldKeepAlive = false;
      return !PROBE_PATHS.has(path);
    },
  };
}

/** `Connection: close` for an error answer to a request that announces a body (Content-Length above 0, or chunked). */
export function errorHeaders(res: ServerResponse, status: number): Record<string, string> {
  const h = res.req?.headers;
  const body = h && ((h['content-length'] ?? '0') !== '0' || h['transfer-encoding'] !== undefined);
  return status >= 400 && body ? { Connection: 'close' } : {};
}

/** A signal aborted when the response's connection closes before the response ends (the client left). */
export function clientGone(res: ServerResponse): AbortSignal {
  const ac = new AbortController();
  res.once('close', () => ac.abort());
  return ac.signal;
}
