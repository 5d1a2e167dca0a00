/**
 * The HTTP(S) server: GET/HEAD {telemetryPath} (the cached body plus self-metrics, negotiated
 * format and gzip), /healthz, /readyz, the status page at /, and the exporter-toolkit web
 * configuration (TLS, mTLS, basic auth, headers, rate limit), re-read when its files change.
 */

import type { LoadedWebConfig } from './web-config/load.js';
import type { ClientAuthType } from './web-config/parse.js';
import { createWebConfigSource, type ReloadResult, type WebConfigSource } from './web-config/reload.js';
import { createBasicAuth } from './basic-auth.js';
import {
  clientGone,
  DEFAULT_SERVER_LIMITS,
  errorHeaders,
  guardConnections,
  PROBE_PATHS,
  type ConnectionGuard,
  serverOptions,
  type ServerLimits,
} from './limits.js';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createGunzip } from 'node:zlib';
import { once } from 'node:events';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '@cribl-exporter/api/clock';
import { parseListenAddress, urlHost, type ListenAddress } from '@cribl-exporter/api/listen-address';
import type { BodyCache, Selection } from './body/index.js';
import { CONTENT_TYPES, OPENMETRICS_EOF, type Format } from '../format/format.js';
import { STATUS_CSP } from './status/page.js';
import { acceptsGzip, negotiateFormat } from './negotiate.js';
import { guardWrites, type WriteGuard } from './writes.js';

/** Options of startServer. */
export interface ServerOptions {
  /** `host:port`, `[v6]:port` or `:port` (all interfaces). */
  listenAddress: string;
  /** @default '/metrics' */
  telemetryPath?: string;
  body: BodyCache;
  /** The collectors' names, for `collect[]` and `exclude[]` (every one is served by default). */
  collectors: readonly string[];
  /** Self-metrics, rendered per scrape in the negotiated format; also told about web config reloads. */
  selfMetrics?: { render(format: Format): Promise<string>; setWebConfigReloadSuccessful?(ok: boolean): void };
  /** /readyz answers 200 only once this returns true (after the first successful discovery). */
  ready: () => boolean;
  /** The status page at `/` (src/exposition/status/); without it (tests), `/` is Not Found. */
  statusPage?: { html(): Promise<string> };
  /** `--web.config.file`; TLS is on when it configures a certificate. */
  webConfigFile?: string;
  clock?: Clock;
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Timeouts and the connection cap (`--web.max-connections`; tests shorten them). @default DEFAULT_SERVER_LIMITS */
  limits?: Partial<ServerLimits>;
}

/** A listening server. */
export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:9864 */
  readonly url: string;
  readonly port: number;
  /** Re-reads the web config now (SIGHUP); the outcome is logged and sets the reload metric. */
  reload(): Promise<void>;
  /** Stops accepting, drops open connections and resolves when closed. */
  close(): Promise<void>;
}

function plain(
  res: ServerResponse,
  status: number,
  text: string,
  head: boolean,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...errorHeaders(res, status),
    ...extra,
  });
  res.end(head ? undefined : text);
}

/** Values of the peer certificate's subjectAltName, as the toolkit compares them. */
function peerSans(socket: TLSSocket): string[] {
  const alt = socket.getPeerCertificate().subjectaltname ?? '';
  return alt
    .split(', ')
    .map((entry) => entry.slice(entry.indexOf(':') + 1))
    .filter((v) => v !== '');
}

/** Whether a TLS connection may proceed under the client auth policy; Node's own checks cover the rest. */
function connectionAllowed(
  socket: TLSSocket,
  clientAuth: ClientAuthType,
  allowedSans: readonly string[] | undefined,
): boolean {
  const hasCert = Object.keys(socket.getPeerCertificate()).length > 0;
  const verify = clientAuth === 'VerifyClientCertIfGiven' || clientAuth === 'RequireAndVerifyClientCert';
  const needed = clientAuth === 'RequireAnyClientCert' || clientAuth === 'RequireAndVerifyClientCert';
  if (hasCert ? verify && !socket.authorized : needed) return false;
  if (allowedSans) return hasCert && peerSans(socket).some((san) => allowedSans.includes(san));
  return true;
}

/**
 * The collectors a scrape selects with `collect[]=name` (only those) or `exclude[]=name` (all but those), as
 * node_exporter's do; the exporter's own metrics always come. A string: the one-line reason for a 400.
 */
export function selectCollectors(url: string, known: readonly string[]): Selection | string {
  const query = new URL(url, 'http://localhost').searchParams;
  const collect = query.getAll('collect[]');
  const exclude = query.getAll('exclude[]');
  if (collect.length === 0 && exclude.length === 0) return undefined;
  if (collect.length > 0 && exclude.length > 0) return 'collect[] and exclude[] cannot be used together';
  const unknown = [...collect, ...exclude].filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    return `unknown collector ${JSON.stringify(unknown[0])}; known collectors: ${known.join(', ')}`;
  }
  return collect.length > 0 ? new Set(collect) : new Set(known.filter((n) => !exclude.includes(n)));
}

/** Sends the identity bytes of a body by gunzipping its gzip on zlib's threads, then `tail`. */
function streamIdentity(gzipped: readonly Buffer[], tail: Promise<Buffer>, res: ServerResponse): void {
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  gunzip.once('error', () => res.destroy());
  res.once('close', () => gunzip.destroy());
  gunzip.pipe(res, { end: false });
  gunzip.once('end', () => {
    tail.then(
      (t) => res.end(t),
      () => res.destroy(),
    );
  });
  for (const chunk of gzipped) gunzip.write(chunk);
  gunzip.end();
}

/** Node's per-connection client certificate policy for a `client_auth_type`. */
const certPolicy = (tls: { clientAuth: ClientAuthType }): { requestCert: boolean; rejectUnauthorized: boolean } => ({
  requestCert: tls.clientAuth !== 'NoClientCert',
  rejectUnauthorized: tls.clientAuth === 'RequireAndVerifyClientCert',
});

/** What the handlers share: the options, with the clock, the limits and the web config resolved. */
interface ServerContext {
  readonly options: ServerOptions;
  readonly clock: Clock;
  readonly telemetryPath: string;
  readonly writes: WriteGuard;
}

/** One route's handler; `head` for a HEAD request. */
type Handler = (ctx: ServerContext, req: IncomingMessage, res: ServerResponse, head: boolean) => Promise<void> | void;

/** GET/HEAD of the telemetry path: the cached body in the negotiated format, then the self-metrics. */
async function metrics(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, head: boolean): Promise<void> {
  const { options } = ctx;
  const format = negotiateFormat(req.headers.accept);
  const useGzip = acceptsGzip(req.headers['accept-encoding']);
  const selection = selectCollectors(req.url ?? '', options.collectors);
  if (typeof selection === 'string') return plain(res, 400, `${selection}\n`, head);
  // One body at a time per connection, and a bounded number in flight (src/exposition/writes.ts).
  if (!head && !(await ctx.writes.admit(res))) return busy(res);
  // A GET is a scrape the body cache learns the scrape interval from (a HEAD reads no data).
  const latest = head
    ? options.body.current()
    : options.body.scrape(`${req.socket.remoteAddress ?? ''} ${req.headers['user-agent'] ?? ''}`);
  const body = (await latest).serve(format, selection);
  res.writeHead(200, {
    'Content-Type': CONTENT_TYPES[format],
    Vary: 'Accept, Accept-Encoding',
    ...(useGzip ? { 'Content-Encoding': 'gzip' } : {}),
  });
  if (head) {
    res.end();
    return;
  }
  // The cached part goes out first; the self-metrics part (prom-client reads /proc and the heap
  // statistics synchronously: a few ms) is rendered and gzipped after it is on its way, so the first byte
  // waits for nothing but the cached body. Hence no Content-Length (chunked encoding).
  // gzip: the cached member without its end; the self-metrics continue the same member.
  res.flushHeaders();
  // The body's pieces (about 1,000 at 50,000 nodes) leave in a few socket writes: Node buffers the writes made while
  // the first is in flight.
  if (useGzip) for (const chunk of body.gzip) if (chunk.length > 0) res.write(chunk);
  const tail = (async (): Promise<Buffer> => {
    const self = (await options.selfMetrics?.render(format)) ?? '';
    const text = Buffer.from(format === 'openmetrics' ? self + OPENMETRICS_EOF : self, 'utf8');
    return useGzip ? body.tail(text) : text;
  })();
  tail.catch(() => undefined);
  // Uncompressed: the identity bytes follow as zlib's threads inflate the cached gzip.
  if (!useGzip) return streamIdentity([...body.gzip, body.end], tail, res);
  const end = await tail.catch(() => undefined);
  // Headers are out: a failed self-metrics render can only cut the response short (a failed scrape).
  if (end) res.end(end);
  else res.destroy();
}

/** The status page at `/`. */
async function statusPage(
  ctx: ServerContext,
  _req: IncomingMessage,
  res: ServerResponse,
  head: boolean,
): Promise<void> {
  const page = ctx.options.statusPage;
  if (!page) return plain(res, 404, 'Not Found\n', head);
  if (!head && !(await ctx.writes.admit(res))) return busy(res);
  const html = await page.html();
  res.writeHead(200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
    'Cache-Control': 'no-store',
    'Content-Security-Policy': STATUS_CSP,
  });
  res.end(head ? undefined : html);
}

/** 503 when every body slot is held by clients that are still reading; the connection is closed (its slot freed). */
const busy = (res: ServerResponse): void =>
  plain(res, 503, 'Service Unavailable: too many scrapes in flight\n', false, {
    'Retry-After': '1',
    Connection: 'close',
  });

const healthz: Handler = (_ctx, _req, res, head) => plain(res, 200, 'ok\n', head);
const readyz: Handler = (ctx, _req, res, head) =>
  ctx.options.ready() ? plain(res, 200, 'ready\n', head) : plain(res, 503, 'not ready\n', head);

/** The route table: path to handler (the telemetry path is configurable). */
function routeTable(telemetryPath: string): ReadonlyMap<string, Handler> {
  // The telemetry path last: it wins over a fixed path of the same name, as it always has.
  return new Map<string, Handler>([
    ['/healthz', healthz],
    ['/readyz', readyz],
    ['/', statusPage],
    [telemetryPath, metrics],
  ]);
}

/** The toolkit's rate limit (`rate_limit`): a full bucket at start, as Go's x/time/rate, refilled on the clock. */
function createRateLimiter(clock: Clock): (config: LoadedWebConfig['config'] | undefined) => boolean {
  const rate = { tokens: Infinity, at: clock.now() };
  return (config) => {
    const limit = config?.rateLimit;
    if (!limit) return false;
    const now = clock.now();
    rate.tokens = Math.min(limit.burst, rate.tokens + (now - rate.at) / limit.intervalMs);
    rate.at = now;
    if (rate.tokens < 1) return true;
    rate.tokens -= 1;
    return false;
  };
}

/** What the request handler needs beside the routes. */
interface HandlerDeps {
  ctx: ServerContext;
  webConfig: WebConfigSource | undefined;
  basicAuth: ReturnType<typeof createBasicAuth>;
  /** Set once the server exists (the guard counts its connections); no request comes before. */
  guard: () => ConnectionGuard | undefined;
}

/** Answers a request that basic auth did not let through; false when it did. */
async function refusedByAuth(
  basicAuth: HandlerDeps['basicAuth'],
  req: IncomingMessage,
  res: ServerResponse,
  head: boolean,
  users: ReadonlyMap<string, string> | undefined,
): Promise<boolean> {
  if (!users || users.size === 0) return false;
  const outcome = await basicAuth.check(users, {
    authorization: req.headers.authorization,
    client: req.socket.remoteAddress ?? '',
    signal: clientGone(res),
  });
  if (outcome.result === 'ok') return false;
  if (outcome.result === 'denied') plain(res, 401, 'Unauthorized\n', head, { 'WWW-Authenticate': 'Basic' });
  else if (outcome.result === 'limited')
    plain(res, 429, 'Too Many Requests\n', head, { 'Retry-After': String(outcome.retryAfterSeconds) });
  else res.destroy(); // the client left
  return true;
}

/** The request listener: limits, web config (headers, rate limit, basic auth), method, then the route's handler. */
function createListener(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { ctx, webConfig, basicAuth } = deps;
  const routes = routeTable(ctx.telemetryPath);
  const rateLimited = createRateLimiter(ctx.clock);
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    const head = req.method === 'HEAD';
    if (deps.guard()?.refuse(req, path, res)) {
      return plain(res, 503, 'Service Unavailable: too many connections\n', head, { 'Retry-After': '1' });
    }
    const probe = PROBE_PATHS.has(path);
    // Probes never wait, not on a web config re-read (they start one), not on basic auth.
    if (probe) void webConfig?.current();
    const loaded = webConfig ? (probe ? webConfig.latest() : await webConfig.current()) : undefined;
    const config = loaded?.config;
    for (const [name, value] of Object.entries(config?.headers ?? {})) res.setHeader(name, value);
    if (rateLimited(config)) return plain(res, 429, 'Too Many Requests\n', head);
    if (!probe && (await refusedByAuth(basicAuth, req, res, head, config?.users))) return;
    if (req.method !== 'GET' && !head) return plain(res, 405, 'Method Not Allowed\n', false, { Allow: 'GET, HEAD' });
    const handler = routes.get(path);
    if (!handler) return plain(res, 404, 'Not Found\n', head);
    return handler(ctx, req, res, head);
  };
  return (req, res) => {
    // Every answer says what it is: no browser guesses that a scraped body or an error text is HTML or a script.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    ctx.writes.watch(res);
    handle(req, res).catch((err: unknown) => {
      ctx.options.logger?.error({ err }, `${req.method ?? 'GET'} ${req.url ?? ''} failed`);
      if (!res.headersSent) plain(res, 500, 'Internal Server Error\n', req.method === 'HEAD');
      else res.destroy();
    });
  };
}

/** The web config source (`--web.config.file`), and its first reading; none without a file. */
async function openWebConfig(
  options: ServerOptions,
  clock: Clock,
  applyTls: (loaded: LoadedWebConfig) => void,
): Promise<{ source: WebConfigSource; initial: LoadedWebConfig } | undefined> {
  if (!options.webConfigFile) return undefined;
  let tlsAtStart = false;
  const onReload = (result: ReloadResult): void => {
    options.selfMetrics?.setWebConfigReloadSuccessful?.(result.ok);
    if (!result.ok) return options.logger?.error(`${result.error.message}; keeping the previous web config`);
    applyTls(result.config);
    options.logger?.info(`web config ${options.webConfigFile ?? ''} reloaded`);
  };
  const source = await createWebConfigSource({
    path: options.webConfigFile,
    clock,
    // The listener is HTTP or HTTPS from the start: switching needs a restart.
    accept: (next) => (!!next.config.tls !== tlsAtStart ? 'turning TLS on or off needs a restart' : undefined),
    onReload,
  });
  const initial = source.latest();
  tlsAtStart = !!initial.config.tls;
  return { source, initial };
}

/** An HTTPS server when the web config has a certificate, else HTTP; a refused client certificate never gets in. */
function createListeningServer(
  limits: ServerLimits,
  initial: LoadedWebConfig | undefined,
  webConfig: WebConfigSource | undefined,
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): HttpServer | HttpsServer {
  if (!initial?.secureContext || !initial.config.tls) return createHttpServer(serverOptions(limits), listener);
  const tls = initial.config.tls;
  const https = createHttpsServer({ ...serverOptions(limits), ...initial.secureContext, ...certPolicy(tls) }, listener);
  // Runs before the HTTP parser sees a byte: a refused client never reaches a handler.
  https.prependListener('secureConnection', (socket: TLSSocket) => {
    const t = webConfig?.latest().config.tls ?? tls;
    if (!connectionAllowed(socket, t.clientAuth, t.clientAllowedSans)) socket.destroy();
  });
  return https;
}

/** Starts the server; rejects with a one-line error when the web config or the address is unusable. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  let listen: ListenAddress;
  try {
    listen = parseListenAddress(options.listenAddress);
  } catch (e) {
    throw new Error(`--web.listen-address: ${e instanceof Error ? e.message : String(e)}`);
  }
  const { host, port } = listen;
  const basicAuth = createBasicAuth({ clock });
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };

  // The server is made once the web config is read; a reload before that has no server to apply to.
  const made: { server?: HttpServer | HttpsServer; guard?: ConnectionGuard } = {};
  const applyTls = (loaded: LoadedWebConfig): void => {
    const tls = loaded.config.tls;
    const server = made.server;
    if (!tls || !loaded.secureContext || !server || !('setSecureContext' in server)) return;
    server.setSecureContext(loaded.secureContext);
    // Node reads these per connection; the secure context API has no place for them.
    Object.assign(server, certPolicy(tls));
  };
  const web = await openWebConfig(options, clock, applyTls);
  const ctx: ServerContext = {
    options,
    clock,
    telemetryPath: options.telemetryPath ?? '/metrics',
    writes: guardWrites(clock, limits),
  };
  const listener = createListener({ ctx, webConfig: web?.source, basicAuth, guard: () => made.guard });
  const s = createListeningServer(limits, web?.initial, web?.source, listener);
  const tls = !!web?.initial.secureContext;
  made.server = s;
  made.guard = guardConnections(s, limits, tls);
  options.selfMetrics?.setWebConfigReloadSuccessful?.(true);
  try {
    await once(s.listen(port, host), 'listening');
  } catch (err) {
    throw new Error(`--web.listen-address "${options.listenAddress}": ${(err as Error).message}`);
  }
  const address = s.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://${urlHost(host)}:${address.port}`,
    port: address.port,
    reload: async () => {
      if (web) await web.source.reload();
    },
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        s.close((err) => (err ? reject(err) : resolve()));
        s.closeAllConnections();
      });
      await basicAuth.close();
    },
  };
}
