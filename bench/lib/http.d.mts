// Types of http.mjs (for the TypeScript tests in test/bench).
import type { Dispatcher } from 'undici';

/** Prometheus 3's Accept header. */
export const PROMETHEUS_ACCEPT: string;
/** Sends a JSON request to 127.0.0.1 and returns the parsed answer; throws one line on a non-2xx status. */
export function json(method: string, url: string, body?: unknown): Promise<unknown>;
/** One GET: time to the response headers, total time, bytes and (with keep) the raw body. */
export function timedGet(
  url: string,
  options: { dispatcher: Dispatcher; encoding: string; keep?: boolean; accept?: string },
): Promise<{ ttfbMs: number; totalMs: number; bytes: number; headers: Record<string, string | string[] | undefined>; body: Buffer | undefined }>;
/** Fetches /metrics (gzip) and returns the decoded text. */
export function fetchMetricsText(url: string, dispatcher: Dispatcher): Promise<string>;
/** Interleaved rounds of `concurrency` parallel GETs per target; samples per target name. */
export function scrapeRounds(
  targets: { name: string; url: string }[],
  options: { encoding: string; concurrency?: number; warmup?: number; minRounds?: number; maxRounds?: number; budgetMs?: number },
): Promise<Map<string, { ttfbMs: number[]; totalMs: number[]; startUs: number[]; bytes: number }>>;
/** The time budget of a size's scrape rounds. */
export function scrapeBudgetMs(nodes: number): number;
/** gzip scrapes every `everyMs` (15 s): `until(end)` sleeps until `end` (performance.now()), scraping meanwhile. */
export function periodicScrapes(
  url: string,
  dispatcher: Dispatcher,
  options?: { everyMs?: number; onText?: (text: string) => void },
): (end: number) => Promise<void>;
/** Closes the shared admin connection pool. */
export function closeHttp(): Promise<void>;
