import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand, type CommandIo } from '../src/commands/index.js';
import { startSimulator } from '@cribl-exporter/simulator';
import { readFileSafely } from '../src/util/files.js';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fifo(name: string): string {
  const p = join(dir, name);
  execFileSync('mkfifo', [p]);
  return p;
}

/** The CLI as a child process, its output collected. */
function cli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--web.listen-address', '127.0.0.1:0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
  const until = async (what: RegExp, ms = 15_000): Promise<void> => {
    for (let waited = 0; !what.test(stdout) && child.exitCode === null && waited < ms; waited += 50) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(stdout).toMatch(what);
  };
  const url = (): string => {
    const m = /"url":"(http:\/\/[^"/]+)/.exec(stdout);
    if (!m?.[1]) throw new Error(`not listening yet: ${stdout}`);
    return m[1];
  };
  return { child, exited, until, url, out: () => stdout, err: () => stderr };
}

/**
 * SIGTERM and the exit code: 0 is a shutdown that ended within its grace period (5 s; past it the process exits 1,
 * src/signals.ts), a bound the process keeps by its own timer, not one this test measures on a busy machine.
 */
async function terminate(c: ReturnType<typeof cli>): Promise<{ code: number | null }> {
  c.child.kill('SIGTERM');
  const [code] = await c.exited;
  return { code };
}

describe('files that cannot hang the process', () => {
  it.each([
    ['a FIFO', () => fifo('token-fifo'), 'is a FIFO, not a regular file'],
    ['/dev/zero', () => '/dev/zero', 'is a device, not a regular file'],
  ])(
    '%s as --leader.token-file: a clear warning, /healthz answers, SIGTERM exits 0 within 5 s',
    async (_n, f, why) => {
      const sim = await startSimulator({ nodes: 3 });
      try {
        const tokenFile = f();
        const c = cli(['--leader.url', sim.baseUrl, '--leader.token-file', tokenFile]);
        await c.until(/cribl-exporter listening/);
        await c.until(new RegExp(`cannot read --leader.token-file ${tokenFile}: ${why}`));
        const res = await request(`${c.url()}/healthz`);
        expect(res.statusCode).toBe(200);
        await res.body.dump();
        const { code } = await terminate(c);
        expect(code).toBe(0);
      } finally {
        await sim.close();
      }
    },
    30_000,
  );

  it.each([
    ['a FIFO', () => fifo('web-fifo'), 'is a FIFO, not a regular file'],
    ['/dev/zero', () => '/dev/zero', 'is a device, not a regular file'],
  ])(
    '%s as --web.config.file: exit 2 with one line naming it',
    async (_n, f, why) => {
      const path = f();
      const c = cli(['--leader.url', 'http://127.0.0.1:9/api/v1', '--web.config.file', path], { CRIBL_TOKEN: 't' });
      const [code] = await c.exited;
      expect(code).toBe(2);
      expect(c.err()).toBe(`cribl-exporter: web config ${path}: ${why}\n`);
    },
    30_000,
  );
});

describe('signals', () => {
  it('SIGHUP re-reads the web config and the token file at once and never exits; SIGTERM then exits 0', async () => {
    const sim = await startSimulator({ nodes: 3 });
    try {
      const web = join(dir, 'web.yml');
      writeFileSync(web, `basic_auth_users:\n  alice: ${bcrypt.hashSync('pw', 4)}\n`);
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, `${sim.token}\n`);
      const c = cli(['--leader.url', sim.baseUrl, '--leader.token-file', tokenFile, '--web.config.file', web]);
      await c.until(/first discovery complete/);
      writeFileSync(web, `basic_auth_users:\n  bobby: ${bcrypt.hashSync('pw', 4)}\n`);
      c.child.kill('SIGHUP');
      await c.until(/SIGHUP: re-reading the web config and the credential files/);
      await c.until(/web config [^"]*web\.yml reloaded/);
      await c.until(/--leader.token-file re-read/);
      c.child.kill('SIGHUP');
      await new Promise((r) => setTimeout(r, 200));
      expect(c.child.exitCode).toBeNull();
      const auth = `Basic ${Buffer.from('bobby:pw').toString('base64')}`;
      const res = await request(`${c.url()}/metrics`, { headers: { authorization: auth } });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
      const { code } = await terminate(c);
      expect(code).toBe(0);
    } finally {
      await sim.close();
    }
  }, 30_000);
});

/** runCommand in this process, logs collected as JSON lines. */
function io(argv: string[], env: Record<string, string>) {
  const err: string[] = [];
  const logs: string[] = [];
  const value: CommandIo = {
    argv,
    env,
    stdout: () => undefined,
    stderr: (l) => err.push(l),
    readFile: readFileSafely,
    signal: new AbortController().signal,
    version: 't',
    nodejsVersion: process.version,
    logDestination: { write: (l: string) => void logs.push(l) },
  };
  return { io: value, err, logs };
}

describe('a bug', () => {
  it.each([
    ['an uncaught exception', 'throw new Error("injected bug")'],
    ['an unhandled rejection', 'void Promise.reject(new Error("injected bug"))'],
  ])(
    '%s ends the process with one line and exit 70, never a stack trace',
    async (_n, code) => {
      // Injected into the real CLI process once it runs (a leader that refuses connections keeps it running): set
      // off by a signal the test sends after the process said it listens, however long its start took.
      const bug = join(dir, `bug-${code.length}.mjs`);
      writeFileSync(bug, `process.on('SIGUSR2', () => { ${code}; });\n`);
      const c = cli(['--leader.url', 'http://127.0.0.1:9/api/v1'], {
        CRIBL_TOKEN: 't',
        NODE_OPTIONS: `--import=${bug}`,
      });
      await c.until(/listening/);
      c.child.kill('SIGUSR2');
      const [exit] = await c.exited;
      expect(exit).toBe(70);
      expect(c.err()).toMatch(
        /^cribl-exporter: internal error \(a bug, please report it\): injected bug( \(at [^)]+\))?\n$/,
      );
    },
    30_000,
  );
});

describe('the start', () => {
  it('a token with a line break in CRIBL_TOKEN is refused at start, in one line without the token', async () => {
    const t = io(['--leader.url', 'http://127.0.0.1:9/api/v1', '--web.listen-address', '127.0.0.1:0'], {
      CRIBL_TOKEN: 'abc\r\nX-Injected: 1',
    });
    expect(await runCommand(t.io)).toBe(2);
    expect(t.err).toEqual([
      'cribl-exporter: CRIBL_TOKEN contains a control character (a line break inside the token?)',
    ]);
  });

  it('a port in use fails before any leader request, without a second error about /metrics', async () => {
    const sim = await startSimulator({ nodes: 5 });
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const port = (taken.address() as AddressInfo).port;
      const t = io(['--leader.url', sim.baseUrl, '--web.listen-address', `127.0.0.1:${port}`], {
        CRIBL_TOKEN: sim.token,
      });
      expect(await runCommand(t.io)).toBe(1);
      expect(t.err).toHaveLength(1);
      expect(t.err[0]).toMatch(/--web\.listen-address "127\.0\.0\.1:\d+": listen EADDRINUSE/);
      await new Promise((r) => setTimeout(r, 300));
      expect(sim.stats().totalRequests).toBe(0);
      expect(t.logs.join('')).not.toContain('building /metrics failed');
    } finally {
      taken.close();
      await sim.close();
    }
  });
});
