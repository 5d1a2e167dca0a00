/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, HEX7, type Item, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/products/{product}/groups',
    method: 'GET',
    path: () => api('/products/edge/groups'),
    status: 200,
    type: 'json',
    schema: 'PaginatedConfigGroup',
    shape: (b, { expect, listed }) => {
      listed(b);
      expect((b.items as Item[]).map((g) => String(g.id))).toEqual(['default_fleet', 'retail-stores', 'factories']);
    },
  },
  {
    route: '/products/{product}/groups/{id}',
    method: 'GET',
    path: () => api('/products/stream/groups/prod-east?fields=git.log'),
    status: 200,
    type: 'json',
    schema: 'CountedConfigGroup',
    shape: (b, { expect, counted }) => {
      counted(b);
      expect(b.items[0]).toMatchObject({
        id: 'prod-east',
        configVersion: expect.stringMatching(HEX7),
        git: { log: expect.any(Array) },
      });
    },
  },
  {
    route: '/products/{product}/groups/{id}/configVersion',
    method: 'GET',
    path: () => api('/products/stream/groups/default/configVersion'),
    status: 200,
    type: 'json',
    schema: 'CountedString',
    shape: (b, { expect, counted }) => {
      counted(b);
      expect(b.items[0]).toMatch(HEX7);
    },
  },
  {
    route: '/master/groups',
    method: 'GET',
    path: () => api('/master/groups?product=stream'),
    status: 200,
    type: 'json',
    schema: 'PaginatedConfigGroup',
    shape: (b, { listed }) => listed(b),
  },
];
