import { mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthConfigError, AuthError } from '../../src/auth/errors.js';
import { createStaticTokenProvider } from '../../src/auth/static-token.js';
import { readFileSafely } from '../../src/util/files.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { captureLogger, fakeJwt, recordingMetrics } from './helpers.js';

const readUtf8 = readFileSafely;

describe('static token: literal', () => {
  it('returns the trimmed token without "Bearer " and cannot renew it', async () => {
    const { logger } = captureLogger();
    const p = createStaticTokenProvider(
      { token: ' Bearer abc \n' },
      { clock: new FakeClock(), readFile: readUtf8, logger },
    );
    expect(await p.token()).toBe('abc');
    expect(p.invalidate()).toBe(false);
    expect(await p.token()).toBe('abc');
  });

  it('a Latin-1 character can be sent in a header, so it is kept', async () => {
    const { logger } = captureLogger();
    const p = createStaticTokenProvider(
      { token: 'caf\u00e9-tok' },
      { clock: new FakeClock(), readFile: readUtf8, logger },
    );
    expect(await p.token()).toBe('caf\u00e9-tok');
  });

  it('reports the expiry of a JWT token', () => {
    const metrics = recordingMetrics();
    const p = createStaticTokenProvider(
      { token: fakeJwt(1_900_000_000) },
      { clock: new FakeClock(), readFile: readUtf8, logger: captureLogger().logger, metrics },
    );
    expect(p.expiresAt()).toBe(1_900_000_000_000);
    expect(metrics.expiries).toEqual([['token', 1_900_000_000_000]]);
  });

  it.each([
    [{}, 'token auth needs CRIBL_TOKEN or --leader.token-file'],
    [{ token: 'a', tokenFile: '/f' }, 'CRIBL_TOKEN and --leader.token-file are both set: use one of them'],
    [{ token: '  ' }, 'CRIBL_TOKEN is empty'],
    [
      { token: 'abc\u20acdef' },
      'CRIBL_TOKEN contains a character that cannot be sent in an HTTP header (beyond Latin-1: a pasted quote or ' +
        'symbol?)',
    ],
    [{ token: 'abc\u0000def' }, 'CRIBL_TOKEN contains a control character (a line break inside the token?)'],
  ])('rejects %j with a message naming the settings', (cfg, message) => {
    expect(() =>
      createStaticTokenProvider(cfg, { clock: new FakeClock(), readFile: readUtf8, logger: captureLogger().logger }),
    ).toThrow(new AuthConfigError(message));
  });
});

describe('static token: file', () => {
  const files = new Map<string, string>();
  let reads = 0;
  const readFile = (p: string): Promise<string> => {
    reads++;
    const v = files.get(p);
    if (v === undefined) return Promise.reject(Object.assign(new Error(`ENOENT: open '${p}'`), { code: 'ENOENT' }));
    return Promise.resolve(v);
  };
  afterEach(() => {
    files.clear();
    reads = 0;
  });

  it('re-reads the file after the reload interval, so a rotated secret is used without a restart', async () => {
    const clock = new FakeClock();
    const { logger, lines } = captureLogger();
    files.set('/var/run/secrets/token', 'first-token\n');
    const p = createStaticTokenProvider(
      { tokenFile: '/var/run/secrets/token' },
      { clock, readFile, logger, reloadIntervalMs: 10_000 },
    );
    expect(await p.token()).toBe('first-token');
    files.set('/var/run/secrets/token', 'second-token\n');
    await clock.advance(9_999);
    expect(await p.token()).toBe('first-token');
    expect(reads).toBe(1);
    await clock.advance(1);
    expect(await p.token()).toBe('second-token');
    expect(lines.join('')).toContain('token file changed');
    expect(lines.join('')).not.toContain('second-token');
  });

  it('after a 401 re-reads at once and says whether the token changed', async () => {
    const clock = new FakeClock();
    files.set('/t', 'old');
    const p = createStaticTokenProvider({ tokenFile: '/t' }, { clock, readFile, logger: captureLogger().logger });
    expect(await p.token()).toBe('old');
    expect(await p.invalidate('old')).toBe(false);
    files.set('/t', 'new');
    expect(await p.invalidate('old')).toBe(true);
    expect(await p.token()).toBe('new');
  });

  it.each([
    ['missing', undefined, 'cannot read --leader.token-file /t: ENOENT'],
    ['empty', ' \n', '--leader.token-file /t is empty'],
    [
      'CR/LF inside the token',
      'abc\r\nX-Injected: 1\n',
      '--leader.token-file /t contains a control character (a line break inside the token?)',
    ],
    [
      'typographic quote inside the token',
      '\u201ctok\u201d\n',
      '--leader.token-file /t contains a character that cannot be sent in an HTTP header (beyond Latin-1: a pasted ' +
        'quote or symbol?)',
    ],
  ])('a %s file fails naming the file, counts a failure, warns once per problem', async (_n, content, message) => {
    const clock = new FakeClock();
    const metrics = recordingMetrics();
    const { logger, records } = captureLogger();
    if (content !== undefined) files.set('/t', content);
    const p = createStaticTokenProvider(
      { tokenFile: '/t' },
      { clock, readFile, logger, metrics, reloadIntervalMs: 1_000 },
    );
    await expect(p.token()).rejects.toThrow(new AuthError('token', 'file_unreadable', message));
    await clock.advance(1_000);
    await expect(p.token()).rejects.toThrow(message);
    expect(metrics.failures).toEqual([
      ['token', 'file_unreadable'],
      ['token', 'file_unreadable'],
    ]);
    expect(records().filter((r) => r.msg === message)).toHaveLength(1);
    files.set('/t', 'recovered');
    await clock.advance(1_000);
    expect(await p.token()).toBe('recovered');
  });

  it('follows a Kubernetes-style symlink swap on a real file system', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-'));
    try {
      // kubelet layout: token -> ..data/token, ..data -> ..<timestamp>; rotation swaps ..data atomically.
      mkdirSync(join(dir, '..v1'));
      writeFileSync(join(dir, '..v1', 'token'), 'v1-token\n');
      symlinkSync('..v1', join(dir, '..data'));
      symlinkSync(join('..data', 'token'), join(dir, 'token'));
      const clock = new FakeClock();
      const p = createStaticTokenProvider(
        { tokenFile: join(dir, 'token') },
        { clock, readFile: readUtf8, logger: captureLogger().logger, reloadIntervalMs: 5_000 },
      );
      expect(await p.token()).toBe('v1-token');

      mkdirSync(join(dir, '..v2'));
      writeFileSync(join(dir, '..v2', 'token'), 'v2-token\n');
      symlinkSync('..v2', join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
      rmSync(join(dir, '..v1'), { recursive: true });

      await clock.advance(5_000);
      expect(await p.token()).toBe('v2-token');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('static token: reload (SIGHUP)', () => {
  it('re-reads the file at once, before the interval, and logs it', async () => {
    const clock = new FakeClock();
    const files = new Map([['/t', 'one']]);
    const { logger, records } = captureLogger();
    const p = createStaticTokenProvider(
      { tokenFile: '/t' },
      { clock, readFile: (f) => Promise.resolve(files.get(f) ?? ''), logger, reloadIntervalMs: 60_000 },
    );
    expect(await p.token()).toBe('one');
    files.set('/t', 'two');
    await p.reload?.();
    expect(await p.token()).toBe('two');
    expect(records().map((r) => r.msg)).toEqual([
      'token file changed; using the new token',
      '--leader.token-file re-read',
    ]);
  });
});
