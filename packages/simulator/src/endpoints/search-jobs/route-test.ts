/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { api, type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/m/default_search/search/jobs',
    method: 'POST',
    path: () => api('/m/default_search/search/jobs'),
    body: () => ({
      query: 'cribl dataset="cribl_search_sample" | limit 5',
      earliest: '-1h',
      latest: 'now',
      sampleRate: 1,
    }),
    status: 200,
    type: 'json',
    schema: 'SearchJobListResponse',
    shape: (b, { expect, counted }) => {
      counted(b);
      expect(b.items[0]).toMatchObject({
        status: 'new',
        id: expect.stringMatching(/^\d{13}\.[a-z]{6}$/),
        user: 'api',
        group: 'default_search',
      });
    },
  },
  {
    route: '/m/default_search/search/jobs',
    method: 'GET',
    path: () => api('/m/default_search/search/jobs'),
    status: 200,
    type: 'json',
    schema: 'SearchJobListResponse',
    shape: (b, { listed }) => listed(b),
  },
  {
    route: '/m/default_search/search/jobs/{id}',
    method: 'GET',
    path: (f) => api(`/m/default_search/search/jobs/${f.job}`),
    status: 200,
    type: 'json',
    schema: 'SearchJobListResponse',
    shape: (b, { expect, f }) =>
      expect(b.items[0]).toMatchObject({ id: f.job, status: 'completed', totalEventCount: 10 }),
  },
  {
    route: '/m/default_search/search/jobs/{id}/status',
    method: 'GET',
    path: (f) => api(`/m/default_search/search/jobs/${f.job}/status`),
    status: 200,
    type: 'json',
    schema: 'SearchJobStatusResponse',
    shape: (b, { expect }) => expect(b).toMatchObject({ status: 'completed', eventsFound: 10 }),
  },
  {
    route: '/m/default_search/search/jobs/{id}/results',
    method: 'GET',
    path: (f) => api(`/m/default_search/search/jobs/${f.job}/results?limit=4`),
    status: 200,
    type: 'ndjson',
    schema: 'SearchJobResultsHeader',
    shape: (b, { expect, f, lines }) => {
      expect(b).toMatchObject({
        isFinished: true,
        job: { id: f.job, status: 'completed' },
        offset: 0,
        limit: 4,
        totalEventCount: 10,
      });
      expect(lines).toHaveLength(4);
      expect(lines[0]).toMatchObject({ _time: expect.any(Number), _raw: expect.any(String) });
    },
  },
  {
    route: '/m/default_search/search/jobs/{id}',
    method: 'PATCH',
    path: (f) => api(`/m/default_search/search/jobs/${f.job}`),
    body: () => ({ isPrivate: false }),
    status: 200,
    type: 'json',
    schema: 'SearchJobListResponse',
    shape: (b, { expect }) => expect(b.items[0].isPrivate).toBe(false),
  },
  {
    route: '/m/default_search/search/jobs/{id}/cancel',
    method: 'POST',
    path: (f) => api(`/m/default_search/search/jobs/${f.job}/cancel`),
    body: () => ({}),
    status: 200,
    type: 'json',
    schema: 'SearchJobListResponse',
    shape: (b, { expect }) => expect(b.items[0].status).toBe('completed'),
  },
  {
    route: '/m/default_search/search/jobs/{id}',
    method: 'DELETE',
    path: (f) => api(`/m/default_search/search/jobs/${f.spare}`),
    status: 200,
    type: 'json',
    schema: 'SearchJobListResponse',
    shape: (b, { expect, f }) => expect(b.items[0].id).toBe(f.spare),
  },
];
