import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { runCommand, type CommandIo } from '../src/commands/index.js';
import { startSimulator } from '@cribl-exporter/simulator';
import type { App } from '../src/exporter/app.js';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const DEMO_CONFIG = join(mkdtempSync(join(tmpdir(), 'demo-config-')), 'config.yml');
writeFileSync(DEMO_CONFIG, 'web.listen-address: "127.0.0.1:0"\n');

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
    [
      ['--leader.url', 'http://l/api/v1', '--web.listen-address', '127.0.0.1:0'],
      { CRIBL_TOKEN: 's3cr\u20acet' },
      /^cribl-exporter: CRIBL_TOKEN contains a character that cannot be sent in an HTTP header/,
    ],
    [
      ['--leader.url', 'http://l/api/v1', '--discovery.interval', '1ms'],
      { CRIBL_TOKEN: 'x' },
      /^cribl-exporter: --discovery\.interval: "1ms" is too short: an interval must be at least 1s$/,
    ],
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
    // The commands, each on its own line under "Commands:".
    const commands = /\nCommands:\n([\s\S]*?)\n\n/.exec(t.out.join('\n'))?.[1] ?? '';
    expect(commands.match(/^ {2}\S+/gm)?.map((c) => c.trim())).toEqual(['(none)', 'check', 'demo', 'simulate']);
    const d = io(['demo', '--help']);
    expect(await runCommand(d.io)).toBe(0);
    expect(d.out.join('\n')).toMatch(/^Usage: cribl-exporter demo/);
  });
});

describe('runCommand: demo', () => {
  /** Starts the demo in-process; resolves once it listens. */
  async function demo(argv: string[], env: Record<string, string> = {}) {
    const ac = new AbortController();
    const t = io(['demo', ...argv], env, ac.signal);
    t.io.readFile = (p) => Promise.resolve(readFileSync(p, 'utf8'));
    const logs: string[] = [];
    // A real stream: pino-pretty pipes into it.
    t.io.logDestination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        logs.push(chunk.toString());
        callback();
      },
    });
    let app: App | undefined;
    t.io.onStarted = (a) => {
      app = a;
    };
    const done = runCommand(t.io);
    // Waits (not timing assertions): a busy CI machine may need a while to start both servers.
    for (let i = 0; i < 400 && !app; i++) await new Promise((r) => setTimeout(r, 50));
    if (!app) throw new Error(`the demo did not start: ${t.err.join(' ')}`);
    const stop = async (): Promise<number> => {
      ac.abort();
      return done;
    };
    return { ...t, app, logs, stop };
  }

  it('serves /metrics for the simulated fleet, prints the next steps and stops cleanly when signalled', async () => {
    const d = await demo(['--nodes', '12', '--web.listen-address', '127.0.0.1:0']);
    const url = String.raw`http://127\.0\.0\.1:\d+`;
    expect(d.out[0]).toMatch(
      new RegExp(
        String.raw`^cribl-exporter demo: metrics at ${url}/metrics \(simulated leader ${url}/api/v1, 12 nodes\)$`,
      ),
    );
    // The next steps: the status page, the simulator's admin API, how to stop, a scrape config for this address.
    const text = d.out.join('\n');
    expect(text).toContain(`Status page       ${d.app.url}/\n`);
    expect(text).toMatch(new RegExp(String.raw`Simulated leader  ${url}/_sim \(its admin API`));
    expect(text).toContain('Stop              Ctrl-C');
    expect(text).toContain(`- targets: ['${new URL(d.app.url).host}']`);
    // What the default scenario shows, said once.
    expect(text).toContain('Within two minutes it shows nodes disconnected');
    expect(text).toContain('A Cribl.Cloud workspace beside it');
    const admin = /(http:\S+\/_sim) /.exec(text)?.[1];
    expect((await request(`${admin}/stats`)).statusCode).toBe(200);
    let body = '';
    const settled = (b: string): boolean =>
      /^cribl_node_health_up\{[^}]*\} 0$/m.test(b) && /^cribl_node_connected\{[^}]*\} 0$/m.test(b);
    for (let i = 0; i < 300 && !settled(body); i++) {
      await new Promise((r) => setTimeout(r, 100));
      body = await (await request(d.app.metricsUrl)).body.text();
    }
    // The 12 nodes of the on-prem leader, and the 4 of the Cribl.Cloud workspace beside it.
    expect(body.match(/^cribl_node_info\{[^}]*leader="onprem"/gm)).toHaveLength(12);
    expect(body.match(/^cribl_node_info\{[^}]*workspace="main"/gm)).toHaveLength(4);
    expect(body).toMatch(/^cribl_workspace_info\{workspace="staging",state="Provisioning"\} 1$/m);
    // The demo scenario puts nodes in every state: some do not answer, some answer shutting down or standby.
    expect(body).toMatch(/^cribl_node_health_up\{[^}]*\} 0$/m);
    expect(body).toMatch(/^cribl_node_connected\{[^}]*\} 0$/m);
    // The leader's troubles from the first seconds: uncommitted changes, the licence two days from expiry.
    expect(body).toMatch(/^cribl_group_uncommitted_changes\{[^}]*group="prod-east"\} 3$/m);
    const expiry = Number(/^cribl_license_expiry_timestamp_seconds\{leader="onprem"[^}]*\} (\S+)$/m.exec(body)?.[1]);
    expect(expiry - Date.now() / 1000).toBeLessThan(3 * 86400);
    expect(await d.stop()).toBe(0);
    await expect(request(d.app.metricsUrl)).rejects.toThrow();
  }, 90_000);

  it('logs in the pretty format unless --log.format says otherwise', async () => {
    const pretty = await demo(['--nodes', '1', '--web.listen-address', '127.0.0.1:0']);
    expect(await pretty.stop()).toBe(0);
    const line = pretty.logs.join('').split('\n')[0] ?? '';
    expect(line).toMatch(/INFO.*cribl-exporter listening/);
    expect(() => JSON.parse(line) as unknown).toThrow();

    const json = await demo(['--nodes', '1', '--web.listen-address', '127.0.0.1:0', '--log.format', 'json']);
    expect(await json.stop()).toBe(0);
    expect((JSON.parse(json.logs[0]!) as { msg: string }).msg).toBe('cribl-exporter listening');
  });

  it.each<[string, string[], Record<string, string>, RegExp]>([
    // Loopback by default: a demo on every interface of a laptop would be a surprise.
    ['its default: loopback', [], {}, /^http:\/\/127\.0\.0\.1:9864$/],
    ['the environment', [], { CRIBL_WEB_LISTEN_ADDRESS: ':0' }, /^http:\/\/localhost:\d+$/],
    ["the image's demo default", [], { CRIBL_DEMO_LISTEN_ADDRESS: ':0' }, /^http:\/\/localhost:\d+$/],
    [
      'the setting over the demo default',
      [],
      { CRIBL_DEMO_LISTEN_ADDRESS: ':0', CRIBL_WEB_LISTEN_ADDRESS: '127.0.0.1:0' },
      /^http:\/\/127\.0\.0\.1:\d+$/,
    ],
    [
      'the flag over the environment',
      ['--web.listen-address', '127.0.0.1:0'],
      { CRIBL_WEB_LISTEN_ADDRESS: ':0' },
      /^http:\/\/127\.0\.0\.1:\d+$/,
    ],
    // The demo's defaults sit below the config file too.
    [
      'a config file',
      [],
      { CRIBL_CONFIG_FILE: DEMO_CONFIG, CRIBL_DEMO_LISTEN_ADDRESS: ':0' },
      /^http:\/\/127\.0\.0\.1:\d+$/,
    ],
  ])('listens where %s says', async (_name, argv, env, expected) => {
    // The first case needs the documented port itself; another demo on this machine may hold it.
    if (argv.length === 0 && Object.keys(env).length === 0 && !(await portFree(9864))) return;
    const d = await demo(['--nodes', '1', ...argv], env);
    expect(d.app.url).toMatch(expected);
    expect(await d.stop()).toBe(0);
  });
});

describe('runCommand: demo settings errors', () => {
  it('a CRIBL_DEMO_LISTEN_ADDRESS that is not host:port is named, exit 2', async () => {
    const t = io(['demo'], { CRIBL_DEMO_LISTEN_ADDRESS: 'everywhere' });
    expect(await runCommand(t.io)).toBe(2);
    expect(t.err).toEqual([
      expect.stringMatching(/^cribl-exporter demo: CRIBL_DEMO_LISTEN_ADDRESS: "everywhere" must be/),
    ]);
  });
});

/** Whether a TCP port on 127.0.0.1 can be bound now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

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
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      // 0: the shutdown ended within its 5 s grace period (past it the process exits 1 by its own timer,
      // src/signals.ts); the time this test sees on a busy machine is no measure of it.
      expect(code).toBe(0);
    } finally {
      await sim.close();
    }
  });
});
