import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Product } from '@cribl-exporter/api/products';
import type { Collector } from '../../src/collectors/collector.js';
import type { NodeDetailSetting } from '../../src/collectors/detail.js';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { settingsOf } from '../../src/config/types.js';
import { Discoverer, type DiscoveryOutcome } from '../../src/discovery/discovery.js';
import type { LeaderClient, LeaderRequest } from '../../src/leader/types.js';
import { CollectorRuns } from '../../src/polling/collector-runs.js';
import { DiscoveryStep, discoveryIntervalFor, SLOW_LISTING_FROM } from '../../src/polling/discovery-step.js';
import { decodeWorker } from '../../src/collectors/listing/index.js';
import type { Poller } from '../../src/polling/poller.js';
import { captureLogger } from '../auth/helpers.js';
import { MemorySnapshot, testPoller } from '../helpers/memory-snapshot.js';
import { DEFAULT_CONFIG } from '../helpers/stores.js';
import { worker } from '../exposition/fixtures.js';
import { renderGroups, renderLeader } from '../helpers/render.js';
import type { Clock } from '@cribl-exporter/api/clock';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeLeaderClient, type FakeAnswer } from '../helpers/fake-leader-client.js';

const logger = pino({ level: 'silent' });

/** The registry's per-discovery collectors over a client, with the defaults (`--no-collector.git-settings`: off). */
function runs(client: LeaderClient, snapshot: MemorySnapshot, clock: Clock, gitSettings = true): CollectorRuns {
  return new CollectorRuns({
    client,
    store: snapshot,
    clock,
    logger,
    settingsOf: (c: Collector) =>
      c.name === 'git_settings' ? { enabled: gitSettings } : settingsOf(DEFAULT_CONFIG, c),
    target: { cloud: false },
  });
}
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
  const snapshot = new MemorySnapshot();
  const poller = testPoller({ client, snapshot, clock, logger, maxOutstanding: 8 });
  const nodeDetail: Record<Product, NodeDetailSetting> = { stream: 'auto', edge: 'auto' };
  const job = new DiscoveryStep({
    discoverer: new Discoverer({ client, products: ['stream', 'edge'], logger }),
    poller,
    collectors: COLLECTORS,
    runs: runs(client, snapshot, clock, gitSettings),
    snapshot,
    clock,
    logger,
    metrics: { discovery: () => undefined, nodes: () => undefined },
    discoveryIntervalMs: 60_000,
    shard: { index: 0, total: 1 },
    maxNodes: 0,
    nodeDetail,
  });
  const setDetail = (d: typeof nodeDetail): void => void Object.assign(nodeDetail, d);
  return { client, snapshot, job, clock, setDetail };
}

const run = (job: DiscoveryStep) => job.discover(new AbortController().signal);

describe('DiscoveryStep', () => {
  it('asks the leader’s /health first (no auth), then lists, then a version request per group and git', async () => {
    const { client, snapshot, job } = setup(() => undefined);
    await run(job);
    const paths = client.calls.map((c) => c.path);
    expect(paths.slice(0, 5)).toEqual([
      '/health',
      '/products/stream/workers',
      '/products/edge/workers',
      '/products/stream/groups',
      '/products/edge/groups',
    ]);
    expect(paths.slice(5).sort()).toEqual([
      '/m/default/version',
      '/system/info',
      '/system/messages',
      '/system/settings/git-settings',
    ]);
    expect(client.calls[0]).toMatchObject({ anonymous: true, accept: [200, 420] });
    // Every request is bounded by the discovery's deadline.
    for (const c of client.calls) expect(c.deadline, c.path).toBe(client.calls[0]!.deadline);
    expect(snapshot.group('stream', 'default')?.facts).toMatchObject({
      groups: { configVersion: 'abc1234' },
      group_version: { undeployed: 1 },
    });
    expect(snapshot.held.get('w1')?.listing?.configVersion).toBe('abc1234');
    expect(snapshot.leader().facts).toMatchObject({
      listing: { up: true },
      leader_health: { value: { status: 'healthy' } },
    });
  });

  it('decides each listed product’s detail level and writes it to the leader’s facts', async () => {
    const { snapshot, job, setDetail } = setup(() => undefined);
    await run(job);
    expect(snapshot.leader().facts['node_detail']).toEqual({ levels: { stream: 'full' }, nodes: { stream: 1 } });
    setDetail({ stream: 'minimal', edge: 'auto' });
    await run(job);
    expect(snapshot.leader().facts['node_detail']).toEqual({ levels: { stream: 'minimal' }, nodes: { stream: 1 } });
  });

  it('counts the nodes the listing drops while they are disconnected, per group, from 0', async () => {
    let listed = [worker('w1'), worker('w2', { disconnected: true }), worker('w3')];
    const { snapshot, job } = setup((req) =>
      req.path === '/products/stream/workers'
        ? { status: 200, json: { count: listed.length, items: listed } }
        : undefined,
    );
    const removed = () =>
      renderGroups(snapshot.groups())
        .join('')
        .match(/^cribl_group_nodes_removed_total.*$/gm);
    await run(job);
    expect(removed()).toEqual(['cribl_group_nodes_removed_total{product="stream",group="default"} 0']);
    // w2 aged out while disconnected; w3 left while connected (a scale-down): only w2 counts.
    listed = [worker('w1')];
    await run(job);
    expect(removed()).toEqual(['cribl_group_nodes_removed_total{product="stream",group="default"} 1']);
    expect([...snapshot.held.keys()]).toEqual(['w1']);
    await run(job);
    expect(removed()).toEqual(['cribl_group_nodes_removed_total{product="stream",group="default"} 1']);
  });

  it('counts a group’s restarts across discoveries, and keeps those of a node that leaves', async () => {
    const restartedAt = (startTime: number) => {
      const w = worker('w2');
      return { ...w, info: { ...w.info, cribl: { ...w.info.cribl, startTime } } };
    };
    let listed = [worker('w1'), restartedAt(1)];
    const { snapshot, job } = setup((req) =>
      req.path === '/products/stream/workers'
        ? { status: 200, json: { count: listed.length, items: listed } }
        : undefined,
    );
    const counted = () =>
      renderGroups(snapshot.groups())
        .join('')
        .match(/^cribl_group_(node_restarts_total|nodes\{).*$/gm);
    await run(job);
    listed = [worker('w1'), restartedAt(2)];
    await run(job);
    expect(counted()).toEqual([
      'cribl_group_nodes{product="stream",group="default",state="connected"} 2',
      'cribl_group_nodes{product="stream",group="default",state="disconnected"} 0',
      'cribl_group_node_restarts_total{product="stream",group="default"} 1',
    ]);
    listed = [worker('w1')];
    await run(job);
    expect(counted()).toEqual([
      'cribl_group_nodes{product="stream",group="default",state="connected"} 1',
      'cribl_group_nodes{product="stream",group="default",state="disconnected"} 0',
      'cribl_group_node_restarts_total{product="stream",group="default"} 1',
    ]);
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
    expect(snapshot.leader().facts).toMatchObject({
      listing: { up: false, failure: { reason: 'http_4xx', status: 401 } },
      leader_health: { value: { status: 'healthy' } },
    });
    expect(renderLeader(snapshot.leader()).join('')).toContain(
      'cribl_leader_discovery_failure_info{reason="unauthorized"} 1\n',
    );
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
    const answer = (): unknown => (snapshot.leader().facts.leader_health as { value?: unknown } | undefined)?.value;
    expect(answer()).toMatchObject({ status: 'healthy' });
    job.onHealthProbe(420, { status: 'standby', startTime: 1, role: 'standby' });
    expect(answer()).toEqual({ status: 'standby', startTime: 1, role: 'standby' });
    job.onHealthProbe(200, { nonsense: true }); // not a health answer: ignored
    expect(answer()).toMatchObject({ status: 'standby' });
    expect(renderLeader(snapshot.leader()).join('')).toContain('cribl_leader_health_status{status="standby"} 1\n');
  });
});

describe('DiscoveryStep logs', () => {
  const failed: DiscoveryOutcome = { ok: false, reason: 'connect', message: 'GET /x: connection failed' };
  const listed: DiscoveryOutcome = {
    ok: true,
    nodes: new Map(),
    groups: [],
    groupsUnanswered: [],
    requests: 1,
    malformed: 0,
  };

  function job(outcomes: DiscoveryOutcome[], discoveryIntervalMs = 60_000) {
    const clock = new FakeClock();
    const log = captureLogger();
    const snapshot = new MemorySnapshot();
    const j = new DiscoveryStep({
      discoverer: { discover: () => Promise.resolve(outcomes.shift()!) } as unknown as Discoverer,
      poller: { setNodes: () => Promise.resolve() } as unknown as Poller,
      collectors: COLLECTORS,
      // The leader's own /health and the other per-discovery requests: answered 404 here.
      runs: runs(
        fakeLeaderClient(() => ({ status: 404, json: {} })),
        snapshot,
        clock,
      ),
      snapshot,
      clock,
      logger: log.logger,
      metrics: { discovery: () => undefined, nodes: () => undefined },
      discoveryIntervalMs,
      shard: { index: 0, total: 1 },
      maxNodes: 0,
    });
    return { j, clock, msgs: () => log.records().map((r) => r.msg) };
  }

  it('logs "leader recovered" once per recovery, not at the first discovery nor on later successes', async () => {
    const { j, clock, msgs } = job([listed, failed, failed, listed, listed, failed, listed]);
    const signal = new AbortController().signal;
    for (let i = 0; i < 7; i++) {
      await j.discover(signal);
      await clock.advance(60_000);
    }
    const recovered = msgs().filter((m) => m === 'leader recovered: discovery succeeded again');
    expect(recovered).toHaveLength(2);
    expect(msgs().filter((m) => m === 'discovery failed')).toHaveLength(3);
  });

  it('from 100,000 listed nodes, discovers no faster than the heartbeat period, and says so once', async () => {
    const listedNode = decodeWorker(worker('edge-0'))!;
    const big = (n: number): DiscoveryOutcome => ({
      ...listed,
      nodes: new Map(
        Array.from({ length: n }, (_, i) => [
          `e${i}`,
          { product: 'edge' as const, listed: { ...listedNode, id: `e${i}` } },
        ]),
      ),
    });
    const outcomes = [big(SLOW_LISTING_FROM), big(SLOW_LISTING_FROM), big(SLOW_LISTING_FROM - 1), listed];
    const { j, clock, msgs } = job(outcomes, 15_000);
    const signal = new AbortController().signal;
    const ran: number[] = [];
    const t0 = clock.now();
    // The schedule ticks at --discovery.interval (15 s); the runs that come too early do nothing.
    for (let i = 0; i < 10 && outcomes.length > 0; i++) {
      const left = outcomes.length;
      await j.discover(signal);
      if (outcomes.length < left) ran.push((clock.now() - t0) / 1000);
      await clock.advance(15_000);
    }
    expect(ran).toEqual([0, 60, 120, 135]);
    // Runs at 0 s (100,000 nodes: 60 s from now on), 60 s, 120 s (99,999 nodes: back to 15 s), 135 s.
    const changes = msgs().filter((m): m is string => typeof m === 'string' && m.startsWith('discovery every'));
    expect(changes).toHaveLength(2);
    expect(changes[0]).toContain('discovery every 60 s, not --discovery.interval');
    expect(changes[1]).toContain('discovery every --discovery.interval (15 s) again');
    expect(j.intervalMs).toBe(15_000);
  });
});

describe('discoveryIntervalFor', () => {
  it.each([
    [15_000, { edge: 99_999 }, 15_000],
    [15_000, { edge: 100_000 }, 60_000],
    [15_000, { edge: 60_000, stream: 40_000 }, 60_000],
    [120_000, { edge: 250_000 }, 120_000],
    [60_000, { edge: 250_000 }, 60_000],
  ] as const)('--discovery.interval %i ms with %o listed → %i ms', (setting, listed, ms) => {
    expect(discoveryIntervalFor(setting, listed)).toBe(ms);
  });
});
