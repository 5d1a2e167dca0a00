import type { AutoDetail } from '../../src/collectors/detail.js';
import pino from 'pino';
import { request } from 'undici';
import { gunzipSync } from 'node:zlib';
import { startApp, type App } from '../../src/exporter/app.js';
import { parseConfig } from '../../src/config/parse.js';
import type { Simulator } from '@cribl-exporter/simulator';
import type { Clock } from '@cribl-exporter/api/clock';
import { manualSchedule } from './manual-schedule.js';
import { parseSamples, type Sample } from './parse-metrics.js';

/** An exporter on port 0 against a simulated leader, whose jobs run only when the test says so. */
export interface TestExporter {
  app: App;
  /** Runs the scheduled jobs whose name starts with `prefix` ('discovery', 'health', 'metadata'). */
  run(prefix: string): Promise<void>;
  /** Rebuilds the body now and scrapes it. */
  scrape(
    headers?: Record<string, string>,
  ): Promise<{ text: string; samples: Sample[]; headers: Record<string, unknown> }>;
}

/**
 * Starts the exporter with an unthrottled budget and fast backoff; `args` add or override flags, `opts.env` the
 * environment (the simulator's token by default), `opts.clock` the clock, `opts.readFile` the files the app reads.
 */
export async function startTestExporter(
  sim: Simulator,
  args: readonly string[] = [],
  opts: {
    env?: Record<string, string>;
    clock?: Clock;
    readFile?: (path: string) => Promise<string>;
    /** Where bodies are rendered. @default the app's (`auto`: on the main thread below 12,000 nodes) */
    bodyBuilder?: 'inline' | 'worker' | 'auto';
    /** @default silent */
    logger?: pino.Logger;
    /** `auto` node detail's thresholds (small ones, for a test to cross). @default AUTO_DETAIL */
    autoDetail?: AutoDetail;
  } = {},
): Promise<TestExporter> {
  const sched = manualSchedule();
  const config = parseConfig({
    argv: [
      '--leader.url',
      sim.baseUrl,
      '--web.listen-address',
      '127.0.0.1:0',
      '--leader.max-rps',
      '2000',
      '--leader.max-concurrency',
      '32',
      '--leader.backoff.base',
      '10ms',
      '--leader.backoff.max',
      '50ms',
      '--health.interval',
      '2s',
      ...args,
    ],
    env: opts.env ?? { CRIBL_TOKEN: sim.token },
    readFile: () => '',
  });
  const app = await startApp({
    config,
    logger: opts.logger ?? pino({ level: 'silent' }),
    version: '0.0.0-test',
    nodejsVersion: process.version,
    readFile: opts.readFile ?? (() => Promise.resolve('')),
    env: {},
    schedule: sched.schedule,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.bodyBuilder ? { bodyBuilder: opts.bodyBuilder } : {}),
    ...(opts.autoDetail ? { autoDetail: opts.autoDetail } : {}),
  });
  return {
    app,
    run: sched.run,
    async scrape(headers = {}) {
      await app.body.rebuild();
      const res = await request(app.metricsUrl, { headers });
      if (res.statusCode !== 200) throw new Error(`GET /metrics answered ${res.statusCode}`);
      const buf = Buffer.from(await res.body.arrayBuffer());
      const text = res.headers['content-encoding'] === 'gzip' ? gunzipSync(buf).toString('utf8') : buf.toString('utf8');
      return { text, samples: parseSamples(text), headers: res.headers };
    },
  };
}
