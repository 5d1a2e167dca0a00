/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/products/{product}/workers',
    method: 'GET',
    path: () => api('/products/stream/workers?limit=5'),
    status: 200,
    type: 'json',
    schema: 'PaginatedMasterWorkerEntry',
    shape: (b, { expect, keys }) => expect(keys(b)).toEqual(['count', 'items', 'limit', 'offset', 'totalCount']),
  },
  {
    route: '/products/{product}/workers/{id}',
    method: 'GET',
    path: (f) => api(`/products/edge/workers/${f.edge}`),
    status: 200,
    type: 'json',
    schema: 'CountedMasterWorkerEntry',
    shape: (b, { expect, counted, f }) => {
      counted(b);
      expect(b.items[0]).toMatchObject({ id: f.edge, nodeUpgradeStatus: { state: expect.any(Number) } });
    },
  },
  {
    route: '/master/workers',
    method: 'GET',
    path: () => api('/master/workers'),
    status: 200,
    type: 'json',
    schema: 'PaginatedMasterWorkerEntry',
    shape: (b, { listed }) => listed(b),
  },
  {
    route: '/master/workers/{id}',
    method: 'GET',
    path: (f) => api(`/master/workers/${f.stream}`),
    status: 200,
    type: 'json',
    schema: 'CountedMasterWorkerEntry',
    shape: (b, { expect, counted, f }) => {
      counted(b);
      expect(b.items[0].id).toBe(f.stream);
    },
  },
];
