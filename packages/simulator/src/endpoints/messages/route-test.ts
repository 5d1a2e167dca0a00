/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/system/messages',
    method: 'GET',
    path: () => api('/system/messages'),
    status: 200,
    type: 'json',
    shape: (b, { expect }) => expect(b).toEqual({ count: 0, items: [] }),
  },
];
