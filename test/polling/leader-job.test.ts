import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SNAPSHOT_RENDERERS } from '../../src/collectors/index.js';
import { Discoverer } from '../../src/discovery/discovery.js';
import type { LeaderRequest } from '../../src/leader/types.js';
import { LeaderJob } from '../../src/polling/leader-job.js';
import { Poller } from '../../src/polling/poller.js';
import { createLeaderSnapshot } from '../../src/store/snapshot.js';
import { worker } from '../exposition/fixtures.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeLeaderClient, type FakeAnswer } from '../helpers/fake-leader-client.js';

const logger = pino({ level: 'silent' });
const HEALTHY = { status: 200, json: { status: 'healthy', startTime: 1, role: 'primary' } };

function setup(answer: (req: LeaderRequest<unknown>) => FakeAnswer | undefined, gitSettings = true) {
  const clock = new FakeClock();
  const client = fakeLeaderClient((req) => {
    const a = answer(req);
    if (a) return a;
    if (req.path === '/health') return HEALTHY;
    if (req.path === '/products/stream/workers') return { status: 200, json: { count: 1, items: [worker('w1')] } };
    if (req.path.endsWith('/workers')) return { status: 200, json: { count: 0, items: [] } };
    if (req.path === '/products/stream/groups')
      return { status: 200, json: { count: 1, items: [{ id: 'default', configVersion: 'abc1234' }] } };
    if (req.path.endsWith('/groups')) return { status: 200, json: { count: 0, items: [] } };
    if (req.path === '/m/default/version')
      return { status: 200, json: { count: 2, items: [{ hash: 'fff0000aaaa' }, { hash: 'abc1234bbbb' }] } };
    if (req.path === '/system/settings/git-settings') return { status: 200, json: { count: 1, items: [{}] } };
    return { status: 404, json: {} };
  });
  const snapshot = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
  const poller = new Poller({
    client,
    snapshot,
    clock,
    logger,
    healthIntervalMs: 30_000,
    metadataIntervalMs: 600_000,
    maxOutstanding: 8,
  });
  const job = new LeaderJob({
    discoverer: new Discoverer({ client, products: ['stream', 'edge'], logger }),
    poller,
    client,
    snapshot,
    clock,
    logger,
    metrics: { discovery: () => undefined, nodes: () => undefined },
    discoveryIntervalMs: 60_000,
    shard: { index: 0, total: 1 },
    maxNodes: 0,
    gitSettings,
  });
  return { client, snapshot, job, clock };
}

const run = (job: LeaderJob) => job.discover(new AbortController().signal);

describe('LeaderJob', () => {
  it('asks the leader’s /health first (no auth), then lists, then a version request per group and git', async () => {
    const { client, snapshot, job } = setup(() => undefined);
    await run(job);
    expect(client.calls.map((c) => c.path)).toEqual([
      '/health',
      '/products/stream/workers',
      '/products/edge/workers',
      '/products/stream/groups',
      '/products/edge/groups',
      '/m/default/version',
      '/system/settings/git-settings',
    ]);
    expect(client.calls[0]).toMatchObject({ anonymous: true, accept: [200, 420] });
    // Every request is bounded by the discovery's deadline.
    for (const c of client.calls) expect(c.deadline, c.path).toBe(client.calls[0]!.deadline);
    expect(snapshot.getGroup('stream', 'default')?.versions?.undeployed).toBe(1);
    expect(snapshot.getNode('w1')?.deployedConfigVersion).toBe('abc1234');
    expect(snapshot.getLeader()).toMatchObject({ up: true, health: { answer: { status: 'healthy' } } });
  });

  it('without --collector.git-settings, sends no git request', async () => {
    const { client, job } = setup(() => undefined, false);
    await run(job);
    expect(client.calls.map((c) => c.path)).not.toContain('/system/settings/git-settings');
  });

  it('a failed listing sends nothing more and says why; the leader’s health is still known', async () => {
    const { client, snapshot, job } = setup((req) =>
      req.path === '/products/stream/workers' ? { status: 401, json: {} } : undefined,
    );
    await run(job);
    expect(client.calls.map((c) => c.path)).toEqual(['/health', '/products/stream/workers']);
    expect(snapshot.getLeader()).toMatchObject({
      up: false,
      discoveryFailure: 'unauthorized',
      health: { answer: { status: 'healthy' } },
    });
  });

  it('while the leader is held (420), keeps the last answer and takes the probe’s answers', async () => {
    let held = false;
    // What the budget answers while held: not sent, no status (the /health of a discovery included).
    const { snapshot, job } = setup(() =>
      held ? { fail: { ok: false, reason: 'leader_unavailable', message: 'not sent: held' } } : undefined,
    );
    await run(job);
    held = true;
    await run(job);
    expect(snapshot.getLeader()?.health?.answer?.status).toBe('healthy');
    job.onHealthProbe(420, { status: 'standby', startTime: 1, role: 'standby' });
    expect(snapshot.getLeader()?.health?.answer).toEqual({ status: 'standby', startTime: 1, role: 'standby' });
    job.onHealthProbe(200, { nonsense: true }); // not a health answer: ignored
    expect(snapshot.getLeader()?.health?.answer?.status).toBe('standby');
    expect(snapshot.leaderTexts().join('')).toContain('cribl_leader_health_status{status="standby"} 1\n');
  });
});
