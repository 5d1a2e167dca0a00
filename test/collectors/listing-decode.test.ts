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
      worker('a', { status: 'healthy', nodeUpgradeStatus: { state: 1, timestamp: 1 } }),
      { id: 'b' },
      worker('c'),
    ]);
    expect(malformed).toBe(1);
    expect(items.map((w) => w.id)).toEqual(['a', 'c']);
    const a = items[0] as unknown as Record<string, unknown> & {
      info: Record<string, unknown> & { cribl: Record<string, unknown> };
    };
    for (const dropped of ['status', 'nodeUpgradeStatus']) expect(a).not.toHaveProperty(dropped);
    for (const dropped of ['release', 'node', 'env']) expect(a.info).not.toHaveProperty(dropped);
    for (const dropped of ['guid', 'group']) expect(a.info.cribl).not.toHaveProperty(dropped);
    expect(a.info.cribl).toMatchObject({
      distMode: 'worker',
      startTime: 1717199000000,
      config: { version: 'abc1234' },
    });
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
