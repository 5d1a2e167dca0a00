/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, HEX40, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/m/{group}/version',
    method: 'GET',
    path: () => api('/m/default/version'),
    status: 200,
    type: 'json',
    schema: 'PaginatedGitLogResult',
    shape: (b, { expect, listed }) => {
      listed(b);
      expect(b.items[0].hash).toMatch(HEX40);
    },
  },
  {
    route: '/m/{group}/version/info',
    method: 'GET',
    path: () => api('/m/default/version/info'),
    status: 200,
    type: 'json',
    shape: (b, { expect }) =>
      expect(b).toEqual({
        count: 1,
        items: [{ versioning: true, remote: 'git@github.com:acme/cribl-config.git' }],
      }),
  },
];
