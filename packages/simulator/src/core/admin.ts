import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as z from 'zod';
import type { Workspace } from '@cribl-exporter/api/shapes';
import type { Clock } from '@cribl-exporter/api/clock';
import type { TokenStore } from './auth.js';
import type { ConfigStore } from './config-store.js';
import type { FaultEngine } from './fault-engine.js';
import { formatIssues } from './faults.js';
import type { Faults } from './faults.js';
import type { SimFleet } from './fleet.js';
import type { Workspaces } from '../endpoints/workspaces/workspaces.js';
import type { HaModel } from './ha.js';
import type { GroupFlow } from './dataflow.js';
import type { Env } from './env.js';
import type { SearchJobs } from '../endpoints/search-jobs/jobs.js';
import type { StatsRecorder } from './stats.js';

/**
 * The admin endpoint's machinery (/_sim/…, loopback clients only): its table of hooks, one line per method and
 * path (src/routes.ts lists them: core's in core/admin-hooks.ts, an endpoint's in its folder), its errors
 * (`{error: "<one line>"}`) and body reading. Requests here bypass faults and statistics.
 */

/** What the admin endpoint reads and changes (the simulator app implements it). */
export interface AdminDeps extends Env {
  readonly fleet: SimFleet;
  readonly stats: StatsRecorder;
  readonly tokens: TokenStore;
  readonly engine: FaultEngine;
  readonly config: ConfigStore;
  readonly search: SearchJobs;
  readonly workspaces: Workspaces;
  readonly workspaceList: Workspace[];
  readonly clock: Clock;
  /** Whether the 420 bodies of a leader set to standby by hand carry `role`. */
  leaderRole: boolean;
  /** Validates and applies faults; throws a one-line Error when invalid. */
  patchFaults(patch: unknown, replace?: boolean): Faults;
  /** A group's destinations and sources, or undefined. */
  flow(group: string): GroupFlow | undefined;
  /** The HA hosts, when there are several. */
  readonly ha: HaModel | undefined;
  /** Appends a throughput window (from now unless it has a `start`); throws a one-line Error when invalid. */
  addThroughputWindow(window: unknown): Faults;
}

/** Where an admin request points: the path segments after /_sim, and the query. */
export interface AdminAt {
  /** Every segment after /_sim. */
  rest: readonly string[];
  /** The second segment as sent (an id, percent-encoded), when there is one. */
  id: string | undefined;
  search: string;
}

/** An admin hook: the status and JSON body to answer, or undefined for "no such admin endpoint". */
export type AdminHandler = (
  deps: AdminDeps,
  req: IncomingMessage,
  at: AdminAt,
) => [number, unknown] | undefined | Promise<[number, unknown] | undefined>;

/** One line of the admin table. */
export interface AdminLine {
  readonly method: string;
  /** `a`, `a/b` or `a/{x}/c`: up to three segments; `{…}` in the second place matches any segment. */
  readonly path: string;
  readonly handle: AdminHandler;
  /** Every path below `path` too, the handler telling what it answers (the HA hooks). */
  readonly prefix?: true;
  /** How GET /_sim lists it, when not as `METHOD /_sim/path`. */
  readonly docs?: readonly string[];
}

/** A line of the admin table. */
export function admin(
  method: string,
  path: string,
  handle: AdminHandler,
  opts: { prefix?: true; docs?: readonly string[] } = {},
): AdminLine {
  return { method, path, handle, ...opts };
}

/** The admin hooks: src/routes.ts adds its lines. */
export class AdminTable {
  readonly #lines: AdminLine[] = [];
  readonly #byKey = new Map<string, AdminLine>();

  add(...lines: readonly AdminLine[]): void {
    for (const line of lines) {
      const key = `${line.method} ${line.path.replace(/^([^/]*)\/\{[^}]+\}/, '$1/:x')}`;
      if (!line.prefix && this.#byKey.has(key)) throw new Error(`the admin table already has ${key}`);
      this.#lines.push(line);
      if (!line.prefix) this.#byKey.set(key, line);
    }
  }

  /** The line of a request: the prefix line of its first segment, else by method and up to three segments. */
  find(method: string, rest: readonly string[]): AdminLine | undefined {
    const [a = '', b, c] = rest;
    const prefixed = this.#lines.find((l) => l.prefix && l.path === a);
    if (prefixed) return prefixed;
    const tail = c === undefined ? '' : `/${c}`;
    const literal = `${method} ${a}${b === undefined ? '' : `/${b}`}${tail}`;
    const param = `${method} ${a}${b === undefined ? '' : b === '' ? '/' : '/:x'}${tail}`;
    return this.#byKey.get(literal) ?? this.#byKey.get(param);
  }

  /** True when some line lives under this first segment (405 rather than 404 for another method). */
  knows(first: string): boolean {
    return first !== '' && this.#lines.some((l) => l.path.split('/')[0] === first);
  }

  /** What GET /_sim lists: `GET|PUT /_sim/path` per path, in the order added. */
  listing(): string[] {
    const out: string[] = [];
    const byPath = new Map<string, string[]>();
    for (const l of this.#lines) {
      if (l.docs) {
        out.push(...l.docs);
        continue;
      }
      if (l.path === '' || l.path === '/') continue;
      const methods = byPath.get(l.path);
      if (methods) methods.push(l.method);
      else {
        const list = [l.method];
        byPath.set(l.path, list);
        out.push(l.path);
      }
    }
    return out.map((p) => {
      const methods = byPath.get(p);
      return methods ? `${methods.join('|')} /_sim/${p}` : p;
    });
  }
}

/** The admin endpoint's hooks. */
export const ADMIN_TABLE = new AdminTable();

/** Largest admin request body. */
const ADMIN_BODY_LIMIT = 1_000_000;

/** An admin error: its status and one line. */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** True for loopback peers (127.0.0.0/8, ::1, and IPv4-mapped 127.x): the only clients the admin endpoint serves. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * Serves /_sim/… (loopback clients only; checked by the caller). Requests here bypass faults and
 * statistics. Errors are `{error: "<one line>"}`.
 */
export async function handleAdmin(
  deps: AdminDeps,
  req: IncomingMessage,
  res: ServerResponse,
  rest: readonly string[],
  search: string,
): Promise<void> {
  let status = 200;
  let body: unknown;
  try {
    [status, body] = await route(deps, req, rest, search);
  } catch (e) {
    status = e instanceof AdminError ? e.status : 400;
    body = { error: e instanceof Error ? e.message : String(e) };
  }
  if (status === 204) {
    res.writeHead(204).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function route(
  deps: AdminDeps,
  req: IncomingMessage,
  rest: readonly string[],
  search: string,
): Promise<[number, unknown]> {
  const method = req.method ?? 'GET';
  const line = ADMIN_TABLE.find(method, rest);
  const answer = line ? await line.handle(deps, req, { rest, id: rest[1], search }) : undefined;
  if (answer) return answer;
  drain(req);
  const first = rest[0] ?? '';
  throw new AdminError(ADMIN_TABLE.knows(first) ? 405 : 404, `no admin endpoint ${method} /_sim/${rest.join('/')}`);
}

export function parse<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw new AdminError(400, formatIssues(r.error, ''));
  return r.data;
}

export function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new AdminError(400, 'malformed percent-encoding in path');
  }
}

export function drain(req: IncomingMessage): void {
  req.resume();
}

export async function readJson(req: IncomingMessage, emptyIsObject = false): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > ADMIN_BODY_LIMIT) throw new AdminError(413, 'admin request body larger than 1 MB');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '' && emptyIsObject) return {};
  if (type !== 'application/json') {
    throw new AdminError(415, 'admin requests with a body need Content-Type: application/json');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AdminError(400, 'request body is not valid JSON');
  }
}
