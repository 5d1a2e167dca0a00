/** This endpoint's rows of the route test (core/route-test.ts; test/simulator/routes-table.test.ts runs them). */
import { type Row } from '../../core/route-test.js';

export const rows: readonly Row[] = [
  {
    route: '/oauth/token',
    method: 'POST',
    path: () => '/oauth/token',
    token: null,
    form:
      'grant_type=client_credentials&client_id=sim-client&client_secret=sim-secret' +
      '&audience=https%3A%2F%2Fapi.cribl.cloud',
    status: 200,
    type: 'json',
    shape: (b, { expect, keys }) => expect(keys(b)).toEqual(['access_token', 'expires_in', 'token_type']),
  },
];
