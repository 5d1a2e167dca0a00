import { decodeWorkerEnvelope, decodeWorkers } from '../../src/collectors/listing/index.js';
import { describe, expect, it } from 'vitest';
import { worker } from '../exposition/fixtures.js';

describe('decodeWorkerEnvelope', () => {
  it('checks the envelope only and hands the entries over unvalidated', () => {
    const page = decodeWorkerEnvelope({ items: [worker('a'), { nonsense: true }], count: 2, totalCount: 7 });
    expect(page.received).toBe(2);
    expect(page.totalCount).toBe(7);
    expect(page.raw).toHaveLength(2);
    expect(() => decodeWorkerEnvelope({ items: 'no' })).toThrow();
  });
});

describe('decodeWorkers', () => {
  it('keeps the valid entries as flat facts of what is exported, and counts the malformed ones', async () => {
    const { items, malformed } = await decodeWorkers([
      worker('a', {
        status: 'healthy',
        disconnected: true,
        deployable: false,
        nodeUpgradeStatus: { state: 2, timestamp: 1, failed: 1 },
      }),
      { id: 'b' },
      worker('c'),
    ]);
    expect(malformed).toBe(1);
    expect(items.map((w) => w.id)).toEqual(['a', 'c']);
    expect(items[0]).toEqual({
      id: 'a',
      group: 'default',
      hostname: 'host-a',
      version: '4.15.1-1b453caa',
      platform: 'linux',
      arch: 'x64',
      distMode: 'worker',
      configVersion: 'abc1234',
      status: 'healthy',
      firstMsgTime: 1717200000000,
      lastMsgTime: 1717200060500,
      startTime: 1717199000000,
      workerProcesses: 4,
      cpus: 8,
      totalmem: 16777216000,
      freeDiskSpace: undefined,
      totalDiskSpace: undefined,
      disconnected: true,
      deployable: false,
      upgradeState: 2, // the reason code is not exported
      upgradeTimestamp: 1,
      restarts: 0,
    });
  });

  it('keeps a node whose status or upgrade state it does not understand, without them', async () => {
    const odd = { ...worker('a'), status: 7, nodeUpgradeStatus: { state: 9, timestamp: 1 } };
    const { items, malformed } = await decodeWorkers([odd]);
    expect(malformed).toBe(0);
    expect(items[0]?.status).toBeUndefined();
    expect(items[0]?.upgradeState).toBeUndefined();
    expect(items[0]?.upgradeTimestamp).toBeUndefined();
  });

  it('yields to the event loop while validating a large page', async () => {
    const raw = Array.from({ length: 20_000 }, (_, i) => worker(`n${i}`));
    let ranDuring = false;
    let done = false;
    const decoding = decodeWorkers(raw).finally(() => (done = true));
    setImmediate(() => (ranDuring = !done));
    const { items } = await decoding;
    expect(items).toHaveLength(20_000);
    expect(ranDuring).toBe(true);
  });
});
