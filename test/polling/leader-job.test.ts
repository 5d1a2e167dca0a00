import { describe, expect, it } from 'vitest';
import type { Discoverer, DiscoveryOutcome } from '../../src/discovery/discovery.js';
import { LeaderJob } from '../../src/polling/leader-job.js';
import type { Poller } from '../../src/polling/poller.js';
import { captureLogger } from '../auth/helpers.js';
import { FakeClock } from '../helpers/fake-clock.js';

const failed: DiscoveryOutcome = { ok: false, reason: 'connect', message: 'GET /x: connection failed', requests: 1 };
const listed: DiscoveryOutcome = { ok: true, nodes: new Map(), groups: [], requests: 1, malformed: 0 };

function job(outcomes: DiscoveryOutcome[]) {
  const clock = new FakeClock();
  const log = captureLogger();
  const j = new LeaderJob({
    discoverer: { discover: () => Promise.resolve(outcomes.shift()!) } as unknown as Discoverer,
    poller: { setNodes: () => Promise.resolve() } as unknown as Poller,
    snapshot: { setGroups: () => undefined, setLeader: () => undefined },
    clock,
    logger: log.logger,
    metrics: { discovery: () => undefined, nodes: () => undefined },
    discoveryIntervalMs: 60_000,
    shard: { index: 0, total: 1 },
    maxNodes: 0,
  });
  return { j, clock, msgs: () => log.records().map((r) => r.msg) };
}

describe('LeaderJob', () => {
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
});
