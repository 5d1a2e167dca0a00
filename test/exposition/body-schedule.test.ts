import { gunzipSync } from 'node:zlib';
// When the body cache builds: driven by the scrapes it is told about (predicted per client), bounded in age,
// never while clean. Builds take no fake time here (the clock moves only in advance()), so a build planned for a
// predicted scrape starts exactly LEAD_MARGIN_MS (250 ms) before it.

import { describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { createBodyCache, MAX_BODY_AGE_MS, type BodyCacheOptions } from '../../src/exposition/body/index.js';
// Builders that render inline stand in for the worker here: what matters is which one is asked, and when.
import { createInlineBuilder, type Builder } from '../../src/exposition/body/builder.js';
import { familySet } from '../../src/exposition/body/families.js';
import { LeaderSnapshot } from '../../src/store/snapshot.js';
import { FakeClock, flushMicrotasks } from '../helpers/fake-clock.js';
import { node } from './fixtures.js';

const intervals = { discoveryMs: 60_000 };
const settingsOf = (): unknown => ({ intervalMs: 30_000, enabled: false });

/** A store with its nodes written as the listing writes them. */
class Store extends LeaderSnapshot {
  setNode(id: string, n: ReturnType<typeof node>): void {
    this.putNode(id, n.ident, 'listing', n.facts.listing);
    for (const [c, f] of Object.entries(n.facts)) if (c !== 'listing') this.setNodeFacts(id, c, f);
  }
}

/** An inline builder in the worker's place. */
const inlineWorker = (reads: readonly (readonly string[])[]): Builder & { worker(): undefined } => ({
  ...createInlineBuilder(familySet(COLLECTORS), reads),
  worker: () => undefined,
});

const count = async (cache: ReturnType<typeof createBodyCache>): Promise<number> => {
  const s = (await cache.rebuild()).serve('text');
  return (
    gunzipSync(Buffer.concat([...s.gzip, s.end]))
      .toString('utf8')
      .match(/^cribl_node_info\{/gm)?.length ?? 0
  );
};
const LEAD = 250;
/** Steps of the fake clock; a build takes up to one step of fake time, and the lead is 1.5 × that + LEAD. */
const STEP = 50;

function setup(options: Partial<BodyCacheOptions> = {}) {
  const clock = new FakeClock(0);
  const snapshot = new Store();
  /** Start time (fake clock) of each build, by generation. */
  const started = new Map<number, number>();
  const builds: number[] = [];
  const cache = createBodyCache({
    sources: [snapshot],
    settingsOf,
    intervals,
    clock,
    onBuild: (s) => {
      started.set(s.generation, clock.now() - s.durationMs);
      builds.push(clock.now() - s.durationMs);
    },
    ...options,
  });
  let round = 0;
  /** A node changes: the body is dirty. */
  const change = (): void => snapshot.setNode('n', node('n', { health: { up: true, lastSuccessMs: ++round } }));
  /** Scrapes answered: client, time, age of the data of the body it got. */
  const served: { client: string; at: number; age: number }[] = [];
  const scrape = async (client: string): Promise<void> => {
    let got: number | undefined;
    void cache.scrape(client).then((b) => (got = b.generation));
    await flushMicrotasks(2);
    // A scrape never waits for a build once a body exists: it got the last body without time moving.
    expect(got, `scrape by ${client} at ${clock.now()} waited`).toBeDefined();
    served.push({ client, at: clock.now(), age: clock.now() - started.get(got!)! });
  };
  /**
   * Runs until `end` in steps of `step` ms; `dirty` makes a change at every step; `scrapes` are [client, times].
   */
  const run = async (end: number, opts: { dirty?: boolean; scrapes?: [string, number[]][]; step?: number }) => {
    const step = opts.step ?? STEP;
    const due = (opts.scrapes ?? []).flatMap(([client, times]) => times.map((t) => ({ client, t })));
    due.sort((a, b) => a.t - b.t);
    while (clock.now() < end) {
      if (opts.dirty ?? true) change();
      while (due[0] && due[0].t <= clock.now()) await scrape(due.shift()!.client);
      await clock.advance(step);
      await cache.whenIdle();
    }
  };
  return { clock, snapshot, cache, builds, served, change, scrape, run };
}

/** Times from `first` every `every` ms until `end` (excluded). */
const every = (first: number, interval: number, end: number): number[] =>
  Array.from({ length: Math.ceil((end - first) / interval) }, (_, i) => first + i * interval);

/** Builds whose start falls in [from, to). */
const between = (builds: number[], from: number, to: number): number[] => builds.filter((t) => t >= from && t < to);

describe('body builds driven by scrapes', () => {
  it('without scrapes: the start-up ramp, then a dirty body once per maxBodyAgeMs, a clean one never', async () => {
    const { builds, run, cache } = setup();
    await cache.current(); // the first body, at 0
    await run(10 * MAX_BODY_AGE_MS, { dirty: true });
    // The start-up ramp (gaps doubling from 1 s within the first bound), then one per bound, not one per second
    // as on every change.
    expect(between(builds, 0, MAX_BODY_AGE_MS)).toEqual([0, 1000, 2000, 4000, 8000, 16_000]);
    const after = builds.filter((t) => t >= 16_000);
    expect(after.length).toBeGreaterThanOrEqual(9);
    expect(after.length).toBeLessThanOrEqual(10);
    for (let i = 1; i < after.length; i++) expect(after[i]! - after[i - 1]!).toBeGreaterThanOrEqual(MAX_BODY_AGE_MS);
    const before = builds.length;
    await run(20 * MAX_BODY_AGE_MS, { dirty: false });
    // One last build takes the final change in; then nothing.
    expect(builds.length - before).toBeLessThanOrEqual(1);
  });

  it('start-up: a first scrape gets data at most half its time since the first build old, not the first', async () => {
    // A restarted exporter: its first body (built at the first change) holds hardly a node. Without the ramp, a
    // scrape within the first 30 s got that body; Prometheus then marked every node series stale for a scrape.
    for (const first of [1500, 3000, 5000, 12_000, 20_000, 29_000]) {
      const { served, run, cache } = setup();
      await cache.current();
      await run(first + 1, { scrapes: [['prom', [first]]] });
      const s = served[0]!;
      expect(s.age, `a first scrape at ${first} ms`).toBeLessThanOrEqual(Math.max(1000, first / 2));
      cache.close();
    }
  });

  it('the start-up ramp ends with the first bound: no more builds than without it after 30 s', async () => {
    const { builds, run, cache } = setup();
    await cache.current();
    await run(2 * MAX_BODY_AGE_MS, { dirty: true });
    // 0, 1, 2, 4, 8, 16 s, then the bound after the last of them.
    expect(builds).toEqual([0, 1000, 2000, 4000, 8000, 16_000, 46_000]);
    cache.close();
  });

  it('refresh() builds a dirty body at once, whatever the plan; nothing when clean or closed', async () => {
    const { builds, run, cache, change, clock } = setup();
    await cache.current();
    await run(2 * MAX_BODY_AGE_MS, { dirty: true }); // past the ramp: builds only at the bound
    const before = builds.length;
    change();
    const at = clock.now();
    cache.refresh();
    await cache.whenIdle();
    expect(builds.slice(before)).toEqual([at]);
    cache.refresh(); // clean now
    await cache.whenIdle();
    expect(builds).toHaveLength(before + 1);
    change();
    cache.close();
    cache.refresh();
    await cache.whenIdle();
    expect(builds).toHaveLength(before + 1);
  });

  it('one Prometheus at 15 s: one build per interval while dirty, landing before the predicted scrape', async () => {
    const { builds, served, run } = setup();
    const scrapes = every(1000, 15_000, 300_000);
    await run(300_000, { scrapes: [['prom', scrapes]] });
    // Warm-up: the first three scrapes teach the interval. From then on, one build per 15 s, 250 ms before
    // each scrape, and each scrape gets the body built for it.
    for (const s of served.filter((x) => x.at >= 61_000)) expect(s.age).toBeGreaterThanOrEqual(LEAD);
    for (const s of served.filter((x) => x.at >= 61_000)) expect(s.age).toBeLessThan(LEAD + 2 * STEP);
    for (let t = 61_000; t < 300_000; t += 15_000) expect(between(builds, t - 15_000, t)).toHaveLength(1);
  });

  it('no build while clean, even when scraped', async () => {
    const { builds, run, change, cache } = setup();
    change();
    await cache.rebuild();
    const before = builds.length;
    await run(300_000, { dirty: false, scrapes: [['prom', every(0, 15_000, 300_000)]] });
    expect(builds.length).toBe(before);
  });

  it('two HA replicas at different phases share one build per interval', async () => {
    const { builds, served, run } = setup();
    await run(300_000, {
      scrapes: [
        ['replica-a', every(1000, 15_000, 300_000)],
        ['replica-b', every(5000, 15_000, 300_000)],
      ],
    });
    // Each build lands just before one replica's scrape; the other gets the same body 4 s (or 11 s) later.
    for (let t = 91_000; t < 300_000; t += 15_000) {
      const ages = served.filter((s) => s.at >= t && s.at < t + 15_000).map((s) => s.age);
      expect(ages).toHaveLength(2);
      expect(Math.min(...ages)).toBeLessThan(LEAD + 2 * STEP);
      expect(Math.max(...ages)).toBeLessThan(11_000 + LEAD + 2 * STEP);
    }
    for (let t = 91_000; t < 300_000; t += 15_000) expect(between(builds, t - 15_000, t)).toHaveLength(1);
  });

  it('a human’s curl between two scrapes costs at most one build and stays unpredicted', async () => {
    const { builds, served, run } = setup();
    await run(300_000, {
      scrapes: [
        ['prom', every(1000, 15_000, 300_000)],
        ['curl', [100_000, 163_000]],
      ],
    });
    // Prometheus still gets one build per interval; each curl adds at most one, and the scrape after it gets a
    // body no older than the curl.
    expect(between(builds, 61_000, 300_000).length).toBeLessThanOrEqual(16 + 2);
    for (const s of served.filter((x) => x.client === 'prom' && x.at >= 61_000)) expect(s.age).toBeLessThan(15_000);
    const curls = served.filter((s) => s.client === 'curl');
    expect(curls).toHaveLength(2);
    // Each curl started a build for the next scrape: one started at its time.
    for (const c of curls) expect(builds).toContain(c.at);
  });

  it('irregular scrapes: never older than the bound, never waiting, one build per scrape or bound', async () => {
    const { builds, served, run } = setup();
    const gaps = [5_000, 41_000, 7_000, 22_000, 63_000, 3_000, 12_000, 90_000, 1_500, 30_000, 17_000];
    const times = gaps.map((_, i) => 1000 + gaps.slice(0, i + 1).reduce((a, b) => a + b, 0));
    await run(times.at(-1)! + 1, { scrapes: [['irregular', times]] });
    for (const s of served) expect(s.age).toBeLessThanOrEqual(MAX_BODY_AGE_MS);
    const span = times.at(-1)!;
    // One per scrape, one per bound, and the start-up ramp's five (1, 2, 4, 8 and 16 s after the first build).
    expect(builds.length).toBeLessThanOrEqual(times.length + Math.ceil(span / MAX_BODY_AGE_MS) + 1 + 5);
  });

  it('a scraper that stops: back to one build per bound', async () => {
    const { builds, run } = setup();
    await run(120_000, { scrapes: [['prom', every(1000, 5000, 120_000)]] });
    expect(between(builds, 60_000, 120_000).length).toBeGreaterThanOrEqual(11); // one per 5 s
    await run(600_000, {});
    // Forgotten after 3 silent intervals: then one per bound.
    expect(between(builds, 150_000, 600_000).length).toBeLessThanOrEqual(450_000 / MAX_BODY_AGE_MS + 1);
  });
});

describe('the body builder chosen by the fleet size (auto)', () => {
  it('switches to the worker at workerMinNodes, back to inline below 80 % of it, every node in each body', async () => {
    const clock = new FakeClock(0);
    const snapshot = new Store();
    const switches: string[] = [];
    const made = { worker: 0, closed: 0 };
    const cache = createBodyCache({
      sources: [snapshot],
      settingsOf,
      intervals,
      clock,
      builder: 'auto',
      workerMinNodes: 10,
      createWorkerBuilder: (reads) => {
        made.worker++;
        const b = inlineWorker(reads);
        return { ...b, close: () => (made.closed++, b.close()) };
      },
      onBuilderSwitch: (to, nodes) => switches.push(`${to}@${nodes}`),
    });
    for (let i = 0; i < 9; i++) snapshot.setNode(`n${i}`, node(`n${i}`));
    expect(await count(cache)).toBe(9);
    expect(switches).toEqual([]);
    snapshot.setNode('n9', node('n9'));
    expect(await count(cache)).toBe(10);
    expect(switches).toEqual(['worker@10']);
    snapshot.deleteNode('n9');
    snapshot.deleteNode('n8');
    expect(await count(cache)).toBe(8); // 8 ≥ 80 % of 10: stays on the worker
    expect(switches).toEqual(['worker@10']);
    snapshot.deleteNode('n7');
    expect(await count(cache)).toBe(7);
    expect(switches).toEqual(['worker@10', 'inline@7']);
    expect(made).toEqual({ worker: 1, closed: 1 });
    for (let i = 7; i < 12; i++) snapshot.setNode(`n${i}`, node(`n${i}`));
    expect(await count(cache)).toBe(12);
    expect(switches).toEqual(['worker@10', 'inline@7', 'worker@12']);
    cache.close();
  });
});

describe('the age bound against the build-share floor', () => {
  it('a build too slow for maxBuildShare within the bound still starts by the bound', async () => {
    const clock = new FakeClock(0);
    const snapshot = new Store();
    const starts: number[] = [];
    // Every build takes 5 s of (fake) time: at a 10 % share the next could start only 45 s after its end.
    const cache = createBodyCache({
      sources: [snapshot],
      settingsOf,
      intervals,
      clock,
      builder: 'worker',
      createWorkerBuilder: (reads) => {
        const b = inlineWorker(reads);
        return {
          ...b,
          build: async (r) => {
            starts.push(clock.now());
            const assembling = b.build(r);
            inner = assembling;
            const body = await assembling;
            await clock.sleep(5000);
            return body;
          },
        };
      },
    });
    let inner: Promise<unknown> | undefined;
    for (let t = 0; t < 200_000; t += 1000) {
      snapshot.setNode('n', node('n', { health: { up: true, lastSuccessMs: t } }));
      await clock.advance(1000);
      // The assembly itself runs on real time (zlib's threads): let it finish before fake time moves on.
      if (inner) await inner;
      inner = undefined;
      await flushMicrotasks();
    }
    expect(starts.length).toBeGreaterThan(5);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBe(MAX_BODY_AGE_MS);
    cache.close();
  });
});
