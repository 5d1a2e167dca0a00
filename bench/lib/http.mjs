// HTTP helpers of the benchmark (127.0.0.1 only): JSON calls to the simulator's admin endpoint, and
// scrapes of /metrics with time to first byte and total time.

import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { Agent, interceptors, request } from 'undici';
import { monotonicUs } from './cpu-profile.mjs';

/** Prometheus 3's Accept header: what a real scraper sends. */
export const PROMETHEUS_ACCEPT =
  'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';

/**
 * The admin calls' pool. A GET (idempotent) whose connection the server closed as it was reused ("other side closed":
 * the keep-alive race, when this process's event loop stalled past its own idle timer, e.g. in a major GC of a
 * 50k-node scrape) is sent once more on a new connection, as RFC 9112 §9.3.1 allows; nothing else is retried.
 */
const admin = new Agent({ connections: 2 }).compose(
  interceptors.retry({ maxRetries: 1, minTimeout: 50, statusCodes: [], errorCodes: ['UND_ERR_SOCKET', 'ECONNRESET'] }),
);
const gunzipAsync = promisify(gunzip);

function loopbackOnly(url) {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1') throw new Error(`refusing to send benchmark traffic to ${host}: 127.0.0.1 only`);
}

/** Awaits `p`; a failure names the request (`what`), its cause kept, and how long the connection had been idle. */
async function named(what, p) {
  const t0 = performance.now();
  try {
    return await p;
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const s = e?.socket;
    const where = s ? ` (local port ${s.localPort}, ${s.bytesWritten} bytes written, ${s.bytesRead} read)` : '';
    throw new Error(`${what}: ${msg}${where} after ${Math.round(performance.now() - t0)} ms`, { cause: e });
  }
}

/** Sends a JSON request and returns the parsed answer; throws one line on a non-2xx status. */
export async function json(method, url, body) {
  loopbackOnly(url);
  const res = await named(`${method} ${url}`, request(url, {
    method,
    dispatcher: admin,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  }));
  const text = await named(`${method} ${url} (body)`, res.body.text());
  if (res.statusCode < 200 || res.statusCode > 299)
    throw new Error(`${method} ${url}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
  return text === '' ? undefined : JSON.parse(text);
}

/** One GET of `url`: time to the response headers, total time, bytes received and the raw body when asked. */
export async function timedGet(url, { dispatcher, encoding, keep = false, accept = PROMETHEUS_ACCEPT }) {
  loopbackOnly(url);
  const t0 = performance.now();
  const res = await named(
    `GET ${url} (${encoding})`,
    request(url, {
      dispatcher,
      headers: { accept, 'accept-encoding': encoding },
      headersTimeout: 120_000,
      bodyTimeout: 120_000,
    }),
  );
  const ttfbMs = performance.now() - t0;
  const chunks = keep ? [] : undefined;
  let bytes = 0;
  await named(
    `GET ${url} (${encoding}, body)`,
    (async () => {
      for await (const c of res.body) {
        bytes += c.length;
        chunks?.push(c);
      }
    })(),
  );
  const totalMs = performance.now() - t0;
  if (res.statusCode !== 200) throw new Error(`GET ${url}: HTTP ${res.statusCode}`);
  return { ttfbMs, totalMs, bytes, headers: res.headers, body: chunks ? Buffer.concat(chunks) : undefined };
}

/** Fetches /metrics (gzip) and returns the decoded text. */
export async function fetchMetricsText(url, dispatcher) {
  const r = await timedGet(url, { dispatcher, encoding: 'gzip', keep: true });
  // Off the event loop: a 50k body's gunzip held it long enough to starve the admin pool's idle timer.
  const raw = r.headers['content-encoding'] === 'gzip' ? await gunzipAsync(r.body) : r.body;
  return raw.toString('utf8');
}

/** The time budget of a size's scrape rounds (`scrapeRounds`' budgetMs): larger bodies take longer a scrape. */
export function scrapeBudgetMs(nodes) {
  return nodes >= 20_000 ? 25_000 : 12_000;
}

/**
 * Scrapes each target with `concurrency` parallel requests per round, rounds of all targets interleaved
 * (so that they share the machine's load), until `maxRounds` or `budgetMs` (at least `minRounds`), after
 * `warmup` rounds that are not counted. Returns samples per target name, each request's start on the clock of V8's
 * CPU profiles (`startUs`: bench/lib/cpu-profile.mjs) beside its times.
 */
export async function scrapeRounds(
  targets,
  { encoding, concurrency = 2, warmup = 1, minRounds = 5, maxRounds = 25, budgetMs = 20_000 },
) {
  const agents = new Map(targets.map((t) => [t.name, new Agent({ connections: concurrency })]));
  const samples = new Map(targets.map((t) => [t.name, { ttfbMs: [], totalMs: [], startUs: [], bytes: 0 }]));
  const round = async (t, count) => {
    const rs = await Promise.all(
      Array.from({ length: concurrency }, async () => {
        const startUs = monotonicUs();
        return { ...(await timedGet(t.url, { dispatcher: agents.get(t.name), encoding })), startUs };
      }),
    );
    if (!count) return;
    const s = samples.get(t.name);
    for (const r of rs) {
      s.startUs.push(r.startUs);
      s.ttfbMs.push(r.ttfbMs);
      s.totalMs.push(r.totalMs);
      s.bytes = r.bytes;
    }
  };
  for (let i = 0; i < warmup; i++) for (const t of targets) await round(t, false);
  const started = performance.now();
  for (let i = 0; i < maxRounds; i++) {
    if (i >= minRounds && performance.now() - started > budgetMs) break;
    for (const t of targets) await round(t, true);
  }
  await Promise.all([...agents.values()].map((a) => a.close()));
  return samples;
}

/**
 * Prometheus-like gzip scrapes of `url` every `everyMs`, the first `everyMs` from now: returns `until(end)`, which
 * sleeps until `end` (performance.now() time) scraping meanwhile, each scrape's text given to `onText`.
 */
export function periodicScrapes(url, dispatcher, { everyMs = 15_000, onText } = {}) {
  let next = performance.now() + everyMs;
  return async (end) => {
    while (performance.now() < end) {
      await new Promise((r) => setTimeout(r, Math.max(0, Math.min(next, end) - performance.now())));
      if (performance.now() >= next) {
        next += everyMs;
        const text = await fetchMetricsText(url, dispatcher);
        onText?.(text);
      }
    }
  };
}

/** Closes the shared admin connection pool. */
export function closeHttp() {
  return admin.close();
}
