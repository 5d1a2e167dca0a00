import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parse, stringify } from 'yaml';

/** The server binary, from the PATH (the Debian package installs /usr/bin/prometheus). */
export const PROMETHEUS_BIN = 'prometheus';
/**
 * Bounds on a hang, not races: on a busy 2-core machine Prometheus starts, scrapes and evaluates late, and a test
 * that waits for something to happen waits as long as it takes (its file's TOOL_TIMEOUT_MS is longer).
 */
const READY_MS = 120_000;
const WAIT_MS = 120_000;

/** What to scrape and which rules to evaluate. */
export interface PrometheusOptions {
  /** host:port of each target, all in one job. */
  scrapeTargets: readonly string[];
  /** Prometheus duration, e.g. '1s'. @default '1s' */
  scrapeInterval?: string;
  /** Absolute paths of rule files. @default [] */
  ruleFiles?: readonly string[];
  /** @default '1s' */
  evaluationInterval?: string;
  /** Replaces the `for:` of every alert in `ruleFiles` (copies are loaded), so a test need not wait 10 minutes. */
  alertFor?: string;
  /** Name of the scrape job (the alert rules expect one containing "cribl-exporter"). @default 'cribl-exporter' */
  job?: string;
  /** How long to wait for /-/ready (a bound on a hang: a busy machine starts Prometheus slowly). @default 120_000 */
  readyTimeoutMs?: number;
  /** Server binary. @default PROMETHEUS_BIN */
  bin?: string;
}

/** One sample of an instant vector, as the HTTP API returns it. */
export interface VectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

/** One alert of GET /api/v1/alerts. */
export interface Alert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
  activeAt: string;
  value: string;
}

/** A running Prometheus on 127.0.0.1, with its storage in a temporary directory. */
export interface RunningPrometheus {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** Evaluates an instant query now; throws if Prometheus rejects it. */
  query(expr: string): Promise<VectorSample[]>;
  /**
   * Active (pending or firing) alerts. To wait for one,
   * `waitFor('ALERTS{alertname="X", alertstate="firing"}', …)`.
   */
  alerts(): Promise<Alert[]>;
  /**
   * Polls `query(expr)` until `done` accepts the result; throws with the last result after `timeoutMs` (default
   * WAIT_MS).
   */
  waitFor(expr: string, done: (v: VectorSample[]) => boolean, timeoutMs?: number): Promise<VectorSample[]>;
  /** Stops the server and deletes its directory. */
  close(): Promise<void>;
}

/** A port that was free a moment ago: Prometheus cannot listen on port 0 and report back. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The rule file to load: `path` itself, or a copy at `copy` whose alerts all wait `alertFor`. */
async function ruleFile(path: string, copy: string, alertFor: string | undefined): Promise<string> {
  if (alertFor === undefined) return path;
  const doc = parse(await readFile(path, 'utf8')) as { groups: { rules: { alert?: string; for?: string }[] }[] };
  for (const rule of doc.groups.flatMap((g) => g.rules)) if (rule.alert !== undefined) rule.for = alertFor;
  await writeFile(copy, stringify(doc));
  return copy;
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function api<T>(base: string, path: string): Promise<T> {
  const res = await fetch(base + path);
  const body = (await res.json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`GET ${path}: ${body.error ?? res.status}`);
  return body.data;
}

/**
 * Starts a real Prometheus that scrapes `scrapeTargets` and evaluates `ruleFiles`, and resolves once it is
 * ready. Integration tests only: it waits on a real process, so it uses real timers.
 */
export async function startPrometheus(options: PrometheusOptions): Promise<RunningPrometheus> {
  const interval = options.scrapeInterval ?? '1s';
  const dir = await mkdtemp(join(tmpdir(), 'prometheus-'));
  const config = {
    global: {
      scrape_interval: interval,
      // The default (10s) may not exceed a short interval.
      scrape_timeout: interval,
      evaluation_interval: options.evaluationInterval ?? '1s',
    },
    rule_files: await Promise.all(
      (options.ruleFiles ?? []).map((f, i) => ruleFile(f, join(dir, `${i}-${basename(f)}`), options.alertFor)),
    ),
    scrape_configs: [
      { job_name: options.job ?? 'cribl-exporter', static_configs: [{ targets: [...options.scrapeTargets] }] },
    ],
  };
  const configFile = join(dir, 'prometheus.yml');
  await writeFile(configFile, stringify(config));

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    options.bin ?? PROMETHEUS_BIN,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let spawnError: Error | undefined;
  child.once('error', (e) => (spawnError = e));

  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? READY_MS);
  for (;;) {
    if (spawnError || child.exitCode !== null) {
      await close();
      throw new Error(`prometheus did not start: ${spawnError?.message ?? `exit ${child.exitCode}`}\n${log}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await close();
      throw new Error(`prometheus not ready on ${url} after ${options.readyTimeoutMs ?? READY_MS} ms\n${log}`);
    }
    await delay(100);
  }

  const query = (expr: string): Promise<VectorSample[]> =>
    api<{ resultType: string; result: VectorSample[] }>(url, `/api/v1/query?query=${encodeURIComponent(expr)}`).then(
      (d) => d.result,
    );

  return {
    url,
    query,
    alerts: () => api<{ alerts: Alert[] }>(url, '/api/v1/alerts').then((d) => d.alerts),
    async waitFor(expr, done, timeoutMs = WAIT_MS) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const v = await query(expr);
        if (done(v)) return v;
        if (Date.now() > until) throw new Error(`timed out waiting for ${expr}; last result ${JSON.stringify(v)}`);
        await delay(250);
      }
    },
    close,
  };
}
