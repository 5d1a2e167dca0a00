import { decodeWorker } from '../../src/collectors/listing/index.js';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Discoverer } from '../../src/discovery/discovery.js';
import { selectNodes } from '../../src/discovery/select.js';
import { shardOf } from '../../src/discovery/shard.js';
import type { LeaderRequest } from '../../src/leader/types.js';
import { fakeLeaderClient, type FakeAnswer } from '../helpers/fake-leader-client.js';
import { workerEntry } from '../helpers/workers.js';

const logger = pino({ level: 'silent' });
const FAR = Date.now() + 3_600_000;

function pagedLeader(
  fleet: Record<string, ReturnType<typeof workerEntry>[]>,
  opts: { totalCount?: boolean; pageCap?: number } = {},
) {
  return (req: LeaderRequest<unknown>): FakeAnswer => {
    const m = /^\/products\/([^/]+)\/(workers|groups)$/.exec(req.path);
    if (!m) return { status: 404, json: { status: 'error', message: 'not found' } };
    const [, product, what] = m;
    if (what === 'groups')
      return {
        status: 200,
        json: {
          count: 1,
          items: [
            { id: 'default', configVersion: 'abc1234', workerCount: 1 },
            { id: 'default_search', type: 'search' },
          ],
        },
      };
    const all = fleet[product!] ?? [];
    const limit = Math.min(Number(req.query?.limit), opts.pageCap ?? Infinity);
    const offset = Number(req.query?.offset);
    const items = all.slice(offset, offset + limit);
    return {
      status: 200,
      json: {
        count: items.length,
        items,
        offset,
        limit,
        ...(opts.totalCount === false ? {} : { totalCount: all.length }),
      },
    };
  };
}

describe('Discoverer', () => {
  it('pages through each product with limit/offset and stops at totalCount', async () => {
    const stream = Array.from({ length: 1200 }, (_, i) => workerEntry(`s-${i}`));
    const edge = Array.from({ length: 500 }, (_, i) =>
      workerEntry(`e-${i}`, { distMode: 'managed-edge', group: 'default_fleet' }),
    );
    const client = fakeLeaderClient(pagedLeader({ stream, edge }));
    const d = new Discoverer({ client, products: ['stream', 'edge'], logger, pageSize: 500 });
    const out = await d.discover(FAR);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.nodes.size).toBe(1700);
    expect(out.nodes.get('e-3')?.product).toBe('edge');
    const workerCalls = client.calls.filter((c) => c.path.endsWith('/workers'));
    // 1200 → 3 pages, 500 → exactly 1 page thanks to totalCount: ≤ 1 request per 500 nodes (rounded up).
    expect(workerCalls.map((c) => `${c.path}?${c.query?.offset}`)).toEqual([
      '/products/stream/workers?0',
      '/products/stream/workers?500',
      '/products/stream/workers?1000',
      '/products/edge/workers?0',
    ]);
    expect(workerCalls.every((c) => c.query?.limit === 500 && c.deadline === FAR)).toBe(true);
    // Search groups are not stream groups.
    expect(out.groups.map((g) => `${g.product}/${g.group.id}`)).toEqual(['stream/default', 'edge/default']);
  });

  it(
    'without totalCount, a short page ends the listing; a leader capping the page size is still read to the ' + 'end',
    async () => {
      const stream = Array.from({ length: 450 }, (_, i) => workerEntry(`s-${i}`));
      const client = fakeLeaderClient(pagedLeader({ stream }, { totalCount: true, pageCap: 100 }));
      const out = await new Discoverer({ client, products: ['stream'], logger, pageSize: 500 }).discover(FAR);
      expect(out.ok && out.nodes.size).toBe(450);
      const c2 = fakeLeaderClient(pagedLeader({ stream }, { totalCount: false }));
      const out2 = await new Discoverer({ client: c2, products: ['stream'], logger, pageSize: 200 }).discover(FAR);
      expect(out2.ok && out2.nodes.size).toBe(450);
      expect(c2.calls.filter((c) => c.path.endsWith('/workers'))).toHaveLength(3);
    },
  );

  it('asks for 1,000 nodes a page by default', async () => {
    const stream = Array.from({ length: 2500 }, (_, i) => workerEntry(`s-${i}`));
    const client = fakeLeaderClient(pagedLeader({ stream }));
    const out = await new Discoverer({ client, products: ['stream'], logger }).discover(FAR);
    expect(out.ok && out.nodes.size).toBe(2500);
    expect(
      client.calls.filter((c) => c.path.endsWith('/workers')).map((c) => [c.query?.limit, c.query?.offset]),
    ).toEqual([
      [1000, 0],
      [1000, 1000],
      [1000, 2000],
    ]);
  });

  it('exports a node listed on two pages once', async () => {
    const dup = workerEntry('dup');
    const client = fakeLeaderClient((req) => {
      if (req.path.endsWith('/groups')) return { status: 200, json: { count: 0, items: [] } };
      const offset = Number(req.query?.offset);
      const items = offset === 0 ? [workerEntry('a'), dup] : offset === 2 ? [dup, workerEntry('b')] : [];
      return { status: 200, json: { count: items.length, items, totalCount: 4 } };
    });
    const out = await new Discoverer({ client, products: ['stream'], logger, pageSize: 2 }).discover(FAR);
    expect(out.ok && [...out.nodes.keys()]).toEqual(['a', 'dup', 'b']);
  });

  it('falls back to /master/workers after a 404 and remembers it for this leader', async () => {
    const all = [
      workerEntry('w1'),
      workerEntry('e1', { distMode: 'managed-edge' }),
      workerEntry('m', { distMode: 'master' }),
    ];
    const client = fakeLeaderClient((req) => {
      if (req.path === '/master/workers') {
        const offset = Number(req.query?.offset);
        const items = all.slice(offset, offset + Number(req.query?.limit));
        return { status: 200, json: { count: items.length, items } };
      }
      if (req.path === '/master/groups') return { status: 200, json: { count: 1, items: [{ id: 'default' }] } };
      return { status: 404, json: { message: 'Not Found' } };
    });
    const d = new Discoverer({ client, products: ['stream', 'edge'], logger });
    const first = await d.discover(FAR);
    expect(first.ok && Object.fromEntries([...first.nodes].map(([k, v]) => [k, v.product]))).toEqual({
      w1: 'stream',
      e1: 'edge',
    });
    client.calls.length = 0;
    await d.discover(FAR);
    expect(client.calls.map((c) => c.path)).toEqual(['/master/workers', '/master/groups', '/master/groups']);
    expect(client.calls[1]!.query?.product).toBe('stream');
  });

  it('after a one-off 404 on the paged listing, asks it again within 10 discoveries and keeps it', async () => {
    const fleet = { stream: [workerEntry('w1'), workerEntry('w2')] };
    const paged = pagedLeader(fleet);
    let notFound = 1; // one 404 on /products/stream/workers, as a proxy restarting answers
    const client = fakeLeaderClient((req) => {
      if (req.path === '/products/stream/workers' && notFound > 0) {
        notFound--;
        return { status: 404, json: { message: 'Not Found' } };
      }
      if (req.path === '/master/workers') return { status: 200, json: { count: 1, items: [workerEntry('w1')] } };
      if (req.path === '/master/groups') return { status: 200, json: { count: 0, items: [] } };
      return paged(req);
    });
    const d = new Discoverer({ client, products: ['stream'], logger });
    const listings: string[] = [];
    for (let i = 0; i < 14; i++) {
      client.calls.length = 0;
      const out = await d.discover(FAR);
      expect(out.ok).toBe(true);
      listings.push(client.calls.some((c) => c.path === '/master/workers') ? 'master' : 'paged');
    }
    const back = listings.indexOf('paged');
    expect(back).toBeGreaterThan(0);
    expect(back).toBeLessThanOrEqual(10);
    expect(listings.slice(back).every((l) => l === 'paged')).toBe(true);
  });

  it('a leader before 4.17 keeps its listing: one 404 every 10 discoveries, every discovery complete', async () => {
    const client = fakeLeaderClient((req) => {
      if (req.path === '/master/workers') return { status: 200, json: { count: 1, items: [workerEntry('w1')] } };
      if (req.path === '/master/groups') return { status: 200, json: { count: 0, items: [] } };
      return { status: 404, json: { message: 'Not Found' } };
    });
    const d = new Discoverer({ client, products: ['stream'], logger });
    const tries: number[] = [];
    for (let i = 0; i < 30; i++) {
      client.calls.length = 0;
      const out = await d.discover(FAR);
      expect(out.ok && [...out.nodes.keys()]).toEqual(['w1']);
      if (client.calls.some((c) => c.path === '/products/stream/workers')) tries.push(i);
    }
    // Tried at the first discovery, then at least every 10th, but not at every one.
    expect(tries[0]).toBe(0);
    for (let k = 1; k < tries.length; k++) expect(tries[k]! - tries[k - 1]!).toBeLessThanOrEqual(10);
    expect(30 - tries.at(-1)!).toBeLessThanOrEqual(10);
    expect(tries.length).toBeLessThan(30 / 2);
  });

  it('reports a failed listing with its reason, and skips malformed entries without failing', async () => {
    const failing = fakeLeaderClient(() => ({
      fail: { ok: false, reason: 'timeout', message: 'GET /products/stream/workers timed out' },
    }));
    const out = await new Discoverer({ client: failing, products: ['stream'], logger }).discover(FAR);
    expect(out).toMatchObject({ ok: false, reason: 'timeout' });

    const bad = fakeLeaderClient((req) =>
      req.path.endsWith('/groups')
        ? { status: 200, json: { count: 0, items: [] } }
        : { status: 200, json: { count: 2, items: [workerEntry('ok'), { id: 'broken' }], totalCount: 2 } },
    );
    const out2 = await new Discoverer({ client: bad, products: ['stream'], logger }).discover(FAR);
    expect(out2.ok && [...out2.nodes.keys()]).toEqual(['ok']);
    expect(out2.ok && out2.malformed).toBe(1);

    const garbage = fakeLeaderClient(() => ({ status: 200, json: { nope: true } }));
    expect(await new Discoverer({ client: garbage, products: ['stream'], logger }).discover(FAR)).toMatchObject({
      ok: false,
      reason: 'decode',
    });
  });

  it('a failing groups listing does not fail discovery and names the product whose groups did not answer', async () => {
    const client = fakeLeaderClient((req) =>
      req.path === '/products/edge/groups'
        ? { status: 503, json: { status: 'error', message: 'boom' } }
        : req.path.endsWith('/groups')
          ? { status: 200, json: { count: 1, items: [{ id: 'default' }], totalCount: 1 } }
          : { status: 200, json: { count: 1, items: [workerEntry('a')], totalCount: 1 } },
    );
    const out = await new Discoverer({ client, products: ['stream', 'edge'], logger }).discover(FAR);
    expect(out.ok && out.nodes.size).toBe(1);
    expect(out.ok && out.groups.map((g) => `${g.product}/${g.group.id}`)).toEqual(['stream/default']);
    expect(out.ok && out.groupsUnanswered).toEqual(['edge']);
  });
});

describe('selectNodes', () => {
  const all = new Map(
    Array.from({ length: 1000 }, (_, i) => [
      `n${i}`,
      { product: 'stream' as const, listed: decodeWorker(workerEntry(`n${i}`))! },
    ]),
  );

  it('N shards together select every node exactly once', () => {
    for (const total of [1, 2, 3, 7]) {
      const seen = new Map<string, number>();
      for (let index = 0; index < total; index++) {
        const s = selectNodes(all, { index, total }, 0);
        expect(s.otherShards).toBe(all.size - s.nodes.size);
        for (const k of s.nodes.keys()) seen.set(k, (seen.get(k) ?? 0) + 1);
      }
      expect(seen.size).toBe(all.size);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
    }
  });

  it('keeps a node on the shard its hash names', () => {
    const s = selectNodes(all, { index: 1, total: 3 }, 0);
    for (const k of s.nodes.keys()) expect(shardOf(k, 3)).toBe(1);
  });

  it('max-nodes keeps the first nodes by id and counts the excess', () => {
    const s = selectNodes(all, { index: 0, total: 1 }, 10);
    expect(s.nodes.size).toBe(10);
    expect(s.overLimit).toBe(990);
    expect([...s.nodes.keys()]).toEqual(['n0', 'n1', 'n10', 'n100', 'n101', 'n102', 'n103', 'n104', 'n105', 'n106']);
    expect(selectNodes(all, { index: 0, total: 1 }, 0).overLimit).toBe(0);
  });
});
