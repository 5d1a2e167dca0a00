import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterEach } from 'vitest';
import { runCheckCommand, type CheckIo } from '../../src/commands/check.js';
import type { CheckResult } from '../../src/check/report.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '@cribl-exporter/simulator';
import { systemClock, type Clock } from '@cribl-exporter/api/clock';

// Running `cribl-exporter check` against the simulated leader, for the tests of this folder.

export const SECRET = 'sim-static-token-never-printed';
export const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

export async function sim(opts: SimulatorOptions = {}): Promise<Simulator> {
  const s = await startSimulator({ nodes: 20, seed: 4, token: SECRET, ...opts });
  cleanups.push(() => s.close());
  return s;
}

export interface Run {
  code: number;
  out: string[];
  err: string[];
  results: CheckResult[];
  /** The result of one check, by id and (when there are several) by a part of its message. */
  line(check: string, contains?: string): CheckResult;
}

export async function check(
  argv: string[],
  env: Record<string, string> = {},
  extra: Partial<CheckIo> = {},
): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCheckCommand(['--output', 'json', ...argv], {
    env,
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    readFile: (p) => Promise.resolve(readFileSync(p, 'utf8')),
    version: '0.0.0-test',
    ...extra,
  });
  const results = out.length ? (JSON.parse(out.join('\n')) as { results: CheckResult[] }).results : [];
  return {
    code,
    out,
    err,
    results,
    line(id, contains) {
      const r = results.find((x) => x.check === id && (contains === undefined || x.message.includes(contains)));
      if (!r) throw new Error(`no ${id} line${contains ? ` with "${contains}"` : ''} in:\n${out.join('\n')}`);
      return r;
    },
  };
}

export const statuses = (r: Run): string[] => r.results.map((x) => `${x.check}:${x.status}`);

/** A clock `offsetMs` ahead of the real one (the leader's Date header then looks that far behind). */
export const offsetClock = (offsetMs: number): Clock => ({
  now: () => Date.now() + offsetMs,
  sleep: (ms, signal) => systemClock.sleep(ms, signal),
});

export const jwt = (exp: number): string =>
  [
    { alg: 'HS256', typ: 'JWT' },
    { sub: 'exporter', exp },
  ]
    .map((p) => Buffer.from(JSON.stringify(p)).toString('base64url'))
    .join('.') + '.c2ln';

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then released). */
export function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
