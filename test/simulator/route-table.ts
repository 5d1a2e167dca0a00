import { existsSync, readdirSync } from 'node:fs';
import { expect } from 'vitest';
import { ROUTES, startSimulator } from '@cribl-exporter/simulator';
import type { Fixture, Item, Row, ShapeContext } from '../../packages/simulator/src/core/route-test.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { call } from './helpers.js';

export type { Fixture, Row };

const ENDPOINTS_DIR = new URL('../../packages/simulator/src/endpoints/', import.meta.url);
const api = (p: string): string => `/api/v1${p}`;

/**
 * The rows of the route test: each endpoint folder's (packages/simulator/src/endpoints/<name>/route-test.ts, one
 * request per method of each of its routes with its happy-path answer), in the order of the route table (ROUTES):
 * they run in that order against one simulator, so writes create what later rows read, update and delete.
 */
export const ROWS: readonly Row[] = await (async () => {
  const byRoute = new Map<string, Row[]>();
  for (const name of readdirSync(ENDPOINTS_DIR).sort()) {
    const file = new URL(`${name}/route-test.ts`, ENDPOINTS_DIR);
    if (!existsSync(file)) continue;
    const { rows } = (await import(file.href)) as { rows: readonly Row[] };
    for (const row of rows) byRoute.set(row.route, [...(byRoute.get(row.route) ?? []), row]);
  }
  const orphans = [...byRoute.keys()].filter((r) => !(ROUTES as readonly string[]).includes(r));
  if (orphans.length > 0) throw new Error(`route-test rows of routes the table does not have: ${orphans.join(', ')}`);
  return ROUTES.flatMap((route) => byRoute.get(route) ?? []);
})();

const keys = (v: Item): string[] => Object.keys(v).sort();

/** What a row's shape is given: the test's `expect`, the fixture, the other NDJSON lines, and the helpers. */
export function shapeContext(f: Fixture, lines: Item[]): ShapeContext {
  return {
    expect,
    f,
    lines,
    keys,
    counted: (b, n = 1) => {
      expect(keys(b)).toEqual(['count', 'items']);
      expect(b.count).toBe(n);
      expect(b.items).toHaveLength(n);
    },
    listed: (b) => {
      expect(keys(b)).toEqual(['count', 'items']);
      expect(b.items).toHaveLength(b.count);
    },
  };
}

/** The answer to one row: status, headers, and the parsed body (the first NDJSON line, the others in `lines`). */
export interface RowResult {
  status: number;
  type: string | undefined;
  text: string;
  body: Item | undefined;
  lines: Item[];
}

/** Sends the row's request. */
export async function send(
  f: Fixture,
  row: Pick<Row, 'method' | 'path' | 'body' | 'form' | 'token'>,
): Promise<RowResult> {
  const headers: Record<string, string> = {};
  let body: string | undefined;
  if (row.body) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(row.body(f));
  } else if (row.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = row.form;
  }
  const r = await call(f.s.origin, row.path(f), {
    method: row.method,
    headers,
    ...(row.token === null ? {} : { token: f.s.token }),
    ...(body === undefined ? {} : { body }),
  });
  const type = r.headers['content-type'];
  if (type === 'application/x-ndjson') {
    const [first, ...rest] = r.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Item);
    return { status: r.status, type, text: r.text, body: first, lines: rest };
  }
  return { status: r.status, type, text: r.text, body: r.json as Item | undefined, lines: [] };
}

/** Starts the simulator the table runs against, with a search job that has completed by the time rows run. */
export async function startFixture(): Promise<Fixture> {
  const clock = new FakeClock();
  const s = await startSimulator({
    nodes: 20,
    clock,
    organizationId: 'acme',
    workspaces: [{ workspaceId: 'main', region: 'us-west-2', leaderFQDN: 'main-acme.cribl.cloud', state: 'Active' }],
  });
  const stream = s.fleet.nodes().find((n) => n.product === 'stream')!.id;
  const edge = s.fleet.nodes().find((n) => n.product === 'edge')!.id;
  const f: Fixture = { s, stream, edge, job: '', spare: '', org: 'acme' };
  const job = async (): Promise<string> => {
    const created = await send(f, {
      method: 'POST',
      path: () => api('/m/default_search/search/jobs'),
      body: () => ({ query: 'cribl dataset="x"' }),
    });
    return String(created.body?.items[0].id);
  };
  f.job = await job();
  f.spare = await job();
  await clock.advance(10_000);
  return f;
}
