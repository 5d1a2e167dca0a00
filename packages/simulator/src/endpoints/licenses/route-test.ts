/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/system/licenses',
    method: 'GET',
    path: () => api('/system/licenses'),
    status: 200,
    type: 'json',
    shape: (b, { expect, counted }) => {
      counted(b);
      expect(b.items[0]).toMatchObject({ cls: 'prod', quota: 1000, f_ph: 0, f_phg: 0 });
    },
  },
  {
    route: '/system/licenses/usage',
    method: 'GET',
    path: () => api('/system/licenses/usage'),
    status: 200,
    type: 'json',
    shape: (b, { expect, keys, counted }) => {
      counted(b, 30);
      expect(keys(b.items[0])).toEqual([
        'droppedBytes',
        'endTime',
        'exemptedLicenseInBytes',
        'inBytes',
        'inEvents',
        'outBytes',
        'outEvents',
        'startTime',
      ]);
    },
  },
];
