/**
 * A leader that refuses our credentials (401 after a refresh, or 403): the refusal is counted for every mode, and
 * node polling pauses with capped exponential backoff while discovery keeps probing.
 */
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '@cribl-exporter/api/routes';
import { AuthError } from '../../src/auth/errors.js';
import { withAuth } from '../../src/auth/with-auth.js';
import type { AuthMode, AuthProvider } from '../../src/auth/types.js';
import type { LeaderRequest } from '../../src/leader/types.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeLeaderClient } from '../helpers/fake-leader-client.js';
import { captureLogger, recordingMetrics } from './helpers.js';

function provider(mode: AuthMode, canRefresh: boolean): AuthProvider & { invalidated: number } {
  const p = {
    mode,
    invalidated: 0,
    token: () => Promise.resolve(mode === 'none' ? '' : 'tok'),
    invalidate: () => {
      p.invalidated++;
      return canRefresh;
    },
    expiresAt: () => undefined,
    close: () => undefined,
  };
  return p;
}

function setup(mode: AuthMode = 'token', canRefresh = false) {
  const clock = new FakeClock();
  let status = 200;
  const client = fakeLeaderClient(() => ({ status, json: { status: 'healthy', startTime: 1 } }));
  const metrics = recordingMetrics();
  const log = captureLogger();
  const auth = provider(mode, canRefresh);
  const c = withAuth(client, auth, {
    clock,
    logger: log.logger,
    metrics,
    backoff: { baseMs: 500, capMs: 60_000 },
  });
  const node = (): Promise<unknown> =>
    c.request({
      endpoint: ENDPOINTS.nodeHealth,
      path: '/w/n1/health',
      nodeScoped: true,
      accept: [200, 420],
      decode: (j) => j,
    } satisfies LeaderRequest<unknown>);
  const listing = (): Promise<unknown> =>
    c.request({ endpoint: ENDPOINTS.workers, path: '/products/stream/workers', decode: (j) => j });
  const sent = (): string[] => client.calls.map((r) => r.path);
  return { clock, client, c, metrics, log, auth, node, listing, sent, setStatus: (s: number) => (status = s) };
}

describe('withAuth: credentials refused', () => {
  it('a revoked static token: counted as rejected, node polls stop for a doubling backoff, one probe', async () => {
    const t = setup('token', false);
    t.setStatus(401);
    await t.node();
    expect(t.metrics.failures).toEqual([['token', 'rejected']]);
    // 5 s pause (the base is at least 5 s): nothing is sent meanwhile.
    for (let i = 0; i < 10; i++)
      expect(await t.node()).toMatchObject({ ok: false, reason: 'unauthorized', status: 401 });
    expect(t.sent()).toHaveLength(1);
    await t.clock.advance(5_000);
    await t.node(); // the probe: refused again
    await t.node(); // held: the pause doubled
    expect(t.sent()).toHaveLength(2);
    await t.clock.advance(5_000);
    await t.node();
    expect(t.sent()).toHaveLength(2);
    await t.clock.advance(5_000);
    await t.node(); // 10 s after the probe: the next probe
    expect(t.sent()).toHaveLength(3);
    expect(t.metrics.failures).toEqual([
      ['token', 'rejected'],
      ['token', 'rejected'],
      ['token', 'rejected'],
    ]);
    const warns = t.log.records().filter((r) => r.level === 'warn' || r.level === 40);
    expect(warns).toHaveLength(1);
    expect(warns[0]?.msg).toContain('node health polling paused, discovery keeps trying');
  });

  it.each([
    [ENDPOINTS.nodeMetadata, '/w/n1/edge/metadata', true],
    [ENDPOINTS.groups, '/products/stream/groups', false],
    [ENDPOINTS.masterGroups, '/master/groups', false],
    [ENDPOINTS.systemInfo, '/system/info', false],
    [ENDPOINTS.outputStatus, '/m/default/system/status/outputs', false],
  ] as const)('a 401 or 403 on %s is that route’s alone: node polls keep going', async (endpoint, path, nodeScoped) => {
    for (const refusal of [401, 403]) {
      const t = setup('token', false);
      t.setStatus(refusal);
      expect(await t.c.request({ endpoint, path, nodeScoped, decode: (j) => j })).toMatchObject({ ok: false });
      t.setStatus(200);
      expect(await t.node()).toMatchObject({ ok: true });
      expect(t.sent()).toEqual([path, '/w/n1/health']);
      expect(t.metrics.failures).toEqual([]);
    }
  });

  it('discovery keeps probing during the pause, and its first accepted answer resumes node polling', async () => {
    const t = setup('token', false);
    t.setStatus(401);
    await t.node();
    await t.listing();
    await t.listing();
    expect(t.sent()).toEqual(['/w/n1/health', '/products/stream/workers', '/products/stream/workers']);
    // Refusals during the pause are counted, but do not lengthen it.
    expect(t.metrics.failures).toHaveLength(3);
    t.setStatus(200);
    await t.listing();
    await t.node();
    expect(t.sent().at(-1)).toBe('/w/n1/health');
    expect(t.log.records().some((r) => String(r.msg).includes('node health polling resumes'))).toBe(true);
  });

  it('a 403 on the health checks pauses them alone: held ones read forbidden, listing and metadata go on', async () => {
    const t = setup('token', false);
    const metadata = (): Promise<unknown> =>
      t.c.request({
        endpoint: ENDPOINTS.nodeMetadata,
        path: '/w/n1/edge/metadata',
        nodeScoped: true,
        decode: (j) => j,
      });
    t.setStatus(403);
    expect(await t.node()).toMatchObject({ ok: false, status: 403 });
    t.setStatus(200);
    for (let i = 0; i < 3; i++) expect(await t.node()).toMatchObject({ ok: false, reason: 'forbidden', status: 403 });
    // The listing answers: the health checks stay refused (a 403 is that route's), the pause holds.
    expect(await t.listing()).toMatchObject({ ok: true });
    expect(await metadata()).toMatchObject({ ok: true });
    expect(await t.node()).toMatchObject({ ok: false, reason: 'forbidden' });
    expect(t.sent()).toEqual(['/w/n1/health', '/products/stream/workers', '/w/n1/edge/metadata']);
    expect(t.metrics.failures).toEqual([['token', 'forbidden']]);
    // The probe is answered: the health checks go again.
    await t.clock.advance(5_000);
    expect(await t.node()).toMatchObject({ ok: true });
    expect(await t.node()).toMatchObject({ ok: true });
  });

  it('a refused listing holds every host-context request back, with the refusal', async () => {
    const t = setup('token', false);
    t.setStatus(403);
    await t.listing();
    const md = await t.c.request({
      endpoint: ENDPOINTS.nodeMetadata,
      path: '/w/n1/edge/metadata',
      nodeScoped: true,
      decode: (j) => j,
    });
    expect(md).toMatchObject({ ok: false, reason: 'forbidden', status: 403 });
    expect(await t.node()).toMatchObject({ ok: false, reason: 'forbidden', status: 403 });
    expect(t.sent()).toEqual(['/products/stream/workers']);
  });

  it('the backoff is capped', async () => {
    const t = setup('token', false);
    t.setStatus(403);
    await t.node();
    let waited = 0;
    for (let i = 0; i < 10; i++) {
      const before = t.sent().length;
      while (t.sent().length === before) {
        await t.clock.advance(1_000);
        waited += 1_000;
        await t.node();
      }
    }
    // 5, 10, 20, 40 s, then 60 s (the cap) for the rest: 75 s + 6 × 60 s.
    expect(waited).toBe(435_000);
    expect(t.metrics.failures.every(([, r]) => r === 'forbidden')).toBe(true);
  });

  it('counts for every mode; a 401 that a refresh cures is not a failure', async () => {
    for (const mode of ['login', 'cloud', 'none'] as const) {
      const t = setup(mode, mode !== 'none');
      t.setStatus(401);
      await t.node();
      expect(t.metrics.failures).toEqual([[mode, 'rejected']]);
      // login and cloud refreshed once before giving up; none cannot.
      expect(t.auth.invalidated).toBe(1);
    }
    const cured = setup('login', true);
    let first = true;
    cured.client.calls.length = 0;
    const c = withAuth(
      fakeLeaderClient(() => {
        const s = first ? 401 : 200;
        first = false;
        return { status: s, json: {} };
      }),
      cured.auth,
      { clock: cured.clock, metrics: cured.metrics },
    );
    expect(await c.request({ endpoint: ENDPOINTS.workers, path: '/x', decode: (j) => j })).toMatchObject({ ok: true });
    expect(cured.metrics.failures).toEqual([]);
  });

  it('a 429 or 503 does not count as the credentials accepted again', async () => {
    const t = setup('token', false);
    t.setStatus(401);
    await t.node();
    t.setStatus(429);
    await t.listing();
    await t.node();
    expect(t.sent()).toEqual(['/w/n1/health', '/products/stream/workers']);
  });

  it.each([
    ['unavailable', 'http_5xx'],
    ['bad_response', 'decode'],
    ['unreachable', 'connect'],
    ['file_unreadable', 'settings'],
  ] as const)('a token that could not be obtained (%s) fails the request as %s, unsent', async (why, reason) => {
    const client = fakeLeaderClient(() => ({ status: 200, json: {} }));
    const auth: AuthProvider = {
      ...provider('cloud', false),
      token: () => Promise.reject(new AuthError('cloud', why, 'token request failed: HTTP 503')),
    };
    const c = withAuth(client, auth, { clock: new FakeClock(), logger: captureLogger().logger });
    const res = await c.request({ endpoint: ENDPOINTS.workers, path: '/products/stream/workers', decode: (j) => j });
    expect(res).toMatchObject({ ok: false, reason });
    expect(client.calls).toEqual([]);
  });
});
