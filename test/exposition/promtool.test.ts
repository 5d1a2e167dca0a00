import { SNAPSHOT_RENDERERS } from '../../src/collectors/index.js';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createBodyCache } from '../../src/exposition/body.js';
import { createSelfMetrics } from '../../src/telemetry/self-metrics.js';
import { createLeaderSnapshot } from '../../src/store/snapshot.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { node, worker } from './fixtures.js';

const hasPromtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
const ci = process.env.CI === 'true';

const HOSTILE = ['say "hi"', 'C:\\cribl\\', 'two\nlines', 'lone \uD800 surrogate', 'nœud 東京 🚀', '', '\\n', '{}=,'];

async function realisticBody(): Promise<string> {
  const clock = new FakeClock();
  const leaders = [
    createLeaderSnapshot({ labels: { workspace: 'main' }, render: SNAPSHOT_RENDERERS }),
    createLeaderSnapshot({ labels: { workspace: 'dev "2"' }, render: SNAPSHOT_RENDERERS }),
  ];
  leaders.forEach((s, l) => {
    s.setLeader({ up: l === 0, ...(l === 0 ? { lastDiscoveryMs: 1717200000000 } : {}) });
    s.setGroups([
      { product: 'stream', group: { id: 'default', configVersion: 'abc', workerCount: 2, deployingWorkerCount: 1 } },
      { product: 'edge', group: { id: HOSTILE[0]! } },
    ]);
    HOSTILE.forEach((value, i) => {
      const id = `${value}-${i}`;
      const w = worker(id, { deployable: i % 2 === 0, disconnected: i === 3 });
      w.info.hostname = value;
      w.info.platform = HOSTILE[(i + 1) % HOSTILE.length]!;
      if (i % 2) {
        w.info.freeDiskSpace = 1e9 + i;
        w.info.totalDiskSpace = 5e10;
      }
      const statuses = ['healthy', 'shutting down', 'standby'] as const;
      s.setNode(
        id,
        node(id, {
          group: value,
          worker: w,
          health:
            i % 4 === 3
              ? { up: false, failure: 'timeout', lastSuccessMs: 1717200000000 }
              : { up: true, status: statuses[i % 3]!, lastSuccessMs: 1717200001000 },
          metadata: {
            lastSuccessMs: 1717200002000,
            item: {
              timestamp: 1,
              cribl: { mode: value, version: '4' },
              kube: { namespace: value, pod: { name: value } },
            },
          },
        }),
      );
    });
  });
  const body = createBodyCache({
    snapshots: leaders,
    intervals: { discoveryMs: 60_000, healthMs: 30_000, metadataMs: 300_000 },
    clock,
  });
  const self = createSelfMetrics({ version: '0.1.0', nodejsVersion: 'v20.18.1' });
  const l = self.forLeader('main');
  l.onRequest('/w/{nodeId}/health', '200', 0.05);
  l.onRequest('/products/{product}/workers', 'timeout', 10);
  l.onThrottled('429');
  l.onPauseChange(true, Infinity);
  l.onTokenExpiry('cloud', 1717203600000);
  l.onFailure('cloud', 'unreachable');
  self.setShard(0, 1);
  self.setWebConfigReloadSuccessful(true);
  const snapshot = await body.current();
  body.close();
  return Buffer.concat(snapshot.identity ?? []).toString('utf8') + (await self.render('text'));
}

describe('promtool check metrics', () => {
  it.skipIf(!hasPromtool && !ci)('accepts a realistic body with hostile label values', async () => {
    if (!hasPromtool) throw new Error('promtool is not on PATH (Debian package "prometheus"); CI must have it');
    const body = await realisticBody();
    expect(body).toContain('lone \uFFFD surrogate'); // the hostile values are really in there
    const result = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
    // Silent: no parse error (exit 1) and no lint finding (exit 3).
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  });
});
