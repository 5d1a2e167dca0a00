import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { runCommand, type CommandIo } from '../src/commands.js';
import { startSimulator } from '../src/simulator/index.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

function io(argv: string[], env: Record<string, string> = {}, signal = new AbortController().signal) {
  const out: string[] = [];
  const err: string[] = [];
  const value: CommandIo = {
    argv,
    env,
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    readFile: (p) => {
      throw Object.assign(new Error(`ENOENT: no such file or directory, open '${p}'`), { code: 'ENOENT' });
    },
    signal,
    version: '1.2.3',
    nodejsVersion: 'v20.0.0',
    logDestination: { write: () => undefined },
  };
  return { io: value, out, err };
}

describe('runCommand: settings errors are one line and exit code 2', () => {
  it.each([
    [['--leader.urll', 'x'], {}, /^cribl-exporter: unknown flag --leader\.urll/],
    [
      ['--leader.url', 'http://l/api/v1', '--health.interval', '30x'],
      {},
      /^cribl-exporter: --health\.interval: "30x" is not a duration/,
    ],
    [['--leader.url', 'ftp://leader/api/v1'], {}, /^cribl-exporter: --leader\.url: /],
    [[], {}, /^cribl-exporter: .*leader/i],
    [
      ['--leader.url', 'http://l/api/v1'],
      { CRIBL_TOKEN: 'x', CRIBL_TOKEN_FILE: '/t' },
      /^cribl-exporter: .*CRIBL_TOKEN/,
    ],
    [['frobnicate'], {}, /^cribl-exporter: unknown command "frobnicate"/],
  ])('%j %j', async (argv, env, message) => {
    const t = io(argv, env);
    expect(await runCommand(t.io)).toBe(2);
    expect(t.err).toHaveLength(1);
    expect(t.err[0]).toMatch(message);
    expect(t.err[0]).not.toMatch(/\n| {4}at /);
  });

  it('a missing CA file is a settings error naming the setting', async () => {
    const t = io(
      ['--leader.url', 'https://l/api/v1', '--leader.ca-file', '/nope/ca.pem', '--web.listen-address', '127.0.0.1:0'],
      { CRIBL_TOKEN: 's3cret' },
    );
    expect(await runCommand(t.io)).toBe(2);
    expect(t.err[0]).toMatch(/--leader\.ca-file/);
    expect(t.err.join('')).not.toContain('s3cret');
  });
});

describe('runCommand: help and version', () => {
  it('--version prints the version and exits 0', async () => {
    const t = io(['--version']);
    expect(await runCommand(t.io)).toBe(0);
    expect(t.out).toEqual(['cribl-exporter 1.2.3 (Node.js v20.0.0)']);
  });

  it('--help lists the flags and the commands', async () => {
    const t = io(['--help']);
    expect(await runCommand(t.io)).toBe(0);
    expect(t.out.join('\n')).toContain('--leader.url');
    const d = io(['demo', '--help']);
    expect(await runCommand(d.io)).toBe(0);
    expect(d.out.join('\n')).toMatch(/^Usage: cribl-exporter demo/);
  });
});

describe('runCommand: demo', () => {
  it('serves /metrics for the simulated fleet and stops cleanly when signalled', async () => {
    const ac = new AbortController();
    const t = io(['demo', '--nodes', '12', '--web.listen-address', '127.0.0.1:0'], {}, ac.signal);
    t.io.readFile = (p) => readFileSync(p, 'utf8');
    let metricsUrl = '';
    t.io.onStarted = (app) => {
      metricsUrl = app.metricsUrl;
    };
    const done = runCommand(t.io);
    for (let i = 0; i < 100 && !metricsUrl; i++) await new Promise((r) => setTimeout(r, 50));
    const url = String.raw`http://127\.0\.0\.1:\d+`;
    expect(t.out[0]).toMatch(
      new RegExp(
        String.raw`^cribl-exporter demo: metrics at ${url}/metrics \(simulated leader ${url}/api/v1, 12 nodes\)$`,
      ),
    );
    let body = '';
    for (let i = 0; i < 100 && !body.includes('cribl_node_health_up'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      body = await (await request(metricsUrl)).body.text();
    }
    expect(body.match(/^cribl_node_info\{/gm)).toHaveLength(12);
    // The demo scenario puts nodes in every state: some do not answer, some answer shutting down or standby.
    expect(body).toMatch(/^cribl_node_health_up\{[^}]*\} 0$/m);
    expect(body).toMatch(/^cribl_node_connected\{[^}]*\} 0$/m);
    ac.abort();
    expect(await done).toBe(0);
    await expect(request(metricsUrl)).rejects.toThrow();
  });
});

describe('the process', () => {
  it('exits 0 within 5 s of SIGTERM while polling a leader', async () => {
    const sim = await startSimulator({ nodes: 20 });
    try {
      const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', cli, '--leader.url', sim.baseUrl, '--web.listen-address', '127.0.0.1:0'],
        {
          env: { ...process.env, CRIBL_TOKEN: sim.token },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
      for (let i = 0; i < 300 && !stdout.includes('first discovery complete'); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(stdout).toContain('first discovery complete');
      // JSON logs, one object per line.
      const lines = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { url?: string; msg?: string });
      // Run from this source checkout: build_info names its commit.
      const metricsUrl = lines.find((l) => l.msg === 'cribl-exporter listening')?.url ?? '';
      const head = spawnSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
      expect(await (await request(metricsUrl)).body.text()).toContain(
        `cribl_exporter_build_info{version="${version}",revision="${head}",nodejs_version="${process.version}"} 1`,
      );
      const started = Date.now();
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await sim.close();
    }
  });
});
