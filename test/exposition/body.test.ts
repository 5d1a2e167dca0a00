import { NODE_RENDERING, SNAPSHOT_RENDERERS } from '../../src/collectors/index.js';
import { crc32, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createBodyCache, type BuildStats, type SnapshotBody } from '../../src/exposition/body.js';
import { createInlineBuilder, createWorkerBuilder } from '../../src/exposition/builder.js';
import { createLeaderSnapshot } from '../../src/store/snapshot.js';
import { FakeClock, flushMicrotasks } from '../helpers/fake-clock.js';
import { firstGzipMember } from '../helpers/gzip.js';
import { node, worker } from './fixtures.js';

const intervals = { discoveryMs: 60_000, healthMs: 30_000, metadataMs: 300_000 };

function text(body: SnapshotBody): string {
  return Buffer.concat(body.identity ?? []).toString('utf8');
}

/** Metric names of the sample lines, in order. */
function sampleNames(body: string): string[] {
  return body
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(l)?.[0] ?? '');
}

/** Throws unless every family's lines (HELP, TYPE, samples) form one block. */
function expectContiguous(body: string): void {
  const seen = new Set<string>();
  let current = '';
  for (const line of body.split('\n').filter(Boolean)) {
    const name = line.startsWith('#')
      ? (line.split(' ')[2] ?? '')
      : (/^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? '');
    if (name === current) continue;
    expect(seen.has(name), `family ${name} appears in two places`).toBe(false);
    seen.add(name);
    current = name;
  }
}

function setup(
  options: { labels?: Record<string, string>[]; chunkBytes?: number; identityCacheMaxBytes?: number } = {},
) {
  const clock = new FakeClock();
  const snapshots = (options.labels ?? [{}]).map((labels) =>
    createLeaderSnapshot({ labels, render: SNAPSHOT_RENDERERS }),
  );
  const builds: BuildStats[] = [];
  const cache = createBodyCache({
    snapshots,
    intervals,
    clock,
    ...(options.chunkBytes ? { chunkBytes: options.chunkBytes } : {}),
    ...(options.identityCacheMaxBytes !== undefined ? { identityCacheMaxBytes: options.identityCacheMaxBytes } : {}),
    onBuild: (s) => builds.push(s),
  });
  return { clock, snapshots, cache, builds };
}

/** Two snapshots with the same data (one per body cache), written by `fill`. */
function twins(fill: (s: ReturnType<typeof createLeaderSnapshot>) => void) {
  const pair = [
    createLeaderSnapshot({ render: SNAPSHOT_RENDERERS }),
    createLeaderSnapshot({ render: SNAPSHOT_RENDERERS }),
  ];
  pair.forEach(fill);
  return pair as [(typeof pair)[0], (typeof pair)[0]];
}

/** 300 healthy nodes, each with its own last success time. */
const healthyNodes = (s: ReturnType<typeof createLeaderSnapshot>): void => {
  for (let i = 0; i < 300; i++)
    s.setNode(`n${i}`, node(`n${i}`, { health: { up: true, status: 'healthy', lastSuccessMs: i } }));
};

describe('createBodyCache', () => {
  it('builds every family once with all leaders’ series, contiguous, headers before samples', async () => {
    const { snapshots, cache } = setup({ labels: [{ workspace: 'a' }, { workspace: 'b' }] });
    const [a, b] = snapshots;
    a!.setLeader({ up: true, lastDiscoveryMs: 1717200000000 });
    b!.setLeader({ up: false });
    await a!.setGroups([{ product: 'stream', group: { id: 'default', workerCount: 1 } }]);
    a!.setNode('a1', node('a1'));
    b!.setNode('b1', node('b1', { health: { up: false, failure: 'timeout' } }));
    a!.setNode('a2', node('a2', { health: { up: true, status: 'healthy', lastSuccessMs: 1717200000000 } }));
    const body = text(await cache.rebuild());

    expectContiguous(body);
    expect(body).toContain(
      '# HELP cribl_leader_up 1 if the last discovery (node listing) succeeded, else 0. Refreshed by discovery ' +
        'every 1m; cached in between.\n' +
        '# TYPE cribl_leader_up gauge\n' +
        'cribl_leader_up{workspace="a"} 1\n' +
        'cribl_leader_up{workspace="b"} 0\n',
    );
    expect(body).toContain(
      '# TYPE cribl_node_connected gauge\n' +
        'cribl_node_connected{workspace="a",product="stream",group="default",node_id="a1"} 1\n' +
        'cribl_node_connected{workspace="a",product="stream",group="default",node_id="a2"} 1\n' +
        'cribl_node_connected{workspace="b",product="stream",group="default",node_id="b1"} 1\n',
    );
    expect(body).toContain(
      '# HELP cribl_node_health_up 1 if the last health poll of the node got an answer (HTTP 200 or 420), 0 if it ' +
        'failed; ' +
        'absent until the first poll. Polled every 30s through the leader; cached between polls.\n',
    );
    expect(body).toContain(
      'cribl_node_poll_failure_info{workspace="b",product="stream",group="default",node_id="b1",reason="timeout"} 1\n',
    );
    // Families without series have no header either (no disk reported anywhere).
    expect(body).not.toContain('cribl_node_disk_free_bytes');
    expect(body).not.toContain('# EOF');
    expect(body.endsWith('\n')).toBe(true);
  });

  it('has no duplicate series', async () => {
    const { snapshots, cache } = setup();
    for (let i = 0; i < 50; i++) snapshots[0]!.setNode(`n${i}`, node(`n${i}`));
    snapshots[0]!.setNode('n7', node('n7')); // written twice
    const lines = text(await cache.rebuild())
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(new Set(lines).size).toBe(lines.length);
    expect(sampleNames(lines.join('\n')).filter((n) => n === 'cribl_node_info')).toHaveLength(50);
  });

  it('gzip holds exactly the identity bytes, as one gzip member whose trailer has their CRC', async () => {
    const { snapshots, cache } = setup({ chunkBytes: 200 });
    for (let i = 0; i < 20; i++) snapshots[0]!.setNode(`n${i}`, node(`n${i}`));
    const body = await cache.rebuild();
    expect(body.identity?.length).toBeGreaterThan(1); // built in several chunks
    const identity = Buffer.concat(body.identity ?? []);
    expect(identity.length).toBe(body.identityBytes);
    expect(Buffer.concat(body.gzip).length).toBe(body.gzipBytes);
    expect(gunzipSync(Buffer.concat(body.gzip)).equals(identity)).toBe(true);
    expect(firstGzipMember(Buffer.concat(body.gzip))).toEqual({ text: identity.toString('utf8'), bytesAfter: 0 });
    expect(body.crc).toBe(crc32(identity));
    // The member's 10-byte end comes last, alone: a scrape replaces it to append the self-metrics.
    expect(body.gzip.at(-1)?.length).toBe(10);
  });

  it.each([
    ['kept', undefined],
    ['not kept (served by gunzip)', 1000],
  ])('a counter family gets its own header per format, every other byte shared (identity %s)', async (_n, max) => {
    const { snapshots, cache } = setup({
      chunkBytes: 200,
      ...(max === undefined ? {} : { identityCacheMaxBytes: max }),
    });
    // Restarts are counted by the store from start times that change between writes.
    for (let i = 0; i < 20; i++) {
      for (let r = 0; r <= i % 3; r++) {
        const w = worker(`n${i}`);
        w.info.cribl.startTime += r;
        snapshots[0]!.setNode(`n${i}`, node(`n${i}`, { worker: w }));
      }
    }
    const body = await cache.rebuild();
    const [text, om] = (['text', 'openmetrics'] as const).map((f) => {
      const b = body.forFormat(f);
      const unzipped = gunzipSync(Buffer.concat(b.gzip));
      expect(firstGzipMember(Buffer.concat(b.gzip)).bytesAfter).toBe(0);
      expect(unzipped.length).toBe(b.identityBytes);
      expect(Buffer.concat(b.gzip).length).toBe(b.gzipBytes);
      if (max === undefined) expect(Buffer.concat(b.identity ?? []).equals(unzipped)).toBe(true);
      else expect(b.identity).toBeUndefined();
      return unzipped.toString('utf8');
    });
    const help = 'Restarts of the node seen since the exporter started';
    expect(text).toContain(`# HELP cribl_node_restarts_total ${help}`);
    expect(text).toContain('# TYPE cribl_node_restarts_total counter\ncribl_node_restarts_total{');
    expect(om).toContain(`# HELP cribl_node_restarts ${help}`);
    expect(om).toContain('# TYPE cribl_node_restarts counter\ncribl_node_restarts_total{');
    expect(om).toContain('cribl_node_restarts_total{product="stream",group="default",node_id="n2"} 2\n');
    // Nothing else differs: the text body is the OpenMetrics one with the counter's family name spelled out.
    expect(om?.replace(/^(# (?:HELP|TYPE) cribl_node_restarts) /gm, '$1_total ')).toBe(text);
    // The default body (own fields) is the text one.
    expect(gunzipSync(Buffer.concat(body.gzip)).toString('utf8')).toBe(text);
  });

  it('keeps only the gzip of a body larger than identityCacheMaxBytes', async () => {
    const { snapshots, cache } = setup({ chunkBytes: 300, identityCacheMaxBytes: 1000 });
    for (let i = 0; i < 20; i++) snapshots[0]!.setNode(`n${i}`, node(`n${i}`));
    const body = await cache.rebuild();
    expect(body.identity).toBeUndefined();
    const unzipped = gunzipSync(Buffer.concat(body.gzip));
    expect(unzipped.length).toBe(body.identityBytes);
    expect(unzipped.toString('utf8')).toContain('cribl_node_info{product="stream",group="default",node_id="n19"');
  });

  it('reusing chunk buffers (no identity copy) yields the same bytes as keeping them', async () => {
    const clock = new FakeClock();
    const [one, two] = twins(healthyNodes);
    const reusing = createBodyCache({ snapshots: [one], intervals, clock, chunkBytes: 512, identityCacheMaxBytes: 0 });
    const keeping = createBodyCache({ snapshots: [two], intervals, clock, chunkBytes: 512 });
    const [a, b] = [await reusing.rebuild(), await keeping.rebuild()];
    expect(a.identity).toBeUndefined();
    expect(gunzipSync(Buffer.concat(a.gzip)).equals(Buffer.concat(b.identity ?? []))).toBe(true);
    reusing.close();
    keeping.close();
  });

  describe('identity bytes only while someone scrapes uncompressed (keepIdentityMs)', () => {
    function pair(keepIdentityMs: number) {
      const clock = new FakeClock();
      const [one, two] = twins(healthyNodes);
      const opts = { intervals, clock, chunkBytes: 512, minRebuildIntervalMs: 0, maxBuildShare: 1 };
      const lazy = createBodyCache({ snapshots: [one], ...opts, keepIdentityMs });
      const always = createBodyCache({ snapshots: [two], ...opts });
      return { clock, lazy, always, one };
    }

    it('builds gzip only until an identity scrape, then inflates the same bytes for the next ones', async () => {
      const { lazy, always } = pair(60_000);
      try {
        const expected = await always.rebuild();
        const first = await lazy.rebuild();
        expect(first.identity).toBeUndefined();
        expect(first.forFormat('openmetrics').identity).toBeUndefined();
        expect(gunzipSync(Buffer.concat(first.gzip)).equals(Buffer.concat(expected.identity ?? []))).toBe(true);
        // A gzip scrape changes nothing.
        expect((await lazy.scrape('prometheus')).identity).toBeUndefined();
        await lazy.whenIdle();
        expect((await lazy.current()).identity).toBeUndefined();
        // The identity scrape gets the body it found (served by gunzipping); the same body gains its identity bytes.
        expect((await lazy.scrape('curl', true)).identity).toBeUndefined();
        await lazy.whenIdle();
        const inflated = await lazy.current();
        expect(inflated.generation).toBe(first.generation);
        for (const format of ['text', 'openmetrics'] as const) {
          const got = inflated.forFormat(format);
          const want = expected.forFormat(format);
          expect(got.identityBytes).toBe(want.identityBytes);
          expect(Buffer.concat(got.identity ?? []).equals(Buffer.concat(want.identity ?? []))).toBe(true);
          expect(got.gzip).toEqual(first.forFormat(format).gzip);
        }
      } finally {
        lazy.close();
        always.close();
      }
    });

    it('keeps identity in the builds within keepIdentityMs of an identity scrape, not after', async () => {
      const { clock, lazy, always, one } = pair(60_000);
      try {
        await lazy.rebuild();
        await lazy.scrape('curl', true);
        await lazy.whenIdle();
        await clock.advance(59_000);
        one.setNode('n0', node('n0', { health: { up: false, status: 'standby', lastSuccessMs: 1 } }));
        const within = await lazy.rebuild();
        expect(within.identity).toBeDefined();
        expect(text(within)).toContain('node_id="n0"');
        await clock.advance(2_000);
        one.setNode('n1', node('n1', { health: { up: false, status: 'standby', lastSuccessMs: 1 } }));
        const after = await lazy.rebuild();
        expect(after.identity).toBeUndefined();
        expect(after.generation).toBeGreaterThan(within.generation);
      } finally {
        lazy.close();
        always.close();
      }
    });

    it('asks no identity bytes of a build after a body larger than identityCacheMaxBytes', async () => {
      const asked: (boolean | undefined)[] = [];
      const [big, small] = twins(() => undefined);
      for (let i = 0; i < 100; i++) big.setNode(`n${i}`, node(`n${i}`));
      small.setNode('n0', node('n0'));
      const caches = [big, small].map((s) =>
        createBodyCache({
          snapshots: [s],
          intervals,
          clock: new FakeClock(),
          chunkBytes: 300,
          identityCacheMaxBytes: 20_000,
          builder: 'worker',
          // The inline builder, recording what each build is asked to keep.
          createWorkerBuilder: (o) => {
            const inline = createInlineBuilder(o, NODE_RENDERING);
            return { build: (r) => (asked.push(r.keepIdentity), inline.build(r)), close: () => inline.close() };
          },
        }),
      );
      try {
        for (const cache of caches) {
          await cache.rebuild();
          await cache.rebuild();
        }
        // The large body: the first build did not know its size yet, the second does. The small one keeps them.
        expect(asked).toEqual([true, false, true, true]);
      } finally {
        for (const cache of caches) cache.close();
      }
    });

    it('inflates nothing for a body larger than identityCacheMaxBytes', async () => {
      const { snapshots, cache } = setup({ chunkBytes: 300, identityCacheMaxBytes: 1000 });
      for (let i = 0; i < 20; i++) snapshots[0]!.setNode(`n${i}`, node(`n${i}`));
      await cache.rebuild();
      await cache.scrape('curl', true);
      await cache.whenIdle();
      expect((await cache.current()).identity).toBeUndefined();
      cache.close();
    });
  });

  it('is the states of its start, well-formed, while every node is re-written during the build', async () => {
    const { snapshots, cache } = setup({ chunkBytes: 300 });
    const s = snapshots[0]!;
    const poll = (i: number, round: number) =>
      node(`n${i}`, {
        health:
          round % 2
            ? { up: false, failure: 'timeout', lastSuccessMs: 1717200000000 + round }
            : { up: true, status: 'healthy', lastSuccessMs: 1717200000000 + round * 1111 },
      });
    for (let i = 0; i < 40; i++) s.setNode(`n${i}`, poll(i, 0));
    let building = true;
    const build = cache.rebuild().finally(() => (building = false));
    // Keep re-writing every node between the build's yields.
    for (let round = 1; building; round++) {
      for (let i = 0; i < 40; i++) s.setNode(`n${i}`, poll(i, round));
      await new Promise((r) => setImmediate(r));
    }
    const body = text(await build);
    const line = /^(# (HELP|TYPE) \S+ .+|[a-z_]+\{([a-z_]+="[^"\\]*",)*[a-z_]+="[^"\\]*"\} [0-9.]+)$/;
    const bad = body.split('\n').filter((l) => l !== '' && !line.test(l));
    expect(bad).toEqual([]);
    expectContiguous(body);
    const series = body
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.slice(0, l.lastIndexOf(' ')));
    expect(new Set(series).size).toBe(series.length);
    // Round 0 (every node healthy) is what the build started with; later rounds wait for the next build.
    expect(body.match(/^cribl_node_health_up\{.*\} 1$/gm)).toHaveLength(40);
    expect(body).not.toContain('cribl_node_poll_failure_info{');
    for (let i = 0; i < 40; i++) s.setNode(`n${i}`, poll(i, 1));
    expect(text(await cache.rebuild()).match(/^cribl_node_poll_failure_info\{/gm)).toHaveLength(40);
  });

  it('carries a text larger than a chunk intact', async () => {
    const { snapshots, cache } = setup({ chunkBytes: 256 });
    const w = worker('big');
    w.info.hostname = 'h'.repeat(5000);
    snapshots[0]!.setNode('small', node('small'));
    snapshots[0]!.setNode('big', node('big', { worker: w }));
    const body = await cache.rebuild();
    const all = text(body);
    expect(all).toContain(`hostname="${'h'.repeat(5000)}"`);
    expect(gunzipSync(Buffer.concat(body.gzip)).toString('utf8')).toBe(all);
    expectContiguous(all);
  });

  it('concurrent requests share one build', async () => {
    const { snapshots, cache, builds } = setup({ chunkBytes: 100 });
    for (let i = 0; i < 10; i++) snapshots[0]!.setNode(`n${i}`, node(`n${i}`));
    const [x, y, z] = await Promise.all([cache.current(), cache.current(), cache.rebuild()]);
    expect(builds).toHaveLength(1);
    expect(x).toBe(y);
    expect(y).toBe(z);
  });

  it('serves the previous complete body while a rebuild runs', async () => {
    const { snapshots, cache } = setup({ chunkBytes: 50 });
    for (let i = 0; i < 30; i++) snapshots[0]!.setNode(`n${i}`, node(`n${i}`));
    const first = await cache.rebuild();
    snapshots[0]!.setNode('n0', node('n0', { worker: worker('n0', { workerProcesses: 9 }) }));
    const rebuilding = cache.rebuild();
    let settled = false;
    void rebuilding.then(() => (settled = true));
    await flushMicrotasks(2);
    expect(settled).toBe(false); // still building (it yields between chunks)
    const during = await cache.current();
    expect(during).toBe(first);
    expect(during.identityBytes).toBeGreaterThan(0);
    const second = await rebuilding;
    expect(await cache.current()).toBe(second);
    expect(text(second)).toContain('cribl_node_worker_processes{product="stream",group="default",node_id="n0"} 9\n');
    expect(second.generation).toBeGreaterThan(first.generation);
  });

  it('rebuild() called during a build returns a body with every change made before the call', async () => {
    const { snapshots, cache, builds } = setup({ chunkBytes: 50 });
    for (let i = 0; i < 30; i++) snapshots[0]!.setNode(`n${i}`, node(`n${i}`));
    const first = cache.rebuild();
    await flushMicrotasks(2);
    snapshots[0]!.setNode('late', node('late'));
    const second = cache.rebuild();
    expect(text(await first)).not.toContain('node_id="late"'); // it took its texts before the change
    expect(text(await second)).toContain('node_id="late"');
    expect(builds).toHaveLength(2);
  });

  it('rebuild({ fresh: true }) renders every run anew, even with a build in flight and nothing changed', async () => {
    const { snapshots, cache, builds } = setup({ chunkBytes: 50 });
    for (let i = 0; i < 30; i++) snapshots[0]!.setNode(`n${i}`, node(`n${i}`));
    const first = text(await cache.rebuild());
    const again = await cache.rebuild();
    expect(builds.at(-1)).toMatchObject({ reusedRuns: builds.at(-1)!.runs });
    expect(builds.at(-1)!.runs).toBeGreaterThan(0);
    const full = await cache.rebuild({ fresh: true });
    expect(builds.at(-1)).toMatchObject({ runs: builds.at(-2)!.runs, reusedRuns: 0 });
    expect(text(full)).toBe(first);
    expect(full).not.toBe(again);
    // Asked during a build in flight (nothing changed since it started): a fresh build follows it.
    const inFlight = cache.rebuild();
    await flushMicrotasks(2);
    const followed = cache.rebuild({ fresh: true });
    expect(await followed).not.toBe(await inFlight);
    expect(builds.slice(-2).map((b) => b.reusedRuns)).toEqual([builds.at(-1)!.runs, 0]);
  });

  it('stops after close', async () => {
    const { snapshots, cache, builds, clock } = setup();
    await cache.current();
    cache.close();
    snapshots[0]!.setNode('a', node('a'));
    await clock.advance(5000);
    await cache.whenIdle();
    expect(builds).toHaveLength(1);
  });

  it('an empty snapshot is an empty body', async () => {
    const { cache } = setup();
    const body = await cache.current();
    expect(body.identityBytes).toBe(0);
    expect(gunzipSync(Buffer.concat(body.gzip)).length).toBe(0);
  });

  it('setSnapshots replaces the leaders: the next body has exactly the new set', async () => {
    const { snapshots, cache } = setup({ labels: [{ workspace: 'a' }] });
    snapshots[0]!.setNode('a1', node('a1'));
    expect(text(await cache.current())).toContain('workspace="a"');
    const b = createLeaderSnapshot({ labels: { workspace: 'b' }, render: SNAPSHOT_RENDERERS });
    b.setNode('b1', node('b1'));
    cache.setSnapshots([b]);
    const body = text(await cache.rebuild());
    expect(body).not.toContain('workspace="a"');
    expect(body).toContain('node_id="b1"');
    // The old leader's changes no longer trigger builds; the new one's do.
    const before = (await cache.current()).generation;
    snapshots[0]!.setNode('a2', node('a2'));
    expect((await cache.rebuild()).generation).toBe(before);
    expect(() =>
      cache.setSnapshots([b, createLeaderSnapshot({ labels: { workspace: 'b' }, render: SNAPSHOT_RENDERERS })]),
    ).toThrow('same target labels');
  });

  it('refuses two leaders with the same target labels', () => {
    const clock = new FakeClock();
    const snapshots = [
      createLeaderSnapshot({ labels: { workspace: 'x' }, render: SNAPSHOT_RENDERERS }),
      createLeaderSnapshot({ labels: { workspace: 'x' }, render: SNAPSHOT_RENDERERS }),
    ];
    expect(() => createBodyCache({ snapshots, intervals, clock })).toThrow('two leaders have the same target labels');
  });
});

describe('createBodyCache with the worker builder', () => {
  it('builds the same body as inline, and recovers every node when the worker dies', async () => {
    const clock = new FakeClock();
    const [viaWorker, viaInline] = twins((s) => {
      s.setLeader({ up: true, lastDiscoveryMs: 1717200000000 });
      for (let i = 0; i < 200; i++)
        s.setNode(
          `n${i}`,
          node(`n${i}`, { health: { up: true, status: 'healthy', lastSuccessMs: 1717200000000 + i } }),
        );
    });
    // The worker is sent the store's columns (NodeView.pack), not cloned state objects.
    let packs = 0;
    const nodeView = viaWorker.nodeView.bind(viaWorker);
    viaWorker.nodeView = () => {
      const v = nodeView();
      const pack = v.pack.bind(v);
      return Object.assign(v, { pack: (a: number, b: number) => (packs++, pack(a, b)) });
    };
    let builder: ReturnType<typeof createWorkerBuilder> | undefined;
    const lost: string[] = [];
    const worker = createBodyCache({
      snapshots: [viaWorker],
      intervals,
      clock,
      builder: 'worker',
      createWorkerBuilder: (o, hooks) => (builder = createWorkerBuilder(o, hooks)),
      onBuilderLost: (e) => lost.push(e.message),
    });
    const inline = createBodyCache({ snapshots: [viaInline], intervals, clock });
    try {
      const expected = text(await inline.rebuild());
      expect(text(await worker.rebuild())).toBe(expected);
      expect(packs).toBe(1); // 200 nodes: one message

      await builder!.worker()!.terminate();
      expect(lost).toHaveLength(1);
      // The new worker got every node's text again: the next body is complete.
      expect(text(await worker.rebuild())).toBe(expected);
    } finally {
      worker.close();
      inline.close();
    }
  });
});

describe('createBodyCache with the worker builder, gzip only', () => {
  it('tells the worker not to keep identity bytes, and inflates them after an identity scrape', async () => {
    const clock = new FakeClock();
    const [viaWorker, viaInline] = twins((s) => {
      for (let i = 0; i < 200; i++) s.setNode(`n${i}`, node(`n${i}`));
    });
    const worker = createBodyCache({
      snapshots: [viaWorker],
      intervals,
      clock,
      builder: 'worker',
      keepIdentityMs: 60_000,
      chunkBytes: 1024,
    });
    const inline = createBodyCache({ snapshots: [viaInline], intervals, clock });
    try {
      const expected = text(await inline.rebuild());
      const body = await worker.rebuild();
      expect(body.identity).toBeUndefined();
      expect(gunzipSync(Buffer.concat(body.gzip)).toString('utf8')).toBe(expected);
      await worker.scrape('curl', true);
      await worker.whenIdle();
      expect(text(await worker.current())).toBe(expected);
    } finally {
      worker.close();
      inline.close();
    }
  });
});

describe('createBodyCache when the worker cannot work', () => {
  it('gives up on the worker after 3 losses in a row and assembles on the main thread, with every node', async () => {
    const clock = new FakeClock();
    const snapshot = createLeaderSnapshot({ render: SNAPSHOT_RENDERERS });
    for (let i = 0; i < 20; i++) snapshot.setNode(`n${i}`, node(`n${i}`));
    const errors: string[] = [];
    let losses = 0;
    const cache = createBodyCache({
      snapshots: [snapshot],
      intervals,
      clock,
      builder: 'worker',
      // A worker that dies at once, every time (e.g. its file is missing).
      createWorkerBuilder: (_o, hooks) => ({
        apply: () => undefined,
        drop: () => undefined,
        build: () => {
          hooks.onLost(new Error('cannot start'));
          return Promise.reject(new Error('cannot start'));
        },
        close: () => Promise.resolve(),
      }),
      onBuilderLost: () => losses++,
      onError: (e) => errors.push(String(e)),
    });
    try {
      for (let i = 0; i < 3; i++) await expect(cache.rebuild()).rejects.toThrow('cannot start');
      expect(losses).toBe(3);
      expect(errors.at(-1)).toContain('assembling /metrics on the main thread from now on');
      const body = text(await cache.rebuild());
      expect(body.match(/^cribl_node_info\{/gm)).toHaveLength(20);
    } finally {
      cache.close();
    }
  });
});
