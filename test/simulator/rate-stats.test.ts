/**
 * Issue 14's leader controls: a rate limit of R requests/s answered with 429 + Retry-After, and statistics from
 * which a test computes the accepted rate and the share of 429s; a static token revoked at run time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '@cribl-exporter/simulator';
import type { Simulator } from '@cribl-exporter/simulator';
import { FakeClock } from '../helpers/fake-clock.js';
import { call } from './helpers.js';

const sims: Simulator[] = [];
afterEach(async () => {
  while (sims.length) await sims.pop()!.close();
});

/** Sends `perSecond` requests in each of `seconds` simulated seconds. */
async function drive(s: Simulator, clock: FakeClock, perSecond: number, seconds: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let t = 0; t < seconds; t++) {
    for (let i = 0; i < perSecond; i++) {
      statuses.push((await call(s.origin, `/api/v1/w/${s.fleet.nodes()[0]!.id}/health`, { token: s.token })).status);
      await clock.advance(Math.floor(1000 / perSecond));
    }
    await clock.advance(1000 - perSecond * Math.floor(1000 / perSecond));
  }
  return statuses;
}

describe('leader rate limit and the statistics that measure it', () => {
  it('at the limit everything is accepted; at twice the limit half is 429, and the statistics say so', async () => {
    const clock = new FakeClock();
    const s = await startSimulator({ nodes: 5, clock });
    sims.push(s);
    s.setFaults({ rateLimit: { rate: 10, burst: 1, retryAfter: 'seconds' } });
    s.resetStats();
    await drive(s, clock, 10, 5);
    let st = s.stats();
    expect(st.elapsedMs).toBe(5000);
    expect(st).toMatchObject({ accepted: 50, rateLimited: 0, share429: 0, acceptedPerSecond: 10 });

    s.resetStats();
    expect(s.stats()).toMatchObject({ since: clock.now(), elapsedMs: 0, accepted: 0, rateLimited: 0, statuses: {} });
    const statuses = await drive(s, clock, 20, 5);
    st = s.stats();
    expect(st.statuses).toEqual({ '200': 50, '429': 50 });
    expect(statuses.filter((x) => x === 429)).toHaveLength(50);
    expect(st.share429).toBe(0.5);
    expect(st.acceptedPerSecond).toBe(10);
    expect(st.perSecond).toHaveLength(5);
    for (const b of st.perSecond)
      expect(b).toEqual({ second: expect.any(Number), requests: 20, accepted: 10, rateLimited: 10 });
    expect(st.retryAfterSent).toBe(50);
  });

  it('the same statistics are on GET /_sim/stats', async () => {
    const clock = new FakeClock();
    const s = await startSimulator({ nodes: 2, clock });
    sims.push(s);
    await call(s.origin, '/api/v1/health');
    await clock.advance(2000);
    const r = await call(s.origin, '/_sim/stats');
    expect(r.json).toMatchObject({
      accepted: 1,
      rateLimited: 0,
      elapsedMs: 2000,
      acceptedPerSecond: 0.5,
      statuses: { '200': 1 },
    });
  });

  it('a static token revoked at run time answers 401 everywhere, and the 401s show in the statistics', async () => {
    const clock = new FakeClock();
    const s = await startSimulator({ nodes: 3, clock });
    sims.push(s);
    const id = s.fleet.nodes()[0]!.id;
    expect((await call(s.origin, `/api/v1/w/${id}/health`, { token: s.token })).status).toBe(200);
    expect(
      (
        await call(s.origin, '/_sim/tokens/revoke', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token: s.token }),
        })
      ).json,
    ).toEqual({ revoked: 1 });
    for (const path of [`/api/v1/w/${id}/health`, '/api/v1/products/stream/workers']) {
      expect((await call(s.origin, path, { token: s.token })).status).toBe(401);
    }
    expect(s.stats().statuses).toEqual({ '200': 1, '401': 2 });
  });
});
