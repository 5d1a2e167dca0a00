/**
 * Issue 49, "reasons that name the wrong thing": each failure, end to end through the exporter, reads as what
 * happened: a leader never reached yet is down (not absent), a missing credential file is a settings problem (not
 * the leader's 4xx), a redirect is a redirect, an invented status is `other` in the request counter, an oversized
 * body is too large (not undecodable), a leader that never answers is a timeout (not throttling).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { API_STATUSES } from '@cribl-exporter/api/statuses';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import type { Sample } from '../helpers/parse-metrics.js';
import { startTestExporter, type TestExporter } from '../helpers/test-exporter.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function sim(nodes = 10): Promise<Simulator> {
  const s = await startSimulator({ nodes, seed: 3 });
  closers.push(() => s.close());
  return s;
}

async function exporter(
  s: Simulator,
  args: string[] = [],
  opts: Parameters<typeof startTestExporter>[2] = {},
): Promise<TestExporter> {
  const exp = await startTestExporter(s, args, opts);
  closers.push(() => exp.app.close());
  return exp;
}

/** A "leader" on a real socket whose every answer `status(path)` gives, with an empty JSON body. */
async function rawLeader(status: (path: string) => number): Promise<Simulator> {
  const server: Server = createServer((req, res) => {
    req.resume();
    const code = status(req.url ?? '');
    res.writeHead(code, {
      'content-type': 'application/json',
      ...(code >= 300 && code < 400 ? { location: '/' } : {}),
    });
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => server.close(r)));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Only what startTestExporter reads of a simulator.
  return { baseUrl: `${origin}/api/v1`, token: 't' } as Simulator;
}

const value = (samples: Sample[], name: string): number | undefined => samples.find((s) => s.name === name)?.value;
const reasons = (samples: Sample[], name: string): string[] =>
  samples.filter((s) => s.name === name && s.value === 1).map((s) => s.labels.reason!);

describe('reasons that say what happened', () => {
  it('cribl_leader_up is 0 from the start, before the first discovery has answered', async () => {
    const exp = await exporter(await sim());
    const before = (await exp.scrape()).samples;
    expect(value(before, 'cribl_leader_up')).toBe(0);
    await exp.run('discovery');
    expect(value((await exp.scrape()).samples, 'cribl_leader_up')).toBe(1);
  });

  it('a missing token file is a settings failure, not the leader refusing (http_4xx)', async () => {
    const s = await sim();
    const missing = (path: string): Promise<string> =>
      Promise.reject(Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' }));
    const exp = await exporter(s, ['--leader.token-file', '/var/run/secrets/none'], { env: {}, readFile: missing });
    await exp.run('discovery');
    const samples = (await exp.scrape()).samples;
    expect(value(samples, 'cribl_leader_up')).toBe(0);
    expect(reasons(samples, 'cribl_leader_discovery_failure_info')).toEqual(['settings']);
    // Nothing was sent with it: the leader never saw a request of the listing.
    expect(s.stats().requests['/products/{product}/workers']).toBeUndefined();
  });

  it('a leader URL that redirects: the discovery fails with redirect, and the redirect is not followed', async () => {
    const paths: string[] = [];
    const leader = await rawLeader((path) => {
      paths.push(path);
      return path.startsWith('/api/v1/health') ? 200 : 302;
    });
    const exp = await exporter(leader);
    await exp.run('discovery');
    const samples = (await exp.scrape()).samples;
    expect(reasons(samples, 'cribl_leader_discovery_failure_info')).toEqual(['redirect']);
    expect(paths.some((p) => p === '/' || !p.startsWith('/api/v1/'))).toBe(false);
  });

  it('statuses a leader invents are counted as code="other", never as new label values', async () => {
    let n = 0;
    const invented = [299, 418, 451, 499, 521, 530, 599, 222, 333];
    const leader = await rawLeader(() => invented[n++ % invented.length]!);
    const exp = await exporter(leader);
    for (let i = 0; i < 4; i++) await exp.run('discovery');
    const samples = (await exp.scrape()).samples;
    const codes = new Set(
      samples.filter((s) => s.name === 'cribl_exporter_leader_requests_total').map((s) => s.labels.code!),
    );
    expect(codes.has('other')).toBe(true);
    const allowed = new Set<string>([...API_STATUSES.map(String), 'other']);
    for (const c of codes) expect(allowed.has(c) || !/^\d+$/.test(c), `code ${c}`).toBe(true);
  });

  it('oversized node health bodies are too_large, not decode', async () => {
    const s = await sim(20);
    const exp = await exporter(s, ['--leader.max-response-size', '64KiB']);
    await exp.run('discovery');
    s.setFaults({ oversized: { share: 1, bytes: 200_000, routes: ['/w/{nodeId}/health'] } });
    await exp.run('health');
    const samples = (await exp.scrape()).samples;
    const got = new Set(reasons(samples, 'cribl_node_poll_failure_info'));
    expect([...got]).toEqual(['too_large']);
  });

  it('a leader that stops answering: discovery fails with timeout, not throttled', async () => {
    const s = await sim(40);
    const exp = await exporter(s, [
      '--discovery.interval',
      '1s',
      '--leader.max-concurrency',
      '4',
      '--leader.timeout.connect',
      '1s',
      '--leader.timeout.headers',
      '1s',
    ]);
    await exp.run('discovery');
    // The leader stops answering: the node polls in flight hold every slot of the window, and discovery, sent in its
    // own lane beside them, gets no answer either.
    s.setFaults({ latency: { '*': { fixed: 60_000, jitter: 0 } } });
    void exp.run('health');
    await new Promise((r) => setTimeout(r, 100));
    await exp.run('discovery');
    const samples = (await exp.scrape()).samples;
    expect(reasons(samples, 'cribl_leader_discovery_failure_info')).toEqual(['timeout']);
  });
});
