import { describe, expect, it } from 'vitest';
import { ScrapeTracker } from '../../src/exposition/body/scrapes.js';

/** A tracker that saw `times` of each client. */
function seen(clients: Record<string, number[]>, options = {}): ScrapeTracker {
  const t = new ScrapeTracker(options);
  const all = Object.entries(clients).flatMap(([c, times]) => times.map((at) => ({ c, at })));
  for (const { c, at } of all.sort((a, b) => a.at - b.at)) t.seen(c, at);
  return t;
}

describe('ScrapeTracker', () => {
  it.each([
    ['one scrape: nothing to predict', { p: [0] }, 1, undefined, undefined],
    ['two scrapes: one gap is not enough', { p: [0, 15_000] }, 15_001, undefined, undefined],
    ['three at 15 s', { p: [0, 15_000, 30_000] }, 30_001, 15_000, 45_000],
    ['a missed scrape (30 s gap) does not move the interval', { p: [0, 15e3, 30e3, 60e3, 75e3] }, 75_001, 15e3, 90e3],
    ['an extra scrape (5 s gap) does not either', { p: [0, 15e3, 30e3, 35e3, 45e3, 60e3] }, 60_001, 15e3, 75e3],
    ['requests within 1 s are one round', { p: [0, 200, 15e3, 15_300, 30e3, 30_900] }, 30_901, 15e3, 45e3],
    ['silent for 3 intervals: forgotten', { p: [0, 15e3, 30e3] }, 75_001, undefined, undefined],
    ['silent for less: the next slot after now', { p: [0, 15e3, 30e3] }, 50_000, 15e3, 60e3],
    ['two replicas: the earlier of both', { a: [0, 15e3, 30e3], b: [4e3, 19e3, 34e3] }, 35_000, 15e3, 45e3],
    ['the fastest client sets the interval', { a: [0, 30e3, 60e3], b: [1e3, 11e3, 21e3, 61e3] }, 61_001, 10e3, 71e3],
  ])('%s', (_name, clients, now, interval, next) => {
    const t = seen(clients);
    expect(t.shortestInterval(now)).toBe(interval);
    expect(t.nextScrape(now, now)).toBe(next);
  });

  it('nextScrape skips the slots before `after`', () => {
    const t = seen({ a: [0, 15e3, 30e3], b: [4e3, 19e3, 34e3] });
    // A build that may not start before 40 s: the first slot after it is b's at 49 s, then a's at 60 s.
    expect(t.nextScrape(40_000, 35_000)).toBe(45_000);
    expect(t.nextScrape(45_001, 35_000)).toBe(49_000);
  });

  it('forgets the client seen least recently beyond maxClients', () => {
    const t = seen({ a: [0, 15e3, 30e3], b: [1e3, 16e3, 31e3], c: [32e3] }, { maxClients: 2 });
    expect(t.predicted('a', 32_000)).toBe(false);
    expect(t.predicted('b', 32_000)).toBe(true);
  });
});
