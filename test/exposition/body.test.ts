import { crc32, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Collector } from '../../src/collectors/collector.js';
import {
  createBodyCache,
  type BodyCacheOptions,
  type BuildStats,
  type SnapshotBody,
} from '../../src/exposition/body/index.js';
// The worker builder is the engine's own; this test reaches in to stop its thread.
import { createWorkerBuilder } from '../../src/exposition/body/worker-builder.js';
import type { Format } from '../../src/format/format.js';
import { LeaderSnapshot } from '../../src/store/snapshot.js';
import { FakeClock, flushMicrotasks } from '../helpers/fake-clock.js';
import { firstGzipMember } from '../helpers/gzip.js';
import { node, worker, type NodeParts } from './fixtures.js';

/** The settings of every collector as parsed from no flags at all. */
const DEFAULTS: Record<string, unknown> = {
  node_health: { intervalMs: 30_000 },
  node_metadata: { intervalMs: 600_000 },
  git_settings: { enabled: true },
  packs: { enabled: false, intervalMs: 600_000 },
  search: { intervalMs: 0, query: 'q', timeoutMs: 30_000 },
};

function options(o: Partial<BodyCacheOptions> & Pick<BodyCacheOptions, 'sources'>): BodyCacheOptions {
  return {
    settingsOf: (c: Collector) => DEFAULTS[c.name] ?? {},
    intervals: { discoveryMs: 60_000 },
    clock: new FakeClock(),
    ...o,
  };
}

/** The body's text in a format (gunzipped, as a client reads it), for the collectors selected. */
function text(body: SnapshotBody, format: Format = 'text', selection?: ReadonlySet<string>): string {
  const s = body.serve(format, selection);
  return gunzipSync(Buffer.concat([...s.gzip, s.end])).toString('utf8');
}

/** Throws unless every family's lines (HELP, TYPE, samples) form one block. */
function expectContiguous(body: string): void {
  const seen = new Set<string>();
  let current = '';
  for (const line of body.split('\n').filter(Boolean)) {
    const name = line.startsWith('#')
      ? (line.split(' ')[2] ?? '')
      : (/^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? '');
    const family = name.replace(/_total$/, '');
    if (family === current) continue;
    expect(seen.has(family), `family ${family} appears in two places`).toBe(false);
    seen.add(family);
    current = family;
  }
}

/** A store holding `count` listed and polled nodes (`parts` of each by index), with its groups. */
function store(count: number, parts: (i: number) => NodeParts = () => ({}), labels: Record<string, string> = {}) {
  const s = new LeaderSnapshot(labels);
  s.setGroups('groups', [{ product: 'stream', id: 'default', facts: { id: 'default', configVersion: 'abc1234' } }]);
  for (let i = 0; i < count; i++) put(s, `n${i}`, parts(i));
  s.setLeaderFacts('listing', { up: true, lastDiscoveryMs: 1717200000000 });
  return s;
}

/** Writes a node as a discovery and its polls would. */
function put(s: LeaderSnapshot, id: string, parts: NodeParts = {}): void {
  const n = node(id, parts);
  s.putNode(id, n.ident, 'listing', n.facts.listing);
  for (const [c, f] of Object.entries(n.facts)) if (c !== 'listing') s.setNodeFacts(id, c, f);
}

const healthy = (ms: number): NodeParts => ({ health: { up: true, status: 'healthy', lastSuccessMs: ms } });

describe('createBodyCache', () => {
  it('builds each family once with all leaders’ series, contiguous, HELP and TYPE first, in both formats', async () => {
    const a = store(3, (i) => healthy(1717200000000 + i), { workspace: 'a' });
    const b = store(2, () => ({}), { workspace: 'b' });
    const cache = createBodyCache(options({ sources: [a, b] }));
    const body = await cache.rebuild();
    for (const format of ['text', 'openmetrics'] as const) {
      const t = text(body, format);
      expectContiguous(t);
      expect(t.match(/^cribl_node_info\{workspace="a"/gm)).toHaveLength(3);
      expect(t.match(/^cribl_node_info\{workspace="b"/gm)).toHaveLength(2);
      expect(t.indexOf('# TYPE cribl_node_info gauge')).toBeLessThan(t.indexOf('cribl_node_info{'));
      const series = t.split('\n').filter((l) => l && !l.startsWith('#'));
      expect(new Set(series.map((l) => l.slice(0, l.lastIndexOf(' ')))).size).toBe(series.length);
    }
    // A counter's family is named without _total in OpenMetrics, with it in text 0.0.4; its samples are the same.
    expect(text(body, 'text')).toContain('# TYPE cribl_node_restarts_total counter\n');
    expect(text(body, 'openmetrics')).toContain('# TYPE cribl_node_restarts counter\n');
    expect(text(body, 'openmetrics')).toContain('cribl_node_restarts_total{workspace="a"');
    cache.close();
  });

  it('is one gzip member; a scrape continues it with its own text, and its trailer has the CRC of all', async () => {
    const cache = createBodyCache(options({ sources: [store(50, (i) => healthy(i))] }));
    const served = (await cache.rebuild()).serve('text');
    const plain = gunzipSync(Buffer.concat([...served.gzip, served.end]));
    expect(served.length).toBe(plain.length);
    expect(served.crc).toBe(crc32(plain));
    const self = Buffer.from('cribl_exporter_build_info 1\n');
    const whole = Buffer.concat([...served.gzip, await served.tail(self)]);
    // A reader that stops after the first member (curl --compressed) gets everything.
    const first = firstGzipMember(whole);
    expect(first.bytesAfter).toBe(0);
    expect(first.text).toBe(plain.toString('utf8') + self.toString('utf8'));
    cache.close();
  });

  it('serves only the collectors selected (and a valid member for them), every family by default', async () => {
    const s = store(5, (i) => healthy(i));
    const cache = createBodyCache(options({ sources: [s] }));
    const body = await cache.rebuild();
    const only = text(body, 'text', new Set(['node_health']));
    expect(only).toContain('cribl_node_health_up{');
    expect(only).not.toContain('cribl_node_info{');
    expect(only).not.toContain('cribl_leader_up');
    const all = text(body);
    expect(all).toContain('cribl_node_info{');
    expect(all).toContain('cribl_node_health_up{');
    expect(text(body, 'text', new Set())).toBe('');
    cache.close();
  });

  it('renders again every family whose facts changed, the group’s and the metadata’s included', async () => {
    const s = store(20, (i) => healthy(1717200000000 + i));
    const cache = createBodyCache(options({ sources: [s] }));
    const first = text(await cache.rebuild());
    expect(first).toContain('cribl_node_config_outdated{product="stream",group="default",node_id="n3"} 0\n');
    // Health of one node.
    s.setNodeFacts('n3', 'node_health', { up: false, failure: 'timeout', lastSuccessMs: 1717200000003 });
    let t = text(await cache.rebuild());
    expect(t).toContain('cribl_node_health_up{product="stream",group="default",node_id="n3"} 0\n');
    expect(t).toContain('cribl_node_poll_failure_info{product="stream",group="default",node_id="n3",reason="timeout"}');
    // A deploy: the group's facts, read by every node's config_outdated.
    s.setGroups('groups', [{ product: 'stream', id: 'default', facts: { id: 'default', configVersion: 'fff0000' } }]);
    t = text(await cache.rebuild());
    expect(t.match(/^cribl_node_config_outdated\{.*\} 1$/gm)).toHaveLength(20);
    // Metadata, read by the listing's config families.
    s.setNodeFacts('n5', 'node_metadata', {
      value: { timestamp: 1, cribl: { config_version: 'fff0000' } },
      lastSuccessMs: 1,
    });
    const w = worker('n5');
    delete w.info.cribl.config.version;
    put(s, 'n5', { worker: w, metadata: { value: { timestamp: 1, cribl: { config_version: 'fff0000' } } } });
    t = text(await cache.rebuild());
    expect(t).toContain(
      'cribl_node_config_info{product="stream",group="default",node_id="n5",config_version="fff0000"} 1',
    );
    expect(t).toContain('cribl_node_config_outdated{product="stream",group="default",node_id="n5"} 0\n');
    // A node gone, and one new.
    s.deleteNode('n0');
    put(s, 'new', healthy(1));
    t = text(await cache.rebuild());
    expect(t).not.toContain('node_id="n0"');
    expect(t.match(/node_id="new"/g)?.length).toBeGreaterThan(10);
    // Nothing changed: the same text.
    expect(text(await cache.rebuild({ fresh: true }))).toBe(t);
    cache.close();
  });

  it('renders a family again when a field it reads on one path only changes (a down node’s reason)', async () => {
    const s = store(5, (i) => healthy(1717200000000 + i));
    const cache = createBodyCache(options({ sources: [s] }));
    await cache.rebuild();
    const failure = (t: string): string | undefined => /node_id="n3",reason="([a-z_]+)"\} 1/.exec(t)?.[1];
    s.setNodeFacts('n3', 'node_health', { up: false, failure: 'timeout', lastSuccessMs: 1717200000003 });
    expect(failure(text(await cache.rebuild()))).toBe('timeout');
    // Still down: only the reason changed, a field read only while the node is down.
    s.setNodeFacts('n3', 'node_health', { up: false, failure: 'connect', lastSuccessMs: 1717200000003 });
    expect(failure(text(await cache.rebuild()))).toBe('connect');
    // A field no family reads changes: the body is the same text.
    const before = text(await cache.rebuild());
    s.setNodeFacts('n3', 'node_health', { up: false, failure: 'connect', lastSuccessMs: 1717200000003, startTime: 9 });
    expect(text(await cache.rebuild())).toBe(before);
    cache.close();
  });

  for (const builder of ['inline', 'worker'] as const) {
    it(`builds (${builder}) what a full render of the same items gives, through random changes`, async () => {
      let seed = 7;
      const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
      const s = store(300, (i) => healthy(1717200000000 + i));
      const cache = createBodyCache(options({ sources: [s], builder }));
      const fresh = createBodyCache(options({ sources: [s] }));
      const changes: (() => void)[] = [
        () =>
          s.setNodeFacts(`n${random(300)}`, 'node_health', { up: false, failure: random(2) ? 'timeout' : 'connect' }),
        () => s.setNodeFacts(`n${random(300)}`, 'node_health', healthy(random(1000)).health),
        () => s.setNodeFacts(`n${random(300)}`, 'node_health', { up: true, status: 'standby', lastSuccessMs: 5 }),
        () =>
          put(s, `n${random(300)}`, { worker: worker('x', { lastMsgTime: random(1e6) }), health: healthy(1).health }),
        () => {
          const id = `n${random(300)}`;
          const w = worker(id, { disconnected: random(2) === 0, status: random(2) ? 'healthy' : 'unhealthy' });
          if (random(2)) delete w.info.cribl.config.version;
          put(s, id, {
            worker: w,
            metadata: { value: { timestamp: 1, cribl: { config_version: random(2) ? 'abc1234' : 'fff0000' } } },
          });
        },
        () =>
          s.setGroups('groups', [
            { product: 'stream', id: 'default', facts: { configVersion: random(2) ? 'abc1234' : 'fff0000' } },
          ]),
        () => s.deleteNode(`n${random(300)}`),
      ];
      try {
        for (let step = 0; step < 40; step++) {
          for (let k = random(4); k >= 0; k--) changes[random(changes.length)]!();
          expect(text(await cache.rebuild()), `step ${step}`).toBe(text(await fresh.rebuild({ fresh: true })));
        }
      } finally {
        cache.close();
        fresh.close();
      }
    });
  }

  it('is the items of its start, well-formed, while every node is written during the build', async () => {
    const s = store(40, () => healthy(1717200000000));
    const cache = createBodyCache(options({ sources: [s] }));
    const poll = (round: number) =>
      round % 2
        ? { up: false, failure: 'timeout', lastSuccessMs: 1717200000000 + round }
        : { up: true, status: 'healthy', lastSuccessMs: 1717200000000 + round * 1111 };
    let building = true;
    const build = cache.rebuild().finally(() => (building = false));
    for (let round = 1; building; round++) {
      for (let i = 0; i < 40; i++) s.setNodeFacts(`n${i}`, 'node_health', poll(round));
      await new Promise((r) => setImmediate(r));
    }
    const body = text(await build);
    expectContiguous(body);
    expect(body.match(/^cribl_node_health_up\{.*\} 1$/gm)).toHaveLength(40);
    expect(body).not.toContain('cribl_node_poll_failure_info{');
    for (let i = 0; i < 40; i++) s.setNodeFacts(`n${i}`, 'node_health', poll(1));
    expect(text(await cache.rebuild()).match(/^cribl_node_poll_failure_info\{/gm)).toHaveLength(40);
    cache.close();
  });

  it('carries a label value larger than a piece intact', async () => {
    const w = worker('big');
    w.info.hostname = 'h'.repeat(300_000);
    const s = store(1);
    put(s, 'big', { worker: w });
    const cache = createBodyCache(options({ sources: [s] }));
    const t = text(await cache.rebuild());
    expect(t).toContain(`hostname="${'h'.repeat(300_000)}"`);
    expectContiguous(t);
    cache.close();
  });

  it('carries multibyte label values intact across pieces, one larger than a piece too', async () => {
    const name = (i: number): string => `nœud-日本-😀-${i}-${'é'.repeat(100)}`;
    const s = store(0);
    for (let i = 0; i < 2000; i++) {
      const w = worker(`m${i}`);
      w.info.hostname = name(i);
      put(s, `m${i}`, { worker: w });
    }
    const big = worker('big');
    big.info.hostname = '日'.repeat(100_000);
    put(s, 'big', { worker: big });
    const cache = createBodyCache(options({ sources: [s] }));
    const t = text(await cache.rebuild());
    expect(t).not.toContain('\uFFFD');
    for (let i = 0; i < 2000; i++) expect(t).toContain(`hostname="${name(i)}"`);
    expect(t).toContain(`hostname="${'日'.repeat(100_000)}"`);
    expectContiguous(t);
    cache.close();
  });

  it('concurrent requests share one build', async () => {
    const builds: BuildStats[] = [];
    const cache = createBodyCache(options({ sources: [store(10)], onBuild: (b) => builds.push(b) }));
    const [x, y, z] = await Promise.all([cache.current(), cache.current(), cache.rebuild()]);
    expect(builds).toHaveLength(1);
    expect(x).toBe(y);
    expect(y).toBe(z);
    expect(builds[0]?.bytes).toBe(x.serve('text').length);
    cache.close();
  });

  it('serves the previous complete body while a rebuild runs', async () => {
    const s = store(3000);
    const cache = createBodyCache(options({ sources: [s] }));
    const first = await cache.rebuild();
    put(s, 'n0', { worker: worker('n0', { workerProcesses: 9 }) });
    const rebuilding = cache.rebuild();
    let settled = false;
    void rebuilding.then(() => (settled = true));
    await flushMicrotasks(2);
    expect(settled).toBe(false);
    expect(await cache.current()).toBe(first);
    const second = await rebuilding;
    expect(await cache.current()).toBe(second);
    expect(text(second)).toContain('cribl_node_worker_processes{product="stream",group="default",node_id="n0"} 9\n');
    expect(second.generation).toBeGreaterThan(first.generation);
    cache.close();
  });

  it('rebuild() called during a build returns a body with every change made before the call', async () => {
    const s = store(3000);
    const cache = createBodyCache(options({ sources: [s] }));
    const first = cache.rebuild();
    await flushMicrotasks(2);
    put(s, 'late');
    const second = cache.rebuild();
    expect(text(await first)).not.toContain('node_id="late"');
    expect(text(await second)).toContain('node_id="late"');
    cache.close();
  });

  it('rebuild({ fresh: true }) builds anew even with a build in flight and nothing changed', async () => {
    const builds: BuildStats[] = [];
    const cache = createBodyCache(options({ sources: [store(3000)], onBuild: (b) => builds.push(b) }));
    const first = await cache.rebuild();
    const inFlight = cache.rebuild({ fresh: true });
    await flushMicrotasks(2);
    const followed = cache.rebuild({ fresh: true });
    expect(await followed).not.toBe(await inFlight);
    expect(text(await followed)).toBe(text(first));
    expect(builds).toHaveLength(3);
    expect(await followed).not.toBe(first);
    cache.close();
  });

  it('stops after close', async () => {
    const builds: BuildStats[] = [];
    const clock = new FakeClock();
    const s = store(1);
    const cache = createBodyCache(options({ sources: [s], clock, onBuild: (b) => builds.push(b) }));
    await cache.current();
    cache.close();
    put(s, 'a');
    await clock.advance(60_000);
    await cache.whenIdle();
    expect(builds).toHaveLength(1);
  });

  it('an empty store (a leader never discovered) has only cribl_leader_up 0', async () => {
    const cache = createBodyCache(options({ sources: [new LeaderSnapshot()] }));
    const samples = text(await cache.current())
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'));
    expect(samples).toEqual(['cribl_leader_up 0']);
    cache.close();
  });

  it('setSources replaces the leaders (the next body has them alone); two with one label set are refused', async () => {
    const a = store(1, () => ({}), { workspace: 'a' });
    const cache = createBodyCache(options({ sources: [a] }));
    expect(text(await cache.current())).toContain('workspace="a"');
    const b = store(1, () => ({}), { workspace: 'b' });
    cache.setSources([b]);
    const body = text(await cache.rebuild());
    expect(body).not.toContain('workspace="a"');
    expect(body).toContain('workspace="b"');
    // The old leader's changes no longer make builds.
    const before = (await cache.current()).generation;
    put(a, 'a2');
    expect((await cache.rebuild()).generation).toBe(before);
    expect(() => cache.setSources([b, new LeaderSnapshot({ workspace: 'b' })])).toThrow('same target labels');
    cache.close();
    expect(() => createBodyCache(options({ sources: [b, new LeaderSnapshot({ workspace: 'b' })] }))).toThrow(
      'two leaders have the same target labels',
    );
  });
});

describe('createBodyCache with the worker builder', () => {
  it('builds the same bodies as inline through changes, and recovers every node when the worker dies', async () => {
    const fill = (): LeaderSnapshot => store(2500, (i) => healthy(1717200000000 + i));
    const [viaWorker, viaInline] = [fill(), fill()];
    const lost: string[] = [];
    let terminate: (() => Promise<number>) | undefined;
    const worker = createBodyCache(
      options({
        sources: [viaWorker],
        builder: 'worker',
        createWorkerBuilder: (reads, onLost) => {
          const b = createWorkerBuilder(reads, onLost);
          terminate = () => b.worker()!.terminate();
          return b;
        },
        onBuilderLost: (e) => lost.push(e.message),
      }),
    );
    const inline = createBodyCache(options({ sources: [viaInline] }));
    try {
      expect(text(await worker.rebuild())).toBe(text(await inline.rebuild()));
      for (const s of [viaWorker, viaInline]) {
        for (let i = 0; i < 2500; i += 7) s.setNodeFacts(`n${i}`, 'node_health', { up: false, failure: 'connect' });
        put(s, 'extra', healthy(5));
      }
      const expected = text(await inline.rebuild());
      expect(text(await worker.rebuild())).toBe(expected);
      await terminate!();
      expect(lost).toHaveLength(1);
      // The new worker kept nothing: the next body is complete all the same.
      expect(text(await worker.rebuild({ fresh: false }))).toBe(expected);
    } finally {
      worker.close();
      inline.close();
    }
  });

  it('gives up on the worker after 3 losses in a row and renders on the main thread, with every node', async () => {
    const errors: string[] = [];
    let losses = 0;
    const cache = createBodyCache(
      options({
        sources: [store(20)],
        builder: 'worker',
        // A worker that dies at once, every time (e.g. its file is missing).
        createWorkerBuilder: (_reads, onLost) => ({
          worker: () => undefined,
          build: () => {
            onLost(new Error('cannot start'));
            return Promise.reject(new Error('cannot start'));
          },
          close: () => Promise.resolve(),
        }),
        onBuilderLost: () => losses++,
        onError: (e) => errors.push(String(e)),
      }),
    );
    try {
      for (let i = 0; i < 3; i++) await expect(cache.rebuild()).rejects.toThrow('cannot start');
      expect(losses).toBe(3);
      expect(errors.at(-1)).toContain('on the main thread from now on');
      expect(text(await cache.rebuild()).match(/^cribl_node_info\{/gm)).toHaveLength(20);
    } finally {
      cache.close();
    }
  });
});
