/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/health',
    method: 'GET',
    path: () => api('/health'),
    token: null,
    status: 200,
    type: 'json',
    schema: 'HealthServerStatusStrict',
    shape: (b, { expect, keys }) => {
      expect(keys(b)).toEqual(['overlay', 'role', 'startTime', 'status']);
      expect(b).toMatchObject({ status: 'healthy', role: 'primary', overlay: { state: 'inactive' } });
    },
  },
];
