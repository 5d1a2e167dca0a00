/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, type Item, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/system/metrics/query',
    method: 'POST',
    path: () => api('/system/metrics/query'),
    body: () => {
      // The fixture's clock (FakeClock's default start, plus 10 s): the minute before it.
      const latest = Date.UTC(2026, 10, 22, 12) / 1000;
      return {
        where: '__worker_group!=undefined && has_no_dimensions',
        earliest: latest - 60,
        latest,
        aggs: { aggregations: ['sum("total.in_events").as("in")'], splitBys: ['__worker_group'], cumulative: true },
      };
    },
    status: 200,
    type: 'json',
    shape: (b, { expect, keys }) => {
      expect(keys(b)).toEqual(['results']);
      const rows = b.results as Item[];
      // One row per group, and the roll-up without the split key, as real leaders answer.
      expect(rows.filter((r) => r.__worker_group === undefined)).toHaveLength(1);
      expect(rows.length).toBeGreaterThan(1);
      for (const r of rows) expect(r).toMatchObject({ _raw: '', _time: expect.any(Number) });
    },
  },
  {
    route: '/system/metrics/enum',
    method: 'POST',
    path: () => api('/system/metrics/enum'),
    body: () => ({}),
    status: 200,
    type: 'json',
    shape: (b, { expect, listed }) => {
      listed(b);
      expect(b.items).toContainEqual({ name: 'pq.queue_size', type: 'gauge' });
    },
  },
];
