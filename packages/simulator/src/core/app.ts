import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Workspace } from '@cribl-exporter/api/shapes';
import type { Clock } from '@cribl-exporter/api/clock';
import { handleAdmin, isLoopback } from './admin.js';
import type { TokenStore } from './auth.js';
import { bearerToken, tokenLabel } from './auth.js';
import type { ConfigStore } from './config-store.js';
import { windowProblem } from './dataflow.js';
import type { DataflowModel, GroupFlow } from './dataflow.js';
import { throughputWindowProblem } from '../endpoints/metrics-query/truth.js';
import type { ThroughputModel } from '../endpoints/metrics-query/throughput.js';
import { AUTH_FAILED, type AppEnv, type Request } from './env.js';
import type { Plane } from './route-names.js';
import type { FaultEngine } from './fault-engine.js';
import { DEFAULT_FAULTS, faultsPatchSchema, formatIssues, mergeFaults } from './faults.js';
import type { Faults } from './faults.js';
import { stampSchedules } from './schedule.js';
import type { SimFleet } from './fleet.js';
import { JSON_TYPE, MAX_REQUEST_BODY, writeDripping, writeOversized, writeReply } from './http.js';
import type { Reply } from './http.js';
import type { LeaderInfo } from './leader-info.js';
import type { HaModel } from './ha.js';
import type { Workspaces } from '../endpoints/workspaces/workspaces.js';
import { ROUTE_TABLE, UNMATCHED } from './router.js';
import { planeOf } from './route-names.js';
import type { NodeRec } from './fleet-model.js';
import type { SearchJobs } from '../endpoints/search-jobs/jobs.js';
import type { StatsRecorder } from './stats.js';
import type { SimClient, SimUser } from '../types.js';

/** Message of the leader's 401 answers (spec 4.19 example). */
export { AUTH_FAILED } from './env.js';

const READS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  route: string;
  /** Status recorded in the statistics when it is not an HTTP status ("reset"). */
  outcome?: string;
  client?: string;
}

/** What the app is built from (startSimulator assembles it). */
export interface AppInit {
  fleet: SimFleet;
  config: ConfigStore;
  search: SearchJobs;
  workspaces: Workspaces;
  engine: FaultEngine;
  stats: StatsRecorder;
  tokens: TokenStore;
  clock: Clock;
  legacy: boolean;
  /** Health bodies carry `overlay` (4.18.2 and later). */
  overlay: boolean;
  version: readonly [number, number, number];
  dataflow: DataflowModel;
  throughput: ThroughputModel;
  leaderInfo: LeaderInfo;
  startedAt: number;
  users: readonly SimUser[];
  clients: readonly SimClient[];
  organizationId: string | undefined;
  /** The HA hosts, when the simulator runs several (core/ha.ts). */
  ha?: HaModel | undefined;
}

/** Which address a request came in on: an HA host (its index) or the load balancer; undefined without HA. */
export type Via = number | 'lb' | undefined;

/** The request pipeline of one simulator: routing, faults, authentication, handlers, statistics. */
export class SimulatorApp implements AppEnv {
  readonly fleet: SimFleet;
  readonly config: ConfigStore;
  readonly search: SearchJobs;
  readonly workspaces: Workspaces;
  readonly engine: FaultEngine;
  readonly stats: StatsRecorder;
  readonly tokens: TokenStore;
  readonly clock: Clock;
  readonly legacy: boolean;
  readonly overlay: boolean;
  readonly version: readonly [number, number, number];
  readonly dataflow: DataflowModel;
  readonly throughput: ThroughputModel;
  readonly leaderInfo: LeaderInfo;
  readonly startedAt: number;
  /** Whether 420 bodies of a leader set to standby / shutting down by hand carry `role` (POST /_sim/leader). */
  leaderRole = true;
  readonly users: readonly SimUser[];
  readonly clients: readonly SimClient[];
  readonly organizationId: string | undefined;
  readonly ha: HaModel | undefined;
  readonly abort = new AbortController();
  /** Requests parked in a sleep (latency, slow nodes): close() ends them all. */
  readonly #sleepers = new Set<AbortController>();
  #churnLoop: AbortController | undefined;
  /** When disconnected nodes were last checked against maxWorkerAge. */
  #expiredAt = Number.NEGATIVE_INFINITY;

  constructor(init: AppInit) {
    this.fleet = init.fleet;
    this.config = init.config;
    this.search = init.search;
    this.workspaces = init.workspaces;
    this.engine = init.engine;
    this.stats = init.stats;
    this.tokens = init.tokens;
    this.clock = init.clock;
    this.legacy = init.legacy;
    this.overlay = init.overlay;
    this.version = init.version;
    this.dataflow = init.dataflow;
    this.throughput = init.throughput;
    this.leaderInfo = init.leaderInfo;
    this.startedAt = init.startedAt;
    this.users = init.users;
    this.clients = init.clients;
    this.organizationId = init.organizationId;
    this.ha = init.ha;
  }

  get faults(): Readonly<Faults> {
    return this.engine.faults;
  }

  /** The admin endpoint's view of the management-plane list. */
  get workspaceList(): Workspace[] {
    return this.workspaces.list(this.clock.now(), this.engine.faults.workspaceTransition);
  }

  /**
   * Validates and applies a faults patch (top-level keys replace); throws a one-line Error when invalid. Scheduled
   * entries without `start` begin now.
   */
  patchFaults(patch: unknown, replace = false): Faults {
    const parsed = faultsPatchSchema.safeParse(patch);
    if (!parsed.success) throw new Error(`invalid faults: ${formatIssues(parsed.error, 'faults')}`);
    stampSchedules(parsed.data, this.clock.now() - this.startedAt);
    const next = mergeFaults(replace ? DEFAULT_FAULTS : this.engine.faults, parsed.data);
    const problem = this.#signalProblem(next);
    if (problem) throw new Error(`invalid faults: ${problem}`);
    const churnChanged = next.churn !== this.engine.faults.churn;
    this.engine.set(next);
    if (churnChanged) this.#restartChurn();
    return next;
  }

  /**
   * Appends a throughput window (stamped now unless it has a `start`): the windows before it stay, so the past of
   * the flow model does not change. Throws a one-line Error when invalid.
   */
  addThroughputWindow(w: unknown): Faults {
    const { windows, outages } = this.engine.faults.throughput;
    return this.patchFaults({ throughput: { windows: [...windows, w], outages } });
  }

  /** The destinations and sources of a group, or undefined for unknown groups. */
  flow(group: string): GroupFlow | undefined {
    const product = this.fleet.groupProduct(group);
    return product && this.dataflow.group(group, product);
  }

  /** Why the signal faults cannot apply to this fleet (unknown groups, items, licences), or undefined. */
  #signalProblem(f: Faults): string | undefined {
    for (const [i, w] of f.dataflow.windows.entries()) {
      const problem = windowProblem(w, (g) => this.flow(g));
      if (problem) return `faults.dataflow.windows.${i}: ${problem}`;
    }
    for (const [i, w] of f.throughput.windows.entries()) {
      const problem = throughputWindowProblem(this, w);
      if (problem) return `faults.throughput.windows.${i}: ${problem}`;
    }
    for (const [i, w] of f.groupWindows.entries()) {
      if (!this.fleet.hasGroup(w.group))
        return `faults.groupWindows.${i}.group: unknown group ${JSON.stringify(w.group)}`;
    }
    const ids = f.license.licenses.map((l) => l.id);
    for (const [i, w] of f.license.windows.entries()) {
      if (w.license !== undefined && !ids.includes(w.license)) {
        const id = JSON.stringify(w.license);
        return `faults.license.windows.${i}.license: no licence with id ${id} in faults.license.licenses`;
      }
    }
    return undefined;
  }

  /** Removes the nodes disconnected for longer than maxWorkerAge (at most once per second of the clock). */
  expireNodes(): void {
    const maxAge = this.engine.faults.maxWorkerAge;
    if (maxAge === null) return;
    const now = this.clock.now();
    if (now - this.#expiredAt < 1000) return;
    this.#expiredAt = now;
    this.fleet.expireDisconnected(maxAge, now);
  }

  /** Stops the churn loop and every parked request. */
  stop(): void {
    this.abort.abort();
    for (const s of this.#sleepers) s.abort();
    this.#sleepers.clear();
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
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => this.handler(undefined)(req, res);

  /** The entry point of one address: an HA host, the load balancer, or (undefined) the only one. */
  handler(via: Via): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => this.#entry(req, res, via);
  }

  #entry(req: IncomingMessage, res: ServerResponse, via: Via): void {
    this.#handle(req, res, via).catch(() => {
      const ctx = { req, res, route: UNMATCHED };
      if (!res.headersSent) this.#write(ctx, this.fail('control', 500, 'Internal Server Error'));
      else res.destroy();
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse, via: Via): Promise<void> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q < 0 ? url : url.slice(0, q);
    const search = q < 0 ? '' : url.slice(q + 1);
    const match = ROUTE_TABLE.match(pathname, this.legacy);
    this.expireNodes();
    if (match.kind === 'admin') {
      if (!isLoopback(req.socket.remoteAddress)) {
        req.resume();
        res
          .writeHead(403, { 'content-type': JSON_TYPE })
          .end('{"error":"the admin endpoint answers loopback clients only"}');
        return;
      }
      await handleAdmin(this, req, res, match.rest, search);
      return;
    }
    // HA: the host this request reaches (the load balancer's choice), which may be down or standby.
    let host: number | undefined;
    if (this.ha && via !== undefined) {
      host = via === 'lb' ? this.ha.route() : via;
      if (host === undefined) {
        req.resume();
        res.writeHead(503, { 'content-type': 'text/plain' }).end('no healthy upstream');
        return;
      }
      if (this.ha.state(host) === 'down') {
        req.socket.destroy();
        return;
      }
    }
    const ctx: Ctx = { req, res, route: match.kind === 'route' ? match.route : UNMATCHED };
    this.stats.begin();
    res.once('close', () => {
      this.stats.end(ctx.route, ctx.outcome ?? (res.headersSent ? String(res.statusCode) : 'aborted'));
    });
    if (this.stats.watching) this.stats.checkRetryAfter(this.#client(ctx));

    const plane = planeOf(ctx.route);
    const method = req.method ?? 'GET';
    // Over the limit by its own declaration: answered before reading any of it (the spec's 5 MB limit).
    if (Number(req.headers['content-length'] ?? 0) > MAX_REQUEST_BODY) {
      this.#write(ctx, { ...this.fail(plane, 413, 'Request body larger than 5 MB'), close: true });
      return;
    }
    if (match.kind !== 'route') {
      if (match.kind === 'bad-path') this.#write(ctx, this.fail(plane, 400, 'Malformed percent-encoding in path'));
      else this.#write(ctx, this.fail(plane, 404, `Not Found: ${method} ${pathname}`));
      return;
    }
    const route = match.route;
    if (!match.methods.includes(method)) {
      const reply = this.fail(plane, 405, `Method ${method} not allowed on ${route}`);
      reply.headers = { ...reply.headers, allow: match.methods.join(', ') };
      this.#write(ctx, reply);
      return;
    }
    if (READS.has(method) || method === 'DELETE') req.resume();

    const latency = this.engine.latency(route);
    if (latency > 0 && !(await this.#sleep(latency, ctx))) return;

    if (plane === 'control') {
      let { state, role } = this.engine.leaderWindow(this.fleet.leaderState(), this.leaderRole);
      if (state === 'healthy' && host !== undefined && this.ha?.state(host) === 'standby') {
        state = 'standby';
        role = true;
      }
      if (state !== 'healthy') {
        this.stats.fault('leader-420');
        this.#write(ctx, { status: 420, body: this.leaderHealthBody(state, role) });
        return;
      }
      if (host !== undefined && route !== '/health') this.ha?.noteServed(host);
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
      const reply = this.fail(plane, 429, 'Too many requests, please try again later.');
      const form = faults.rateLimit?.retryAfter ?? 'seconds';
      const fixed = faults.rateLimit?.retryAfterSeconds;
      if (form !== 'none') this.#retryAfter(ctx, reply, fixed === undefined ? wait : fixed * 1000, form);
      this.#write(ctx, reply);
      return;
    }
    const unavailable = this.engine.unavailable(route);
    if (unavailable) {
      this.stats.fault('unavailable');
      const reply = this.fail(plane, 503, 'Service Unavailable');
      if (unavailable.retryAfter !== null) {
        this.#retryAfter(ctx, reply, unavailable.retryAfter * 1000, unavailable.retryAfterForm);
      }
      this.#write(ctx, reply);
      return;
    }

    const token = bearerToken(req.headers.authorization);
    if (match.line.auth) {
      const denied = this.#authorize(plane, method, token, route);
      if (denied) {
        this.#write(ctx, denied);
        return;
      }
    }
    const r: Request = { req, route, method, params: match.params, query: new URLSearchParams(search), token };
    const reply = await match.line.handle(this, r, {
      proxied: (id, answer) => this.#proxied(ctx, id, answer),
      retryAfter: (reply, wait) => this.#retryAfter(ctx, reply, wait, 'seconds'),
    });
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
        await writeOversized(ctx.res, reply.body, faults.oversized.bytes);
        return;
      }
      if (faults.drip && this.engine.roll(faults.drip, route)) {
        this.stats.fault('drip');
        await writeDripping(ctx.res, reply.body, faults.drip, (ms) => this.#sleep(ms, ctx));
        return;
      }
    }
    this.#write(ctx, reply);
  }

  /** A node's own answer through the leader (Hooks.proxied). */
  async #proxied(ctx: Ctx, id: string, answer: (node: NodeRec) => Reply): Promise<Reply | undefined> {
    const rec = this.fleet.lookup(id);
    if (!rec) return this.fail('control', 404, `Node "${id}" not found`);
    if (rec.disconnected || rec.health === 'unreachable') {
      return this.fail('control', 502, `Failed to proxy request to node "${id}": connect ECONNREFUSED`);
    }
    if (rec.health === 'slow') {
      this.stats.fault('slow');
      if (!(await this.#sleep(this.engine.faults.slowNodeDelay, ctx))) return undefined;
    }
    return answer(rec);
  }

  // ---- helpers ----

  /**
   * 401 for a missing, unknown, expired or revoked token; 403 without permission, for a read-only token's write, or
   * on a route the token is restricted from.
   */
  #authorize(plane: Plane, method: string, token: string | undefined, route: string): Reply | undefined {
    const check = token === undefined ? 'invalid' : this.tokens.check(token);
    if (check === 'invalid') return this.fail(plane, 401, plane === 'mgmt' ? 'Unauthorized' : AUTH_FAILED);
    const allowed = check === 'ok' || (check === 'read-only' && READS.has(method));
    if (allowed && !this.tokens.denies(token as string, route)) return undefined;
    return this.fail(plane, 403, plane === 'mgmt' ? 'Forbidden' : 'Not authorized or licensed');
  }

  /**
   * The leader's GET /health body (also the body of every 420 while it is not serving). `role` false leaves the
   * role out, as leaders before 4.17 do.
   */
  leaderHealthBody(state: 'healthy' | 'standby' | 'shutting down', role = true): string {
    const body: Record<string, unknown> = { status: state, startTime: this.startedAt };
    if (!this.legacy && role) body.role = state === 'standby' ? 'standby' : 'primary';
    if (this.overlay) body.overlay = { state: 'inactive' };
    return JSON.stringify(body);
  }

  fail(plane: Plane, status: number, message: string): Reply {
    if (plane === 'mgmt') return { status, body: JSON.stringify({ statusCode: status, message }) };
    if (plane === 'oauth') {
      const error = status === 429 ? 'too_many_requests' : 'invalid_request';
      return { status, body: JSON.stringify({ error, error_description: message }) };
    }
    return { status, body: JSON.stringify(this.legacy ? { message } : { status: 'error', message }) };
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

  /**
   * Holds a request on the injected clock. The sleep ends early when the client goes away (its own abort signal,
   * so abandoned requests leave no listener behind) or the simulator closes; false then.
   */
  async #sleep(ms: number, ctx: Ctx): Promise<boolean> {
    if (this.abort.signal.aborted || ctx.res.destroyed) return false;
    const ac = new AbortController();
    const gone = (): void => ac.abort();
    ctx.res.once('close', gone);
    this.#sleepers.add(ac);
    try {
      await this.clock.sleep(ms, ac.signal);
      return true;
    } catch {
      return false;
    } finally {
      ctx.res.off('close', gone);
      this.#sleepers.delete(ac);
    }
  }

  #write(ctx: Ctx, reply: Reply): void {
    writeReply(ctx.req, ctx.res, reply);
  }
}
