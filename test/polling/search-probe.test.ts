import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { search, searchFacts } from '../../src/collectors/search/index.js';
import type { LeaderRequest } from '../../src/leader/types.js';
import { CollectorRuns } from '../../src/polling/collector-runs.js';
import { serialRunner } from '../../src/polling/scheduler.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeLeaderClient, type FakeAnswer } from '../helpers/fake-leader-client.js';
import { MemorySnapshot } from '../helpers/memory-snapshot.js';

const job = (status: string) => ({ status: 200, json: { count: 1, items: [{ id: '1.abcdef', status, query: 'q' }] } });

function setup(answer: (req: LeaderRequest<unknown>, n: number) => FakeAnswer) {
  const clock = new FakeClock();
  let n = 0;
  const client = fakeLeaderClient((req) => answer(req, n++));
  const snapshot = new MemorySnapshot();
  const runs = new CollectorRuns({
    client,
    store: snapshot,
    clock,
    logger: pino({ level: 'silent' }),
    settingsOf: () => ({ intervalMs: 60_000, query: 'cribl dataset="x" | limit 1', timeoutMs: 10_000 }),
    target: { cloud: false },
  });
  const probe = { run: (signal: AbortSignal) => runs.run(search, clock.now() + 60_000, signal).then(() => undefined) };
  return { clock, client, snapshot, probe, runs };
}

async function runWithTime(clock: FakeClock, run: Promise<void>): Promise<void> {
  let done = false;
  void run.finally(() => (done = true));
  while (!done) await clock.advance(100);
  await run;
}

describe('SearchProbe', () => {
  it('creates one job with a JSON body, follows it until it completes, and records the outcome', async () => {
    const { clock, client, snapshot, probe } = setup((req, n) =>
      req.method === 'POST' ? job('new') : job(n < 3 ? 'running' : 'completed'),
    );
    await runWithTime(clock, probe.run(new AbortController().signal));
    const [create, ...polls] = client.calls;
    expect(create).toMatchObject({ method: 'POST', path: '/m/default_search/search/jobs' });
    expect(create?.body?.contentType).toBe('application/json');
    expect(JSON.parse(create!.body!.payload)).toEqual({
      query: 'cribl dataset="x" | limit 1',
      earliest: '-1h',
      latest: 'now',
      sampleRate: 1,
    });
    expect(polls.map((p) => `${p.method ?? 'GET'} ${p.path}`)).toEqual(
      Array(3).fill('GET /m/default_search/search/jobs/1.abcdef'),
    );
    expect(searchFacts.of(snapshot.leader())).toMatchObject({ success: true, lastSuccessMs: clock.now() });
  });

  it('never runs two jobs at once: a tick of its schedule while one is in progress waits for it', async () => {
    const { clock, client, probe } = setup((req) => (req.method === 'POST' ? job('new') : job('running')));
    // The interval runner's schedule (src/polling/scheduler.ts) starts the collector's runs.
    const runner = serialRunner(probe.run, () => undefined);
    runner.tick();
    runner.tick();
    await clock.advance(100);
    expect(client.calls.filter((c) => c.method === 'POST')).toHaveLength(1);
    await runWithTime(clock, runner.idle());
    const posts = client.calls.flatMap((c, i) => (c.method === 'POST' ? [i] : []));
    // The second job was created only after the first was canceled.
    const firstCancel = client.calls.findIndex((c) => c.method === 'PATCH');
    expect(posts).toHaveLength(2);
    expect(posts[1]).toBeGreaterThan(firstCancel);
  });

  it('cancels a job that outlives the timeout (PATCH status canceled) and reports timeout', async () => {
    const { clock, client, snapshot, probe } = setup((req) =>
      req.method === 'POST' ? job('new') : req.method === 'PATCH' ? job('canceled') : job('running'),
    );
    await runWithTime(clock, probe.run(new AbortController().signal));
    const cancel = client.calls.at(-1)!;
    expect(cancel).toMatchObject({ method: 'PATCH', path: '/m/default_search/search/jobs/1.abcdef' });
    expect(JSON.parse(cancel.body!.payload)).toEqual({ status: 'canceled' });
    expect(searchFacts.of(snapshot.leader())).toMatchObject({ success: false, failure: 'timeout' });
    expect(searchFacts.of(snapshot.leader())?.durationMs).toBeLessThanOrEqual(10_000);
  });

  it('a create refused for credentials turns the probe off for the leader: no probe result, said once', async () => {
    const { clock, snapshot, probe, runs } = setup(() => ({ status: 403, json: {} }));
    await runWithTime(clock, probe.run(new AbortController().signal));
    expect(searchFacts.of(snapshot.leader())).toBeUndefined();
    expect(runs.states()).toMatchObject([
      { name: 'search', on: false, off: { reason: 'forbidden', endpoint: 'POST /m/default_search/search/jobs' } },
    ]);
  });
});
