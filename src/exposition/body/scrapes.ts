/**
 * The scrapes the server sees, per client, and when the next ones are due: the build plan (build-plan.ts) times its
 * builds to land shortly before a predicted scrape instead of rebuilding on every change.
 *
 * A client is the pair (remote address, User-Agent): two Prometheus HA replicas are two clients with the same
 * interval at different phases, a human's curl is a client of its own that never repeats regularly enough to be
 * predicted. A client's interval is the lower median of its last gaps, so one missed or one extra scrape does not
 * move it; requests closer than `sameRoundMs` to the client's previous one are the same round (retries, concurrent
 * requests). A client not seen for `forgetAfter` intervals is no longer predicted (a replica that went away).
 * Two replicas behind one address and User-Agent (a NAT) look like one client scraping at the shorter of their
 * phase gaps: the body is then built more often than needed (e.g. every 4 s for two 15 s replicas 4 s apart), never
 * less fresh.
 */

/** Options of ScrapeTracker. */
export interface ScrapeTrackerOptions {
  /** Clients remembered; the one seen least recently is forgotten first. @default 16 */
  maxClients?: number;
  /** Gaps kept per client. @default 5 */
  gaps?: number;
  /** Gaps a client needs before it is predicted (3 scrapes). @default 2 */
  minGaps?: number;
  /** A request this close to the client's previous one is the same round. @default 1000 */
  sameRoundMs?: number;
  /** A client silent for this many of its intervals is no longer predicted. @default 3 */
  forgetAfter?: number;
}

interface Client {
  last: number;
  readonly gaps: number[];
  interval: number | undefined;
}

/** Tracks scrape arrivals and predicts the next ones. Pure: every method takes the time. */
export class ScrapeTracker {
  readonly #o: Required<ScrapeTrackerOptions>;
  readonly #clients = new Map<string, Client>();

  constructor(options: ScrapeTrackerOptions = {}) {
    this.#o = { maxClients: 16, gaps: 5, minGaps: 2, sameRoundMs: 1000, forgetAfter: 3, ...options };
  }

  /** Records a scrape by `client` at `now`. */
  seen(client: string, now: number): void {
    const c = this.#clients.get(client);
    if (!c) {
      if (this.#clients.size >= this.#o.maxClients) {
        const oldest = this.#clients.keys().next();
        if (!oldest.done) this.#clients.delete(oldest.value);
      }
      this.#clients.set(client, { last: now, gaps: [], interval: undefined });
      return;
    }
    const gap = now - c.last;
    if (gap < this.#o.sameRoundMs) return;
    c.gaps.push(gap);
    if (c.gaps.length > this.#o.gaps) c.gaps.shift();
    c.last = now;
    if (c.gaps.length >= this.#o.minGaps) {
      const sorted = [...c.gaps].sort((a, b) => a - b);
      c.interval = sorted[(sorted.length - 1) >> 1];
    }
    // Map order is the order of last sight: the first key is the one to forget.
    this.#clients.delete(client);
    this.#clients.set(client, c);
  }

  /** Whether `client` is predicted at `now` (it has an interval and has not been silent for too long). */
  predicted(client: string, now: number): boolean {
    const c = this.#clients.get(client);
    return !!c && this.#active(c, now);
  }

  /** The shortest interval among the predicted clients; undefined when none is. */
  shortestInterval(now: number): number | undefined {
    let shortest: number | undefined;
    for (const c of this.#clients.values()) {
      if (this.#active(c, now) && c.interval !== undefined && (shortest === undefined || c.interval < shortest))
        shortest = c.interval;
    }
    return shortest;
  }

  /** The earliest predicted scrape at or after `after`; undefined when no client is predicted at `now`. */
  nextScrape(after: number, now: number): number | undefined {
    let next: number | undefined;
    for (const c of this.#clients.values()) {
      if (!this.#active(c, now) || c.interval === undefined) continue;
      const k = Math.max(1, Math.ceil((after - c.last) / c.interval));
      const at = c.last + k * c.interval;
      if (next === undefined || at < next) next = at;
    }
    return next;
  }

  #active(c: Client, now: number): boolean {
    return c.interval !== undefined && now - c.last <= this.#o.forgetAfter * c.interval;
  }
}
