import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SearchProbe } from '../../src/polling/search-probe.js';
import type { LeaderRequest } from '../../src/leader/types.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { fakeLeaderClient, type FakeAnswer } from '../helpers/fake-leader-client.js';
import { MemorySnapshot } from '../helpers/memory-snapshot.js';

const job = (status: string) => ({ status: 200, json: { count: 1, items: [{ id: '1.abcdef', status, query: 'q' }] } });

function setup(answer: (req: LeaderRequest<unknown>, n: number) => FakeAnswer) {
  const clock = new FakeClock();
  let n = 0;
  const client = fakeLeaderClient((req) => answer(req, n++));
  const snapshot = new MemorySnapshot();
  const probe = new SearchProbe({
    client,
    snapshot,
    clock,
    logger: pino({ level: 'silent' }),
    query: 'cribl dataset="x" | limit 1',
    timeoutMs: 10_000,
  });
  return { clock, client, snapshot, probe };
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
    expect(snapshot.leaderState?.search).toMatchObject({ success: true, lastSuccessMs: clock.now() });
  });

  it('never runs two jobs at once: a run while one is in progress does nothing', async () => {
    const { clock, client, probe } = setup((req) => (req.method === 'POST' ? job('new') : job('running')));
    const signal = new AbortController().signal;
    const first = probe.run(signal);
    const second = probe.run(signal);
    await runWithTime(
      clock,
      Promise.all([first, second]).then(() => undefined),
    );
    expect(client.calls.filter((c) => c.method === 'POST')).toHaveLength(1);
  });

  it('cancels a job that outlives the timeout (PATCH status canceled) and reports timeout', async () => {
    const { clock, client, snapshot, probe } = setup((req) =>
      req.method === 'POST' ? job('new') : req.method === 'PATCH' ? job('canceled') : job('running'),
    );
    await runWithTime(clock, probe.run(new AbortController().signal));
    const cancel = client.calls.at(-1)!;
    expect(cancel).toMatchObject({ method: 'PATCH', path: '/m/default_search/search/jobs/1.abcdef' });
    expect(JSON.parse(cancel.body!.payload)).toEqual({ status: 'canceled' });
    expect(snapshot.leaderState?.search).toMatchObject({ success: false, failure: 'timeout' });
    expect(snapshot.leaderState?.search?.durationMs).toBeLessThanOrEqual(10_000);
  });

  it('a create refused for credentials is a failure with that reason', async () => {
    const { clock, snapshot, probe } = setup(() => ({ status: 403, json: {} }));
    await runWithTime(clock, probe.run(new AbortController().signal));
    expect(snapshot.leaderState?.search).toMatchObject({ success: false, failure: 'forbidden' });
  });
});
