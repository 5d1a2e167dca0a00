/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, type Item, type Row, type ShapeContext } from '../../core/route-test.js';

/** `{count:1, items:[pack]}` of the pack `id`. */
const pack = (t: ShapeContext, b: Item, id: string): void => {
  t.counted(b);
  t.expect(b.items[0]).toMatchObject({ id, source: t.expect.any(String) });
};

export const rows: readonly Row[] = [
  {
    route: '/pack/{id}',
    method: 'GET',
    path: () => api('/pack/cribl-palo-alto-networks'),
    status: 200,
    type: 'json',
    schema: 'CountedPackInfo',
    shape: (b, t) => pack(t, b, 'cribl-palo-alto-networks'),
  },
  {
    route: '/packs',
    method: 'GET',
    path: () => api('/packs?with=inputs,outputs'),
    status: 200,
    type: 'json',
    schema: 'PaginatedPackInfo',
    shape: (b, { expect, listed }) => {
      listed(b);
      expect(b.items[0]).toMatchObject({ id: 'cribl-palo-alto-networks', inputs: 1, outputs: 0 });
    },
  },
  {
    route: '/packs',
    method: 'POST',
    path: () => api('/packs'),
    body: () => ({ source: 'https://example.com/packs/acme-global-1.0.0.crbl' }),
    status: 200,
    type: 'json',
    schema: 'CountedPackInstallInfo',
    shape: (b, t) => {
      pack(t, b, 'acme-global');
      t.expect(b.items[0].warnings).toEqual([]);
    },
  },
  {
    route: '/packs/{id}',
    method: 'GET',
    path: () => api('/packs/acme-global'),
    status: 200,
    type: 'json',
    schema: 'CountedPackInfo',
    shape: (b, t) => pack(t, b, 'acme-global'),
  },
  {
    route: '/packs/{id}',
    method: 'PATCH',
    path: () => api('/packs/acme-global'),
    body: () => ({ source: 'https://example.com/packs/acme-global-1.1.0.crbl' }),
    status: 200,
    type: 'json',
    schema: 'CountedPackInfo',
    shape: (b, { expect }) => expect(b.items[0]).toMatchObject({ id: 'acme-global', version: '1.1.0' }),
  },
  {
    route: '/packs/{id}',
    method: 'DELETE',
    path: () => api('/packs/acme-global'),
    status: 200,
    type: 'json',
    schema: 'CountedPackUninstallInfo',
    shape: (b, { expect }) =>
      expect(b).toEqual({
        count: 1,
        items: [{ id: 'acme-global', source: 'https://example.com/packs/acme-global-1.1.0.crbl' }],
      }),
  },
  {
    route: '/m/{group}/pack/{id}',
    method: 'GET',
    path: () => api('/m/prod-east/pack/cribl-syslog-input'),
    status: 200,
    type: 'json',
    schema: 'CountedPackInfo',
    shape: (b, t) => pack(t, b, 'cribl-syslog-input'),
  },
  {
    route: '/m/{group}/packs',
    method: 'GET',
    path: () => api('/m/factories/packs?limit=10'),
    status: 200,
    type: 'json',
    schema: 'PaginatedPackInfo',
    shape: (b, { expect }) =>
      expect(b).toMatchObject({
        count: 1,
        offset: 0,
        limit: 10,
        totalCount: 1,
        items: [{ id: 'cribl-edge-linux' }],
      }),
  },
  {
    route: '/m/{group}/packs',
    method: 'POST',
    path: () => api('/m/prod-west/packs'),
    body: () => ({ id: 'acme-pack', source: '' }),
    status: 200,
    type: 'json',
    schema: 'CountedPackInstallInfo',
    shape: (b, t) => pack(t, b, 'acme-pack'),
  },
  {
    route: '/m/{group}/packs/{id}',
    method: 'GET',
    path: () => api('/m/prod-west/packs/acme-pack'),
    status: 200,
    type: 'json',
    schema: 'CountedPackInfo',
    shape: (b, t) => pack(t, b, 'acme-pack'),
  },
  {
    route: '/m/{group}/packs/{id}',
    method: 'PATCH',
    path: () => api('/m/prod-west/packs/acme-pack'),
    body: () => ({ source: 'file:///opt/acme-pack-2.0.0.crbl' }),
    status: 200,
    type: 'json',
    schema: 'CountedPackInfo',
    shape: (b, { expect }) => expect(b.items[0]).toMatchObject({ version: '2.0.0' }),
  },
  {
    route: '/m/{group}/packs/{id}',
    method: 'DELETE',
    path: () => api('/m/prod-west/packs/acme-pack'),
    status: 200,
    type: 'json',
    schema: 'CountedPackUninstallInfo',
    shape: (b, { counted }) => counted(b),
  },
];
