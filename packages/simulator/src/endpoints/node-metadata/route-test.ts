/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, enc, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/w/{nodeId}/edge/metadata',
    method: 'GET',
    path: (f) => api(`/w/${enc(f.edge)}/edge/metadata`),
    status: 200,
    type: 'json',
    schema: 'EdgeMetadataResponse',
    shape: (b, { expect, counted }) => {
      counted(b);
      expect(b.items[0].cribl.mode).toBe('managed-edge');
    },
  },
];
