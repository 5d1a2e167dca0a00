import { decodeWorkerEnvelope, decodeWorkers } from '../../src/collectors/listing.js';
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
  it('keeps the valid entries, stripped to what is exported, and counts the malformed ones', async () => {
    const { items, malformed } = await decodeWorkers([
      worker('a', { status: 'healthy', nodeUpgradeStatus: { state: 2, timestamp: 1, failed: 1 } }),
      { id: 'b' },
      worker('c'),
    ]);
    expect(malformed).toBe(1);
    expect(items.map((w) => w.id)).toEqual(['a', 'c']);
    const a = items[0] as unknown as Record<string, unknown> & {
      info: Record<string, unknown> & { cribl: Record<string, unknown> };
    };
    expect(a.status).toBe('healthy');
    expect(a.nodeUpgradeStatus).toEqual({ state: 2, timestamp: 1 }); // the reason code is not exported
    for (const dropped of ['release', 'node', 'env']) expect(a.info).not.toHaveProperty(dropped);
    for (const dropped of ['guid', 'group']) expect(a.info.cribl).not.toHaveProperty(dropped);
    expect(a.info.cribl).toMatchObject({
      distMode: 'worker',
      startTime: 1717199000000,
      config: { version: 'abc1234' },
    });
  });

  it('keeps a node whose status or upgrade state it does not understand, without them', async () => {
    const odd = { ...worker('a'), status: 7, nodeUpgradeStatus: { state: 9, timestamp: 1 } };
    const { items, malformed } = await decodeWorkers([odd]);
    expect(malformed).toBe(0);
    expect(items[0]?.status).toBeUndefined();
    expect(items[0]?.nodeUpgradeStatus).toBeUndefined();
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

describe('compactWorker (what the store keeps between listings)', () => {
  it('keeps every field the families read, with the config object shared by version', async () => {
    const { items } = await decodeWorkers([
      worker('a', { disconnected: true, deployable: false, status: 'healthy' }),
      worker('b'),
      worker('c', { info: { ...worker('c').info, cribl: { ...worker('c').info.cribl, config: { version: 'new' } } } }),
    ]);
    const [a, b, c] = items;
    expect(a).toEqual({
      id: 'a',
      group: 'default',
      firstMsgTime: 1717200000000,
      lastMsgTime: 1717200060500,
      workerProcesses: 4,
      disconnected: true,
      deployable: false,
      status: 'healthy',
      info: {
        hostname: 'host-a',
        cpus: 8,
        totalmem: 16777216000,
        architecture: 'x64',
        platform: 'linux',
        cribl: {
          version: '4.15.1-1b453caa',
          distMode: 'worker',
          startTime: 1717199000000,
          config: { version: 'abc1234' },
        },
      },
    });
    expect(b?.info.cribl.config).toBe(a?.info.cribl.config);
    expect(c?.info.cribl.config).toEqual({ version: 'new' });
    expect(c?.info.cribl.config).not.toBe(a?.info.cribl.config);
  });
});
