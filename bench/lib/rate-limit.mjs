// The leader-imposed rate limit run of bench/fair.mjs, read from the simulator's per-second counters (issue 40):
// the accepted rate second by second over the steady part, the worst window of `windowS` seconds against what the
// leader allows in it, and fixed windows for the report. Pure: counters in, figures out.

/**
 * The steady part's per-second series from the simulator's `perSecond` (epoch seconds, seconds without traffic
 * absent): whole seconds strictly after `fromMs` and strictly before `toMs` (the partial first and last seconds
 * left out), missing seconds as 0. `{ seconds, accepted: number[], rateLimited: number[] }`.
 */
export function perSecondSeries(perSecond, fromMs, toMs) {
  const first = Math.floor(fromMs / 1000) + 1;
  const last = Math.floor(toMs / 1000) - 1;
  const by = new Map((perSecond ?? []).map((b) => [b.second, b]));
  const accepted = [];
  const rateLimited = [];
  for (let s = first; s <= last; s++) {
    accepted.push(by.get(s)?.accepted ?? 0);
    rateLimited.push(by.get(s)?.rateLimited ?? 0);
  }
  return { seconds: accepted.length, accepted, rateLimited };
}

/**
 * Figures of a series against a limit of `limitRps`: the worst sliding window of `windowS` seconds (accepted in it
 * over `limitRps × windowS`), the whole part's accepted rate and share answered 429, and fixed consecutive windows
 * of `windowS` (the last one only when complete). Undefined when the series is shorter than one window.
 */
export function rateLimitFigures({ accepted, rateLimited }, { limitRps, windowS }) {
  if (accepted.length < windowS) return undefined;
  const allowed = limitRps * windowS;
  let sum = accepted.slice(0, windowS).reduce((a, b) => a + b, 0);
  let worst = sum;
  let worstAt = 0;
  for (let i = windowS; i < accepted.length; i++) {
    sum += accepted[i] - accepted[i - windowS];
    if (sum < worst) {
      worst = sum;
      worstAt = i - windowS + 1;
    }
  }
  const total = (xs) => xs.reduce((a, b) => a + b, 0);
  const acc = total(accepted);
  const limited = total(rateLimited);
  const windows = [];
  for (let i = 0; i + windowS <= accepted.length; i += windowS) {
    const a = total(accepted.slice(i, i + windowS));
    const l = total(rateLimited.slice(i, i + windowS));
    windows.push({ fromS: i, acceptedPerSecond: a / windowS, share: a / allowed, share429: a + l > 0 ? l / (a + l) : 0 });
  }
  return {
    seconds: accepted.length,
    acceptedPerSecond: acc / accepted.length,
    share429: acc + limited > 0 ? limited / (acc + limited) : 0,
    worstWindow: { fromS: worstAt, accepted: worst, share: worst / allowed },
    windows,
  };
}
