import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monotonicUs } from '../../bench/lib/cpu-profile.mjs';
import { scrapeBudgetMs, scrapeRounds } from '../../bench/lib/http.mjs';

describe('scrapeRounds', () => {
  let server: Server;
  let url: string;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.end('up 1\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("records each counted request's start on the clock of V8's CPU profiles, beside its times", async () => {
    const before = monotonicUs();
    const got = await scrapeRounds([{ name: 'a', url }], { encoding: 'gzip', minRounds: 3, maxRounds: 3 });
    const after = monotonicUs();
    const s = got.get('a')!;
    // One warm-up round not counted, three counted, two requests a round.
    expect(hits).toBe(8);
    expect(s.ttfbMs).toHaveLength(6);
    expect(s.startUs).toHaveLength(6);
    for (const us of s.startUs) {
      expect(us).toBeGreaterThanOrEqual(before);
      expect(us).toBeLessThanOrEqual(after);
    }
  });
});

describe('scrapeBudgetMs', () => {
  it.each([
    [1000, 12_000],
    [19_999, 12_000],
    [20_000, 25_000],
    [50_000, 25_000],
  ])('%i nodes: %i ms', (nodes, ms) => {
    expect(scrapeBudgetMs(nodes)).toBe(ms);
  });
});
