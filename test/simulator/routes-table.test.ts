/**
 * The route table: every route the simulator serves, each method with its status, content type and body shape, from
 * the rows its endpoint folder carries (packages/simulator/src/endpoints/<name>/route-test.ts, gathered in the
 * table's order by route-table.ts); and the spec's §4 table and the by-id reads a real leader has among them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, ROUTE_METHODS } from '@cribl-exporter/simulator';
import { ROWS, send, shapeContext, startFixture } from './route-table.js';
import type { Fixture } from './route-table.js';

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(async () => {
  await f.s.close();
});

/** The spec's §4 table, as route templates of the simulator (the global `/pack/{id}` is the spec's spelling). */
const SPEC_SECTION_4 = [
  'GET /system/settings/git-settings',
  'GET /products/{product}/workers',
  'GET /products/{product}/groups',
  'GET /pack/{id}',
  'GET /m/{group}/version',
  'POST /m/{group}/system/outputs',
  'GET /m/{group}/p/{pack}/pipelines',
  'GET /w/{nodeId}/edge/metadata',
  'GET /w/{nodeId}/health',
  'POST /m/default_search/search/jobs',
  'GET /m/default_search/search/jobs/{id}',
  'GET /v1/organizations/{organizationId}/workspaces',
  // the by-id reads a real leader has
  'GET /products/{product}/workers/{id}',
  'GET /products/{product}/groups/{id}',
  'GET /products/{product}/groups/{id}/configVersion',
];

describe('route table', () => {
  it('covers the spec §4 table, the by-id reads, and every method of every route the simulator serves', () => {
    const covered = new Set(ROWS.map((r) => `${r.method} ${r.route}`));
    for (const entry of SPEC_SECTION_4) expect(covered, entry).toContain(entry);
    for (const route of ROUTES) {
      for (const method of ROUTE_METHODS[route].filter((m) => m !== 'HEAD'))
        expect(covered, `${method} ${route}`).toContain(`${method} ${route}`);
    }
  });

  it.each(ROWS.map((r, i) => [`${r.method} ${r.route} (#${i + 1})`, r] as const))('%s', async (_name, row) => {
    const r = await send(f, row);
    expect(r.status, r.text).toBe(row.status);
    if (row.type === 'none') {
      expect(r.text).toBe('');
      expect(r.type).toBeUndefined();
      return;
    }
    expect(r.type).toBe(row.type === 'json' ? 'application/json; charset=utf-8' : 'application/x-ndjson');
    expect(r.body).toBeTypeOf('object');
    row.shape?.(r.body!, shapeContext(f, r.lines));
  });
});
