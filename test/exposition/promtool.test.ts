import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createSelfMetrics } from '../../src/telemetry/self-metrics.js';
import { gunzipSync } from 'node:zlib';
import { LeaderSnapshot } from '../../src/store/snapshot.js';
import { TestStore, testBody } from '../helpers/stores.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { node, worker } from './fixtures.js';

const hasPromtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
const ci = process.env.CI === 'true';

const HOSTILE = ['say "hi"', 'C:\\cribl\\', 'two\nlines', 'lone \uD800 surrogate', 'nœud 東京 🚀', '', '\\n', '{}=,'];

async function realisticBody(format: 'text' | 'openmetrics' = 'text'): Promise<string> {
  const clock = new FakeClock();
  const management = new LeaderSnapshot();
  management.setLeaderFacts('workspaces', {
    up: true,
    workspaces: [
      { workspaceId: 'main', state: 'Active', leaderFQDN: '', region: 'us-west-2' },
      { workspaceId: HOSTILE[0]!, state: 'Failed', leaderFQDN: '', region: '' },
    ],
  });
  const leaders = [new TestStore({ workspace: 'main' }), new TestStore({ workspace: 'dev "2"' })];
  leaders.forEach((s, l) => {
    s.setLeaderFacts('listing', {
      up: l === 0,
      ...(l === 0
        ? { lastDiscoveryMs: 1717200000000 }
        : { failure: { reason: 'http_4xx', status: 401, message: 'GET /x: HTTP 401' } }),
    });
    s.setLeaderFacts('leader_health', {
      value: { status: l === 0 ? 'healthy' : 'standby', startTime: 1717100000000, role: 'primary' },
    });
    s.setLeaderFacts('git_settings', {
      value: { remoteConfigured: l === 0, branch: HOSTILE[l]!, gitOps: 'none', autoAction: 'none' },
    });
    s.setLeaderFacts('search', {
      success: l === 0,
      durationMs: 2500,
      lastSuccessMs: 1717200000000,
      ...(l ? { failure: 'timeout' } : {}),
    });
    s.setGroups('groups', [
      {
        product: 'stream',
        id: 'default',
        facts: { id: 'default', configVersion: 'abc1234', workerCount: 2, deployingWorkerCount: 1 },
      },
      { product: 'edge', id: HOSTILE[0]!, facts: { id: HOSTILE[0]!, incompatibleWorkerCount: 1 } },
    ]);
    s.setGroupFacts(
      'group_version',
      new Map([['stream\u0000default', { deployed: 'abc1234', undeployed: 2, lastCommitMs: 1717200000000 }]]),
    );
    s.setGroupFacts(
      'packs',
      new Map([
        ['stream\u0000default', { value: [{ id: HOSTILE[1]!, version: '1.0.0', pipelines: 2 }, { id: 'p2' }] }],
      ]),
    );
    // The data-flow, licence, vitals and bulletin collectors, with hostile ids, types and titles.
    const io = (id: string, pq?: string) => ({ id, type: HOSTILE[2]!, health: 'red', processes: [3, 0, 1, 0], pq });
    s.setGroupFacts(
      'dataflow',
      new Map([
        [
          'stream\u0000default',
          { destinations: { value: [io(HOSTILE[3]!, 'yellow'), io('s3')] }, sources: { value: [io(HOSTILE[4]!)] } },
        ],
      ]),
    );
    // The throughput collector: counters and gauges, with hostile ids and types (a node's figures: below).
    const conn = (id: string, type: string) => ({
      id,
      type,
      counters: { out_events: 12, out_bytes: 3.5e9, dropped_events: 0, in_events: 7, in_bytes: 900 },
      gauges: { blocked: 1, backpressure: 0, pq_size: 65536 },
      queue: [1, 2],
    });
    s.setGroupFacts(
      'throughput',
      new Map([
        [
          'stream\u0000default',
          {
            totals: { in_events: 1e6, in_bytes: 2e9, out_events: 9e5, out_bytes: 1.9e9, dropped_events: 3 },
            destinations: [conn(HOSTILE[3]!, HOSTILE[2]!), conn('s3', 's3')],
            sources: [conn(HOSTILE[4]!, HOSTILE[7]!)],
            history: [],
          },
        ],
      ]),
    );
    s.setLeaderFacts('license', {
      licenses: {
        value: {
          licenses: [{ id: HOSTILE[5]!, type: 'prod', title: HOSTILE[6]!, expiresMs: 1.8e12, quotaBytesPerDay: 1e12 }],
        },
      },
      usage: { value: { billedBytes: 9e11, endMs: 1.7e12 } },
    });
    s.setLeaderFacts('leader_info', {
      value: {
        version: HOSTILE[7]!,
        distMode: 'master',
        build: HOSTILE[1]!,
        diskAvailableBytes: 5e9,
        limits: [[HOSTILE[0]!, 5]],
      },
    });
    s.setLeaderFacts('leader_messages', {
      value: { counts: [1, 0, 2, 0, 1], lastMs: [1.7e12, undefined, 1.7e12, undefined, undefined], strange: [] },
    });
    HOSTILE.forEach((value, i) => {
      const id = `${value}-${i}`;
      const w = worker(id, {
        deployable: i % 2 === 0,
        disconnected: i === 3,
        status: i % 2 ? 'healthy' : value,
        ...(i % 3 ? { nodeUpgradeStatus: { state: (i % 4) as 0 | 1 | 2 | 3, timestamp: 1717200000000 } } : {}),
      });
      w.info.hostname = value;
      w.info.platform = HOSTILE[(i + 1) % HOSTILE.length]!;
      if (i % 2) {
        w.info.freeDiskSpace = 1e9 + i;
        w.info.totalDiskSpace = 5e10;
      }
      const statuses = ['healthy', 'shutting down', 'standby'] as const;
      // Listed twice with another start time: a restart.
      if (i % 2)
        s.setNode(
          id,
          node(id, {
            group: 'default',
            worker: { ...w, info: { ...w.info, cribl: { ...w.info.cribl, startTime: 1 } } },
          }),
        );
      s.setNode(
        id,
        node(id, {
          group: i % 2 ? 'default' : value,
          worker: w,
          health:
            i % 4 === 3
              ? { up: false, failure: 'timeout', lastSuccessMs: 1717200000000 }
              : { up: true, status: statuses[i % 3]!, lastSuccessMs: 1717200001000 },
          metadata: {
            lastSuccessMs: 1717200002000,
            value: {
              timestamp: 1,
              cribl: { mode: value, version: '4' },
              kube: { namespace: value, pod: { name: value } },
            },
          },
        }),
      );
      // The throughput collector's figures of a Stream node.
      if (i === 1) {
        s.setNodeFacts(id, 'throughput', {
          counters: { in_events: 5, in_bytes: 50, out_events: 4, out_bytes: 40 },
          gauges: { free_mem: 4.2e9, load_avg: 1.25, heartbeat_lag: 0.4 },
          seenMs: 1,
        });
      }
    });
  });
  const body = testBody(leaders, { management, clock });
  const self = createSelfMetrics({ version: '0.1.0', nodejsVersion: 'v20.18.1' });
  const l = self.forLeader('main');
  l.onRequest('/w/{nodeId}/health', '200', 0.05);
  l.onRequest('/products/{product}/workers', 'timeout', 10);
  l.onThrottled('429');
  l.collectorCount?.('cribl_exporter_throughput_skipped_seconds_total', 660);
  l.onPauseChange(true, Infinity);
  l.onTokenExpiry('cloud', 1717203600000);
  l.onFailure('cloud', 'unreachable');
  self.setShard(0, 1);
  self.setWebConfigReloadSuccessful(true);
  const served = (await body.current()).serve(format);
  body.close();
  const tail = format === 'openmetrics' ? '# EOF\n' : '';
  return gunzipSync(Buffer.concat([...served.gzip, served.end])).toString('utf8') + (await self.render(format)) + tail;
}

describe('promtool check metrics', () => {
  it.skipIf(!hasPromtool && !ci)('accepts a realistic body with hostile label values', async () => {
    if (!hasPromtool) throw new Error('promtool is not on PATH (Debian package "prometheus"); CI must have it');
    const body = await realisticBody();
    expect(body).toContain('lone \uFFFD surrogate'); // the hostile values are really in there
    // Every family of this issue is in there, the counter among them.
    for (const name of [
      'cribl_node_config_outdated',
      'cribl_node_reported_healthy',
      'cribl_node_upgrade_status',
      'cribl_group_undeployed_commits',
      'cribl_group_pack_info',
      'cribl_leader_health_status',
      'cribl_leader_discovery_failure_info',
      'cribl_leader_git_settings_info',
      'cribl_search_probe_failure_info',
      'cribl_workspace_info',
      'cribl_group_received_events_total',
      'cribl_destination_blocked',
      'cribl_destination_pq_queue_size_bytes',
      'cribl_source_received_bytes_total',
      'cribl_node_memory_free_bytes',
      'cribl_node_worker_process_heartbeat_lag_seconds',
      'cribl_node_sent_bytes_total',
      'cribl_exporter_throughput_skipped_seconds_total',
    ])
      expect(body).toContain(`\n${name}{`);
    expect(body).toContain('# TYPE cribl_node_restarts_total counter\ncribl_node_restarts_total{');
    const result = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
    // Silent: no parse error (exit 1) and no lint finding (exit 3).
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  });

  // promtool reads the text format only (it takes OpenMetrics' `# TYPE x counter` for a family without samples).
  // The real Prometheus of test/deploy/e2e-prometheus.test.ts scrapes and parses the OpenMetrics body; here its
  // structure: counters named without _total, their samples with it, and nothing else differs from the text body.
  it('serves the same families as OpenMetrics, counters named as OpenMetrics names them', async () => {
    const [text, om] = [await realisticBody('text'), await realisticBody('openmetrics')];
    expect(om.endsWith('# EOF\n')).toBe(true);
    const counters = [...om.matchAll(/^# TYPE (\S+) counter$/gm)].map((m) => m[1]!);
    expect(counters).toContain('cribl_node_restarts');
    for (const c of counters) {
      expect(c.endsWith('_total'), c).toBe(false);
      const samples = om.split('\n').filter((l) => l.startsWith(c) && !l.startsWith('#'));
      for (const l of samples) expect(l, c).toMatch(new RegExp(`^${c}_(total|created)[{ ]`));
    }
    const snapshotPart = (b: string) => b.slice(0, b.indexOf('# HELP cribl_exporter_'));
    let renamed = snapshotPart(om);
    for (const c of counters) renamed = renamed.replace(new RegExp(`^(# (?:HELP|TYPE) ${c}) `, 'gm'), '$1_total ');
    expect(renamed).toBe(snapshotPart(text));
  });
});
