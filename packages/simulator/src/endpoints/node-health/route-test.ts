/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, enc, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/w/{nodeId}/health',
    method: 'GET',
    path: (f) => api(`/w/${enc(f.stream)}/health`),
    status: 200,
    type: 'json',
    schema: 'HealthServerStatusStrict',
    shape: (b, { expect, keys }) => expect(keys(b)).toEqual(['overlay', 'startTime', 'status']),
  },
];
