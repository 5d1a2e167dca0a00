/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/m/{group}/system/status/outputs',
    method: 'GET',
    path: () => api('/m/default/system/status/outputs'),
    status: 200,
    type: 'json',
    shape: (b, { expect, keys, listed }) => {
      listed(b);
      expect(b.items[0]).toMatchObject({ id: 'devnull', type: 'devnull', status: { health: 'Green' } });
      expect(keys(b.items[0].status.healthCounts)).toEqual(['Green', 'Red', 'Unknown', 'Yellow']);
    },
  },
  {
    route: '/m/{group}/system/status/inputs',
    method: 'GET',
    path: () => api('/m/retail-stores/system/status/inputs?limit=1'),
    status: 200,
    type: 'json',
    shape: (b, { expect, keys }) => {
      expect(keys(b)).toEqual(['count', 'items', 'limit', 'offset', 'totalCount']);
      expect(b.items[0]).toMatchObject({ id: 'file_monitor', type: 'file' });
    },
  },
];
