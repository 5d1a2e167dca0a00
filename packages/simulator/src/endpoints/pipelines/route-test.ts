/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, type Item, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/m/{group}/p/{pack}/pipelines',
    method: 'GET',
    path: () => api('/m/default/p/cribl-palo-alto-networks/pipelines'),
    status: 200,
    type: 'json',
    schema: 'PaginatedPipeline',
    shape: (b, { expect, keys, listed }) => {
      listed(b);
      expect((b.items as Item[]).map((p) => String(p.id))).toEqual(['pan_traffic', 'pan_threat']);
      expect(keys(b.items[0])).toEqual(['conf', 'id']);
    },
  },
  {
    route: '/m/{group}/p/{pack}/pipelines/{id}',
    method: 'GET',
    path: () => api('/m/default/p/cribl-palo-alto-networks/pipelines/pan_threat'),
    status: 200,
    type: 'json',
    schema: 'CountedPipeline',
    shape: (b, { expect }) => expect(b.items[0].conf.functions[0].id).toBe('eval'),
  },
];
