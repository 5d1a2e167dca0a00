import { describe, expect, it } from 'vitest';
import { perSecondSeries, rateLimitFigures } from '../../bench/lib/rate-limit.mjs';

describe('perSecondSeries', () => {
  it('keeps the whole seconds strictly inside the window, a second without traffic as 0', () => {
    const perSecond = [
      { second: 100, accepted: 5, rateLimited: 0 },
      { second: 101, accepted: 40, rateLimited: 1 },
      { second: 103, accepted: 39, rateLimited: 0 },
      { second: 104, accepted: 7, rateLimited: 0 },
    ];
    // From 100.4 s to 104.6 s: 100 and 104 are partial.
    expect(perSecondSeries(perSecond, 100_400, 104_600)).toEqual({
      seconds: 3,
      accepted: [40, 0, 39],
      rateLimited: [1, 0, 0],
    });
  });
});

describe('rateLimitFigures', () => {
  it('finds the worst sliding window against the limit, and cuts fixed windows', () => {
    // 40/s for 6 s, a dip to 20 for 2 s, then 40/s for 4 s; windows of 4 s.
    const accepted = [40, 40, 40, 40, 40, 40, 20, 20, 40, 40, 40, 40];
    const rateLimited = [0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0];
    const f = rateLimitFigures({ accepted, rateLimited }, { limitRps: 40, windowS: 4 })!;
    expect(f.worstWindow).toEqual({ fromS: 4, accepted: 120, share: 0.75 });
    expect(f.seconds).toBe(12);
    expect(f.acceptedPerSecond).toBeCloseTo(440 / 12);
    expect(f.share429).toBeCloseTo(4 / 444);
    expect(f.windows.map((w) => [w.fromS, w.acceptedPerSecond, w.share])).toEqual([
      [0, 40, 1],
      [4, 30, 0.75],
      [8, 40, 1],
    ]);
  });

  it('has nothing to say of a series shorter than one window', () => {
    expect(rateLimitFigures({ accepted: [40], rateLimited: [0] }, { limitRps: 40, windowS: 20 })).toBeUndefined();
  });
});
