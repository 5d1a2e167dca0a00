/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/m/{group}/system/outputs',
    method: 'GET',
    path: () => api('/m/default/system/outputs'),
    status: 200,
    type: 'json',
    schema: 'PaginatedOutputResponse',
    shape: (b, { expect }) =>
      expect(b.items).toEqual([
        { id: 'devnull', type: 'devnull' },
        { id: 'default', type: 'default', defaultId: 'devnull' },
      ]),
  },
  {
    route: '/m/{group}/system/outputs',
    method: 'POST',
    path: () => api('/m/default/system/outputs'),
    body: () => ({ id: 'webhook-output', type: 'webhook', url: 'https://example.com/webhook', method: 'POST' }),
    status: 200,
    type: 'json',
    schema: 'CountedOutputResponse',
    shape: (b, { expect }) =>
      expect(b.items[0]).toEqual({
        id: 'webhook-output',
        type: 'webhook',
        url: 'https://example.com/webhook',
        method: 'POST',
      }),
  },
  {
    route: '/m/{group}/system/outputs/{id}',
    method: 'GET',
    path: () => api('/m/default/system/outputs/webhook-output'),
    status: 200,
    type: 'json',
    schema: 'CountedOutputResponse',
    shape: (b, { counted }) => counted(b),
  },
  {
    route: '/m/{group}/system/outputs/{id}',
    method: 'PATCH',
    path: () => api('/m/default/system/outputs/webhook-output'),
    body: () => ({ id: 'webhook-output', type: 'webhook', url: 'https://example.com/other' }),
    status: 200,
    type: 'json',
    schema: 'CountedOutputResponse',
    shape: (b, { expect }) =>
      expect(b.items[0]).toEqual({
        id: 'webhook-output',
        type: 'webhook',
        url: 'https://example.com/other',
      }),
  },
  {
    route: '/m/{group}/system/outputs/{id}',
    method: 'DELETE',
    path: () => api('/m/default/system/outputs/webhook-output'),
    status: 200,
    type: 'json',
    schema: 'CountedOutputResponse',
    shape: (b, { expect }) =>
      expect(b.items[0]).toMatchObject({ id: 'webhook-output', url: 'https://example.com/other' }),
  },
];
