import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Workspace } from '../api/shapes.js';
import type { Product } from '../api/products.js';
import { PRODUCTS } from '../api/products.js';
import { systemClock } from '../util/clock.js';
import type { Clock } from '../util/clock.js';
import { handleAdmin, isLoopback } from './admin.js';
import { TokenStore, bearerToken, tokenLabel } from './auth.js';
import { FaultEngine } from './fault-engine.js';
import { DEFAULT_FAULTS, faultsPatchSchema, formatIssues, mergeFaults } from './faults.js';
import type { Faults, FaultsPatch } from './faults.js';
import { SimFleet, parseVersion } from './fleet.js';
import type { NodeRec } from './fleet.js';
import { randomHex, seededRandom } from './random.js';
import { UNMATCHED, matchRoute } from './routes.js';
import type { Route } from './routes.js';
import { StatsRecorder } from './stats.js';
import type { SimClient, SimUser, Simulator, SimulatorOptions } from './types.js';

/** Largest request body accepted (the API's documented 5 MB limit). */
export const MAX_REQUEST_BODY = 5 * 1024 * 1024;

/** Message of the leader's 401 answers (spec 4.19 example). */
export const AUTH_FAILED = 'Authentication failed (missing or invalid credentials or Bearer token).';

const JSON_TYPE = 'application/json; charset=utf-8';
const PADDING_CHUNK = 'x'.repeat(64 * 1024);

/** One answer, before faults that alter bodies are applied. */
interface Reply {
  status: number;
  body: string;
  headers?: OutgoingHttpHeaders;
  /** Eligible for truncated / malformed / oversized faults (200 JSON answers of the API). */
  mutable?: boolean;
}

interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  route: string;
  search: string;
  /** Status recorded in the statistics when it is not an HTTP status ("reset"). */
  outcome?: string;
  client?: string;
}

type Plane = 'control' | 'oauth' | 'mgmt';

function planeOf(route: string): Plane {
  if (route === '/oauth/token') return 'oauth';
  if (route.startsWith('/v1/')) return 'mgmt';
  return 'control';
}


/** Everything a request handler needs; one per simulator. */
class SimulatorApp {
  readonly fleet: SimFleet;
  readonly engine: FaultEngine;
  readonly stats: StatsRecorder;
  readonly tokens: TokenStore;
  readonly clock: Clock;
  readonly legacy: boolean;
  readonly startedAt: number;
  readonly users: readonly SimUser[];
  readonly clients: readonly SimClient[];
  readonly organizationId: string | undefined;
  readonly abort = new AbortController();
  workspaces: Workspace[];
  #churnLoop: AbortController | undefined;

  constructor(init: {
    fleet: SimFleet;
    engine: FaultEngine;
    stats: StatsRecorder;
    tokens: TokenStore;
    clock: Clock;
    legacy: boolean;
    startedAt: number;
    users: readonly SimUser[];
    clients: readonly SimClient[];
    workspaces: Workspace[];
    organizationId: string | undefined;
  }) {
    this.fleet = init.fleet;
    this.engine = init.engine;
    this.stats = init.stats;
    this.tokens = init.tokens;
    this.clock = init.clock;
    this.legacy = init.legacy;
    this.startedAt = init.startedAt;
    this.users = init.users;
    this.clients = init.clients;
    this.workspaces = init.workspaces;
    this.organizationId = init.organizationId;
  }

  /** Validates and applies a faults patch (top-level keys replace); throws a one-line Error when invalid. */
  patchFaults(patch: unknown, replace = false): Faults {
    const parsed = faultsPatchSchema.safeParse(patch);
    if (!parsed.success) throw new Error(`invalid faults: ${formatIssues(parsed.error, 'faults')}`);
    const next = mergeFaults(replace ? DEFAULT_FAULTS : this.engine.faults, parsed.data);
    const churnChanged = next.churn !== this.engine.faults.churn;
    this.engine.set(next);
    if (churnChanged) this.#restartChurn();
    return next;
  }

  #restartChurn(): void {
    this.#churnLoop?.abort();
    this.#churnLoop = undefined;
    const churn = this.engine.faults.churn;
    if (!churn || this.abort.signal.aborted) return;
    const loop = (this.#churnLoop = new AbortController());
    const signal = AbortSignal.any([loop.signal, this.abort.signal]);
    void (async () => {
      for (;;) {
        try {
          await this.clock.sleep(churn.every, signal);
        } catch {
          return;
        }
        if (signal.aborted) return;
        this.fleet.churn(churn);
      }
    })();
  }

  /** Entry point of node:http. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.#handle(req, res).catch(() => {
      if (!res.headersSent) this.#write({ req, res, route: UNMATCHED, search: '' }, { status: 500, body: this.#error('Internal Server Error') });
      else res.destroy();
    });
  };

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q < 0 ? url : url.slice(0, q);
    const search = q < 0 ? '' : url.slice(q + 1);
    const match = matchRoute(pathname, this.legacy);
    if (match.kind === 'admin') {
      if (!isLoopback(req.socket.remoteAddress)) {
        req.resume();
        res.writeHead(403, { 'content-type': JSON_TYPE }).end('{"error":"the admin endpoint answers loopback clients only"}');
        return;
      }
      await handleAdmin(this, req, res, match.rest, search);
      return;
    }
    const ctx: Ctx = { req, res, route: match.kind === 'route' ? match.route : UNMATCHED, search };
    this.stats.begin();
    res.once('close', () => this.stats.end(ctx.route, ctx.outcome ?? (res.headersSent ? String(res.statusCode) : 'aborted')));
    if (this.stats.watching) this.stats.checkRetryAfter(this.#client(ctx));

    const plane = planeOf(ctx.route);
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > MAX_REQUEST_BODY) {
      drain(req);
      this.#write(ctx, this.#fail(plane, 413, 'Request body larger than 5 MB'));
      return;
    }
    if (match.kind !== 'route') {
      req.resume();
      if (match.kind === 'bad-path') this.#write(ctx, this.#fail(plane, 400, 'Malformed percent-encoding in path'));
      else this.#write(ctx, this.#fail(plane, 404, `Not Found: ${req.method ?? 'GET'} ${pathname}`));
      return;
    }
    const route = match.route;
    if (!match.methods.includes(req.method ?? 'GET')) {
      req.resume();
      const reply = this.#fail(plane, 405, `Method ${req.method ?? ''} not allowed on ${route}`);
      reply.headers = { ...reply.headers, allow: match.methods.join(', ') };
      this.#write(ctx, reply);
      return;
    }
    if (route !== '/auth/login' && route !== '/oauth/token') req.resume();

    const latency = this.engine.latency(route);
    if (latency > 0 && !(await this.#sleep(latency))) return;

    if (plane === 'control') {
      const state = this.engine.leaderState(this.fleet.leaderState());
      if (state !== 'healthy') {
        this.stats.fault('leader-420');
        this.#write(ctx, { status: 420, body: this.#leaderHealthBody(state) });
        return;
      }
    }
    const faults = this.engine.faults;
    if (this.engine.roll(faults.resets, route)) {
      this.stats.fault('reset');
      ctx.outcome = 'reset';
      req.socket.resetAndDestroy();
      return;
    }
    const wait = this.engine.rateLimit(route, () => this.#client(ctx));
    if (wait !== undefined) {
      this.stats.fault('ratelimit');
      const reply = this.#fail(plane, 429, 'Too many requests, please try again later.');
      const form = faults.rateLimit?.retryAfter ?? 'seconds';
      if (form !== 'none') this.#retryAfter(ctx, reply, wait, form);
      this.#write(ctx, reply);
      return;
    }
    const unavailable = this.engine.unavailable(route);
    if (unavailable) {
      this.stats.fault('unavailable');
      const reply = this.#fail(plane, 503, 'Service Unavailable');
      if (unavailable.retryAfter !== null) this.#retryAfter(ctx, reply, unavailable.retryAfter * 1000, unavailable.retryAfterForm);
      this.#write(ctx, reply);
      return;
    }

    const reply = await this.#dispatch(ctx, route, match.params);
    if (!reply) return;
    if (reply.mutable && reply.status === 200) {
      if (this.engine.roll(faults.truncated, route)) {
        this.stats.fault('truncated');
        reply.body = reply.body.slice(0, Math.floor(reply.body.length / 2));
      } else if (this.engine.roll(faults.malformed, route)) {
        this.stats.fault('malformed');
        reply.body = reply.body.replace('"', '');
      } else if (faults.oversized && this.engine.roll(faults.oversized, route)) {
        this.stats.fault('oversized');
        await this.#writeOversized(ctx, reply.body, faults.oversized.bytes);
        return;
      }
    }
    this.#write(ctx, reply);
  }

  async #dispatch(ctx: Ctx, route: Route, params: readonly string[]): Promise<Reply | undefined> {
    switch (route) {
      case '/health':
        return { status: 200, body: this.#leaderHealthBody('healthy'), mutable: true };
      case '/auth/login':
        return this.#login(ctx);
      case '/oauth/token':
        return this.#oauth(ctx);
      case '/v1/organizations/{organizationId}/workspaces':
        return this.#authorize(ctx, 'mgmt') ?? this.#workspaces(params[0] ?? '');
    }
    const denied = this.#authorize(ctx, 'control');
    if (denied) return denied;
    switch (route) {
      case '/products/{product}/workers':
        return this.#workers(ctx, params[0] ?? '');
      case '/master/workers':
        return this.#workers(ctx, 'all');
      case '/products/{product}/groups':
        return this.#groups(ctx, params[0] ?? '');
      case '/master/groups':
        return this.#groups(ctx, new URLSearchParams(ctx.search).get('product') ?? 'all');
      case '/w/{nodeId}/health':
      case '/w/{nodeId}/edge/metadata':
        return this.#proxied(route, params[0] ?? '');
      case '/m/{group}/version':
        return this.#version(ctx, params[0] ?? '');
    }
  }

  // ---- handlers ----

  #workers(ctx: Ctx, product: string): Reply {
    const scope = product === 'all' ? 'all' : this.#product(product);
    if (scope === undefined) return this.#fail('control', 400, `Invalid product "${product}": expected stream, edge or outpost`);
    const paging = parsePaging(new URLSearchParams(ctx.search));
    if (typeof paging === 'string') return this.#fail('control', 400, paging);
    const { offset, limit } = paging;
    const now = this.clock.now();
    const page =
      scope === 'outpost' ? { items: '', count: 0, total: 0 } : this.fleet.renderPage(scope, offset, limit, now);
    let body = `{"count":${page.count},"items":[${page.items}]`;
    // The old /master/workers envelope is only {count, items}.
    if (product !== 'all' && !this.legacy) {
      if (limit !== undefined) body += `,"offset":${offset},"limit":${limit},"totalCount":${page.total}`;
      else if (paging.offsetGiven) body += `,"offset":${offset}`;
    }
    return { status: 200, body: body + '}', mutable: true };
  }

  #groups(ctx: Ctx, product: string): Reply {
    const query = new URLSearchParams(ctx.search);
    const scope = product === 'all' ? 'all' : this.#product(product);
    if (scope === undefined) return this.#fail('control', 400, `Invalid product "${product}": expected stream, edge or outpost`);
    let groups =
      scope === 'all' ? [...this.fleet.groups('stream'), ...this.fleet.groups('edge')] : scope === 'outpost' ? [] : [...this.fleet.groups(scope)];
    const fields = new Set((query.get('fields') ?? '').split(',').map((f) => f.trim()).filter((f) => f.startsWith('git.')));
    if (fields.size > 0) groups = groups.map((g) => ({ ...g, git: this.fleet.git(g.id, fields) }));
    // Group paging arrived with 4.17 (4.15.1 documents only `fields`).
    const paged = !this.legacy && ctx.route === '/products/{product}/groups';
    if (!paged) return { status: 200, body: JSON.stringify({ count: groups.length, items: groups }), mutable: true };
    return this.#paged(query, groups);
  }

  #version(ctx: Ctx, group: string): Reply {
    const commits = this.fleet.commits(group);
    if (!commits) return this.#fail('control', 404, `Group "${group}" not found`);
    const query = new URLSearchParams(ctx.search);
    const countParam = query.get('count');
    if (countParam !== null && !/^\d+$/.test(countParam)) return this.#fail('control', 400, 'count must be a non-negative integer');
    const considered = countParam === null ? commits : commits.slice(0, Number(countParam));
    return this.#paged(query, considered);
  }

  #paged(query: URLSearchParams, all: readonly unknown[]): Reply {
    const paging = parsePaging(query);
    if (typeof paging === 'string') return this.#fail('control', 400, paging);
    const { offset, limit } = paging;
    const items = all.slice(offset, limit === undefined ? undefined : offset + limit);
    const env: Record<string, unknown> = { count: items.length, items };
    if (limit !== undefined) Object.assign(env, { offset, limit, totalCount: all.length });
    else if (paging.offsetGiven) env.offset = offset;
    return { status: 200, body: JSON.stringify(env), mutable: true };
  }

  async #proxied(route: '/w/{nodeId}/health' | '/w/{nodeId}/edge/metadata', id: string): Promise<Reply | undefined> {
    const rec = this.fleet.lookup(id);
    if (!rec) return this.#fail('control', 404, `Node "${id}" not found`);
    if (rec.disconnected || rec.health === 'unreachable') {
      return this.#fail('control', 502, `Failed to proxy request to node "${id}": connect ECONNREFUSED`);
    }
    if (rec.health === 'slow') {
      this.stats.fault('slow');
      if (!(await this.#sleep(this.engine.faults.slowNodeDelay))) return undefined;
    }
    if (route === '/w/{nodeId}/edge/metadata') {
      return { status: 200, body: this.fleet.metadataJson(rec, this.clock.now()), mutable: true };
    }
    return nodeHealth(rec);
  }

  async #login(ctx: Ctx): Promise<Reply> {
    const wait = this.engine.loginLimit(`addr:${ctx.req.socket.remoteAddress ?? ''}`);
    if (wait !== undefined) {
      drain(ctx.req);
      this.stats.fault('login-ratelimit');
      const reply = this.#fail('control', 429, 'Too many login attempts, please try again later.');
      this.#retryAfter(ctx, reply, wait, 'seconds');
      return reply;
    }
    if (mediaType(ctx.req) !== 'application/json') {
      drain(ctx.req);
      return this.#fail('control', 415, 'Unsupported Media Type: expected application/json');
    }
    const raw = await readBody(ctx.req);
    if (raw === undefined) return this.#fail('control', 413, 'Request body larger than 5 MB');
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return this.#fail('control', 400, 'Request body is not valid JSON');
    }
    const { username, password } = (body ?? {}) as { username?: unknown; password?: unknown };
    if (typeof username !== 'string' || typeof password !== 'string') {
      return this.#fail('control', 400, 'username and password are required');
    }
    const user = this.users.find((u) => u.username === username && u.password === password);
    if (!user) return this.#fail('control', 401, AUTH_FAILED);
    const { token } = this.tokens.issue(username, this.engine.faults.tokenTtl, user.permitted ?? true);
    return { status: 200, body: JSON.stringify({ token, forcePasswordChange: false }), mutable: true };
  }

  async #oauth(ctx: Ctx): Promise<Reply> {
    const type = mediaType(ctx.req);
    if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') {
      drain(ctx.req);
      return oauthError(415, 'invalid_request', 'Content-Type must be application/json or application/x-www-form-urlencoded');
    }
    const raw = await readBody(ctx.req);
    if (raw === undefined) return oauthError(413, 'invalid_request', 'Request body larger than 5 MB');
    let fields: Record<string, unknown>;
    try {
      fields = type === 'application/json' ? (JSON.parse(raw) as Record<string, unknown>) : Object.fromEntries(new URLSearchParams(raw));
      if (typeof fields !== 'object' || fields === null) throw new Error('not an object');
    } catch {
      return oauthError(400, 'invalid_request', 'Malformed request body');
    }
    if (fields.grant_type !== 'client_credentials') {
      return oauthError(400, 'unsupported_grant_type', 'Only client_credentials is supported');
    }
    const client = this.clients.find((c) => c.clientId === fields.client_id && c.clientSecret === fields.client_secret);
    if (!client) return oauthError(401, 'access_denied', 'Unauthorized');
    const ttl = this.engine.faults.oauthTokenTtl;
    const { token } = this.tokens.issue(client.clientId, ttl);
    const body = { access_token: token, token_type: 'Bearer', expires_in: Math.floor(ttl / 1000) };
    return { status: 200, body: JSON.stringify(body), mutable: true };
  }

  #workspaces(organizationId: string): Reply {
    if (this.organizationId !== undefined && organizationId !== this.organizationId) {
      return this.#fail('mgmt', 403, 'Forbidden');
    }
    return { status: 200, body: JSON.stringify({ items: this.workspaces, count: this.workspaces.length }), mutable: true };
  }

  // ---- helpers ----

  #authorize(ctx: Ctx, plane: 'control' | 'mgmt'): Reply | undefined {
    const token = bearerToken(ctx.req.headers.authorization);
    const check = token === undefined ? 'invalid' : this.tokens.check(token);
    if (check === 'ok') return undefined;
    if (check === 'forbidden') return this.#fail(plane, 403, plane === 'mgmt' ? 'Forbidden' : 'Not authorized or licensed');
    return this.#fail(plane, 401, plane === 'mgmt' ? 'Unauthorized' : AUTH_FAILED);
  }

  #product(p: string): Product | 'outpost' | undefined {
    if (p === 'outpost') return 'outpost';
    return (PRODUCTS as readonly string[]).includes(p) ? (p as Product) : undefined;
  }

  #leaderHealthBody(state: 'healthy' | 'standby' | 'shutting down'): string {
    const body: Record<string, unknown> = { status: state, startTime: this.startedAt };
    if (!this.legacy) body.role = state === 'standby' ? 'standby' : 'primary';
    return JSON.stringify(body);
  }

  #error(message: string): string {
    return JSON.stringify(this.legacy ? { message } : { status: 'error', message });
  }

  #fail(plane: Plane, status: number, message: string): Reply {
    if (plane === 'mgmt') return { status, body: JSON.stringify({ statusCode: status, message }) };
    if (plane === 'oauth') return oauthError(status, status === 429 ? 'too_many_requests' : 'invalid_request', message);
    return { status, body: this.#error(message) };
  }

  #client(ctx: Ctx): string {
    if (ctx.client === undefined) {
      const token = bearerToken(ctx.req.headers.authorization);
      ctx.client = token ? tokenLabel(token) : `addr:${ctx.req.socket.remoteAddress ?? ''}`;
    }
    return ctx.client;
  }

  #retryAfter(ctx: Ctx, reply: Reply, waitMs: number, form: 'seconds' | 'http-date'): void {
    const now = this.clock.now();
    let value: string;
    let until: number;
    if (form === 'seconds') {
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      value = String(seconds);
      until = now + seconds * 1000;
    } else {
      // HTTP-dates have whole seconds: round up so that the date is never earlier than we mean.
      until = Math.ceil((now + Math.max(1000, waitMs)) / 1000) * 1000;
      value = new Date(until).toUTCString();
    }
    reply.headers = { ...reply.headers, 'retry-after': value };
    this.stats.sentRetryAfter(this.#client(ctx), until);
  }

  async #sleep(ms: number): Promise<boolean> {
    try {
      await this.clock.sleep(ms, this.abort.signal);
      return true;
    } catch {
      return false;
    }
  }

  #write(ctx: Ctx, reply: Reply): void {
    const { res } = ctx;
    if (res.headersSent || res.destroyed) return;
    res.writeHead(reply.status, {
      'content-type': JSON_TYPE,
      'content-length': Buffer.byteLength(reply.body),
      ...reply.headers,
    });
    res.end(reply.body);
  }

  async #writeOversized(ctx: Ctx, body: string, bytes: number): Promise<void> {
    const { res } = ctx;
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
}

function nodeHealth(rec: NodeRec): Reply {
  const status = rec.health === 'slow' ? 'healthy' : rec.health;
  return {
    status: status === 'healthy' ? 200 : 420,
    body: `{"status":"${status}","startTime":${rec.startTime}}`,
    mutable: true,
  };
}

function oauthError(status: number, error: string, description: string): Reply {
  return { status, body: JSON.stringify({ error, error_description: description }) };
}

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function parsePaging(query: URLSearchParams): { offset: number; limit?: number; offsetGiven: boolean } | string {
  const o = query.get('offset');
  const l = query.get('limit');
  if (o !== null && !/^\d+$/.test(o)) return 'offset must be a non-negative integer';
  if (l !== null && !/^\d+$/.test(l)) return 'limit must be a non-negative integer';
  const out: { offset: number; limit?: number; offsetGiven: boolean } = { offset: o === null ? 0 : Number(o), offsetGiven: o !== null };
  if (l !== null) out.limit = Number(l);
  return out;
}

/** Discards the rest of a request body, giving up on absurd uploads. */
function drain(req: IncomingMessage): void {
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > 16 * MAX_REQUEST_BODY) req.socket.destroy();
  });
  req.resume();
}

/** Reads a request body as UTF-8; undefined when it exceeds MAX_REQUEST_BODY (the rest is drained). */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BODY) {
      drain(req);
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function drained(res: ServerResponse): Promise<void> {
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

/** Starts a simulated leader; see docs/simulator.md. Rejects when the address cannot be bound or options are invalid. */
export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const scenario = opts.scenario;
  const seed = opts.seed ?? scenario?.fleet?.seed ?? 1;
  const nodes = opts.nodes ?? scenario?.fleet?.nodes ?? 50;
  const leaderVersion = opts.leaderVersion ?? scenario?.fleet?.leaderVersion ?? '4.19';
  if (!Number.isInteger(nodes) || nodes < 0) throw new Error(`nodes must be a non-negative integer (got ${nodes})`);
  if (!/^\d+\.\d+(\.\d+)?$/.test(leaderVersion)) throw new Error(`leaderVersion must look like "4.19" (got "${leaderVersion}")`);
  const clock = opts.clock ?? systemClock;
  const startedAt = clock.now();

  // Credentials come from their own stream so that they do not change with the fleet size.
  const idRandom = seededRandom((seed ^ 0x2545f491) >>> 0);
  const token = opts.token ?? `sim-${randomHex(idRandom, 24)}`;
  const forbiddenToken = opts.forbiddenToken ?? `sim-noperm-${randomHex(idRandom, 24)}`;
  const tokens = new TokenStore(clock, randomHex(idRandom, 32), token, forbiddenToken);

  const fleet = new SimFleet({ nodes, leaderVersion, clock, random: seededRandom(seed) });
  const f = scenario?.fleet;
  if (f?.hostileIds) fleet.addHostileNodes();
  if (f?.health) {
    const h = f.health;
    fleet.seedStates(h.unreachable ?? 0, (id) => fleet.setHealth(id, 'unreachable'));
    fleet.seedStates(h.slow ?? 0, (id) => fleet.setHealth(id, 'slow'));
    fleet.seedStates(h.standby ?? 0, (id) => fleet.setHealth(id, 'standby'));
    fleet.seedStates(h.shuttingDown ?? 0, (id) => fleet.setHealth(id, 'shutting down'));
  }
  if (f?.disconnected) fleet.seedStates(f.disconnected, (id) => fleet.setDisconnected(id, true));

  const [major, minor] = parseVersion(leaderVersion);
  const app = new SimulatorApp({
    fleet,
    engine: new FaultEngine(clock, opts.random ?? seededRandom((seed ^ 0x5eed) >>> 0), startedAt, { ...DEFAULT_FAULTS }),
    stats: new StatsRecorder(() => clock.now()),
    tokens,
    clock,
    legacy: major < 4 || (major === 4 && minor < 17),
    startedAt,
    users: opts.users ?? scenario?.users ?? [{ username: 'admin', password: 'admin' }],
    clients: opts.clients ?? scenario?.clients ?? [{ clientId: 'sim-client', clientSecret: 'sim-secret' }],
    workspaces: [...(opts.workspaces ?? scenario?.workspaces ?? [])],
    organizationId: opts.organizationId,
  });
  if (scenario) app.patchFaults(scenario.faults);

  const server: Server = opts.tls
    ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key }, app.handle)
    : createHttpServer(app.handle);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  const origin = `${opts.tls ? 'https' : 'http'}://${urlHost}:${port}`;
  let closing: Promise<void> | undefined;

  return {
    origin,
    baseUrl: `${origin}/api/v1`,
    adminUrl: `${origin}/_sim`,
    token,
    forbiddenToken,
    oauthTokenUrl: `${origin}/oauth/token`,
    managementUrl: origin,
    fleet,
    setFaults: (patch: FaultsPatch) => void app.patchFaults(patch),
    faults: () => structuredClone(app.engine.faults),
    setWorkspaces: (ws: Workspace[]) => {
      app.workspaces = [...ws];
    },
    revokeTokens: () => tokens.revokeIssued(),
    stats: () => app.stats.snapshot(),
    resetStats: () => app.stats.reset(),
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        app.abort.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

