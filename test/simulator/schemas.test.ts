/**
 * Every JSON answer of the simulator validates against the JSON Schemas of the research note
 * (../shared/research/openapi-schemas.json, loaded at run time from beside the repository; nothing is copied
 * from it). When that file is absent the checks are skipped, and the skipped test's title says why.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Ajv2020Module from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '@cribl-exporter/simulator';
import type { Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { call } from './helpers.js';
import { ROWS, send, startFixture } from './route-table.js';
import type { Fixture } from './route-table.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCHEMAS_PATH = fileURLToPath(new URL('../shared/research/openapi-schemas.json', `file://${REPO_ROOT}`));
const present = existsSync(SCHEMAS_PATH);

interface Validator {
  (data: unknown): boolean;
  errors?: unknown;
}

const require = createRequire(import.meta.url);
const validators = new Map<string, Validator>();

function loadSchemas(): void {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof Ajv2020Module;
  const addFormats = (require('ajv-formats') as { default: (ajv: InstanceType<typeof Ajv2020>) => void }).default;
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const doc = JSON.parse(readFileSync(SCHEMAS_PATH, 'utf8')) as { schemas: Record<string, object> };
  for (const [name, schema] of Object.entries(doc.schemas)) validators.set(name, ajv.compile(schema) as Validator);
}

/** Asserts that `body` validates against the named schema, showing Ajv's errors when not. */
function expectValid(schema: string, body: unknown, what: string): void {
  const v = validators.get(schema);
  expect(v, `schema ${schema} is in openapi-schemas.json`).toBeDefined();
  const valid = v!(body);
  expect(valid, `${what} against ${schema}: ${JSON.stringify(v!.errors)}`).toBe(true);
}

const title = present
  ? 'answers validate against ../shared/research/openapi-schemas.json'
  : `SKIPPED: ${SCHEMAS_PATH} not found (the research schemas live beside the repository in ../shared); ` +
    'schema checks not run';

describe.skipIf(!present)(title, () => {
  let f: Fixture;
  const sims: Simulator[] = [];
  beforeAll(async () => {
    loadSchemas();
    f = await startFixture();
    sims.push(f.s);
  });
  afterAll(async () => {
    for (const s of sims) await s.close();
  });

  it('every 200/201 JSON answer of the route table (and the first NDJSON line of search results)', async () => {
    let checked = 0;
    for (const row of ROWS) {
      const r = await send(f, row);
      expect(r.status, `${row.method} ${row.route}`).toBe(row.status);
      if (!row.schema) continue;
      expectValid(row.schema, r.body, `${row.method} ${row.route}`);
      checked++;
    }
    // Rows without a schema in the file: /m/{group}/version/info and the OAuth token endpoint.
    expect(checked).toBe(ROWS.filter((r) => r.schema).length);
    expect(checked).toBeGreaterThan(40);
  });

  it('error answers: control plane Error, management plane DefaultErrorDTO', async () => {
    const { s } = f;
    const api = (p: string): string => `/api/v1${p}`;
    const json = { 'content-type': 'application/json' };
    const control = [
      await call(s.origin, api('/products/stream/workers')),
      await call(s.origin, api('/products/stream/workers'), { token: s.forbiddenToken }),
      await call(s.origin, api('/m/default/system/outputs'), {
        method: 'POST',
        token: s.readOnlyToken,
        headers: json,
        body: '{}',
      }),
      await call(s.origin, api('/m/default/system/outputs/nope'), { token: s.token }),
      await call(s.origin, api('/m/default/system/outputs'), {
        method: 'POST',
        token: s.token,
        headers: json,
        body: '{"type":"devnull"}',
      }),
      await call(s.origin, api('/m/default/system/outputs'), {
        method: 'POST',
        token: s.token,
        headers: json,
        body: '{"id":"devnull","type":"devnull"}',
      }),
      await call(s.origin, api('/m/default/system/outputs'), { method: 'POST', token: s.token, body: '{}' }),
      await call(s.origin, api('/m/default/system/outputs'), { method: 'PUT', token: s.token }),
      await call(s.origin, api('/products/stream/groups/nope'), { token: s.token }),
      await call(s.origin, api('/m/default_search/search/jobs/nope'), { token: s.token }),
      await call(s.origin, api('/nope'), { token: s.token }),
    ];
    expect(control.map((r) => r.status)).toEqual([401, 403, 403, 404, 400, 409, 415, 405, 404, 404, 404]);
    for (const r of control) expectValid('Error', r.json, `${r.status} ${r.text}`);
    const org = `/v1/organizations/${f.org}/workspaces`;
    const mgmt = [
      await call(s.origin, org),
      await call(s.origin, `${org}/nope`, { token: s.token }),
      await call(s.origin, org, { method: 'POST', token: s.token, headers: json, body: '{"workspaceId":"NO"}' }),
      await call(s.origin, '/v1/organizations/other/workspaces', { token: s.token }),
    ];
    expect(mgmt.map((r) => r.status)).toEqual([401, 404, 400, 403]);
    for (const r of mgmt) expectValid('DefaultErrorDTO', r.json, `${r.status} ${r.text}`);
  });

  it('420 health bodies (leader, node); a 4.16 leader: legacy health, listing, {message} errors', async () => {
    const clock = new FakeClock();
    const s = await startSimulator({ nodes: 4, clock });
    sims.push(s);
    const node = s.fleet.nodes()[0]!;
    s.fleet.setHealth(node.id, 'standby');
    const n = await call(s.origin, `/api/v1/w/${node.id}/health`, { token: s.token });
    expect(n.status).toBe(420);
    expectValid('HealthServerStatusStrict', n.json, 'node 420');
    s.fleet.setLeaderState('shutting down');
    const h = await call(s.origin, '/api/v1/health');
    expect(h.status).toBe(420);
    expectValid('HealthServerStatusStrict', h.json, 'leader 420');

    const old = await startSimulator({ nodes: 4, clock, leaderVersion: '4.16' });
    sims.push(old);
    expectValid('LegacyHealthServerStatus', (await call(old.origin, '/api/v1/health')).json, '4.16 /health');
    const listing = await call(old.origin, '/api/v1/master/workers', { token: old.token });
    expectValid('LegacyMasterWorkersResponse', listing.json, '4.16 /master/workers');
    expect(listing.json.items[0].info.cribl.tags).toEqual([]);
    const e = await call(old.origin, '/api/v1/master/workers');
    expect(e.status).toBe(401);
    expectValid('LegacyError', e.json, '4.16 401');
  });
});

if (!present) it.skip(title, () => {});
