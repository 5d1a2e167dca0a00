/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/system/info',
    method: 'GET',
    path: () => api('/system/info'),
    status: 200,
    type: 'json',
    shape: (b, { expect, counted }) => {
      counted(b);
      expect(b.items[0]).toMatchObject({ distMode: 'master', version: '4.19.0', BUILD: { VERSION: '4.19.0' } });
    },
  },
];
