import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSimulateCommand } from '../../src/commands/simulate.js';
import { call } from '../simulator/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'sim-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: Promise<number>;
  out: string[];
  err: string[];
  stop: () => void;
  ready: () => Promise<string>;
}

function run(argv: string[]): Run {
  const out: string[] = [];
  const err: string[] = [];
  const ac = new AbortController();
  const code = runSimulateCommand(argv, { stdout: (l) => out.push(l), stderr: (l) => err.push(l), signal: ac.signal });
  return {
    code,
    out,
    err,
    stop: () => ac.abort(),
    ready: async () => {
      for (let i = 0; i < 4000 && out.length === 0; i++) {
        const settled = await Promise.race([
          code.then(() => true),
          new Promise<false>((r) => setTimeout(() => r(false), 5)),
        ]);
        if (settled) break;
      }
      return out[0] ?? '';
    },
  };
}

describe('cribl-exporter simulate', () => {
  it('--nodes 200 starts, prints the base URL and token on one line, serves them, and stops on abort', async () => {
    const r = run(['--nodes', '200', '--web.listen-address', '127.0.0.1:0', '--seed', '3']);
    const line = await r.ready();
    const m = /^cribl simulated leader listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v1) token=(\S+) admin=(\S+)$/.exec(
      line,
    );
    expect(m, line).not.toBeNull();
    expect(r.out).toHaveLength(1);
    const [, baseUrl, token] = m!;
    const origin = new URL(baseUrl!).origin;
    const listed = await call(origin, '/api/v1/master/workers', { token: token! });
    expect(listed.status).toBe(200);
    expect(listed.json.count).toBe(200);
    expect((await call(origin, '/api/v1/master/workers')).status).toBe(401);
    r.stop();
    expect(await r.code).toBe(0);
    expect((await call(origin, '/api/v1/health')).error).toBe('ECONNREFUSED');
  });

  it('reads a scenario file; flags win over its fleet settings', async () => {
    const file = join(dir, 's.yaml');
    writeFileSync(
      file,
      'fleet: { nodes: 7, leaderVersion: "4.16" }\nfaults: { unavailable: { share: 1, retryAfter: 2 } }\n',
    );
    const r = run(['--scenario', file, '--nodes', '5', '--web.listen-address', '127.0.0.1:0']);
    const line = await r.ready();
    const [, baseUrl, token] = /on (\S+) token=(\S+)/.exec(line)!;
    const origin = new URL(baseUrl!).origin;
    const res = await call(origin, '/api/v1/master/workers', { token: token! });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.json).toEqual({ message: 'Service Unavailable' });
    expect((await call(origin, '/_sim/nodes')).json.totalCount).toBe(5);
    r.stop();
    expect(await r.code).toBe(0);
  });

  it.each([
    [['--nodes', 'many'], '--nodes: expected an integer'],
    [['--nodes=-3'], '--nodes: expected an integer'],
    // Not node:util's "argument is ambiguous": the flag's own message.
    [['--nodes', '-1'], '--nodes: expected an integer ≥ 0, got "-1"'],
    [['--nodes', '-3'], '--nodes: expected an integer ≥ 0, got "-3"'],
    [['--leader-version', 'latest'], '--leader-version: expected a version'],
    [['--web.listen-address', 'nowhere'], '--web.listen-address: expected host:port'],
    [['--bogus'], "Unknown option '--bogus'"],
    [['extra'], 'Unexpected argument'],
    [['--scenario', '/nonexistent/x.yaml'], '--scenario: cannot read /nonexistent/x.yaml (ENOENT)'],
  ])('%j → exit 2 with one line naming the flag', async (argv, message) => {
    const r = run(argv);
    expect(await r.code).toBe(2);
    expect(r.out).toEqual([]);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toContain(message);
  });

  it('rejects an invalid scenario with exit 2 and one line naming the field', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'faults:\n  rateLimit: { rate: "fast" }\n');
    const r = run(['--scenario', file]);
    expect(await r.code).toBe(2);
    expect(r.err).toEqual([expect.stringMatching(/^simulate: --scenario: .*bad\.yaml: faults\.rateLimit\.rate: /)]);
  });

  it('rejects a scenario naming what the fleet lacks with exit 2 and one line (checked at start)', async () => {
    const file = join(dir, 'unknown.yaml');
    writeFileSync(file, 'faults:\n  dataflow: { windows: [{ group: default, destination: nope, red: 1 }] }\n');
    const r = run(['--scenario', file, '--web.listen-address', '127.0.0.1:0']);
    expect(await r.code).toBe(2);
    expect(r.out).toEqual([]);
    const problem = 'faults.dataflow.windows.0: group "default" has no destination "nope"';
    expect(r.err).toEqual([`simulate: --scenario: ${file}: invalid faults: ${problem}`]);
  });

  it('--help prints usage and exits 0', async () => {
    const r = run(['--help']);
    expect(await r.code).toBe(0);
    expect(r.out[0]).toBe('Usage: cribl-exporter simulate [flags]');
    expect(r.out.join('\n')).toContain('--web.listen-address');
  });

  it('exits 1 with one line when the address is taken', async () => {
    const first = run(['--web.listen-address', '127.0.0.1:0', '--nodes', '1']);
    const port = new URL(/on (\S+)/.exec(await first.ready())![1]!).port;
    const second = run(['--web.listen-address', `127.0.0.1:${port}`, '--nodes', '1']);
    expect(await second.code).toBe(1);
    expect(second.err).toEqual([`simulate: cannot listen on 127.0.0.1:${port}: EADDRINUSE`]);
    first.stop();
    expect(await first.code).toBe(0);
  });
});
