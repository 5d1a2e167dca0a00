import { describe, expect, it } from 'vitest';
import { AuthError } from '../../src/auth/errors.js';
import { pino } from 'pino';
import { readSecretFile, recheckSecretFile } from '../../src/auth/secrets.js';
import { REDACT_PATHS } from '../../src/util/logger.js';
import { captureLogger } from './helpers.js';

describe('the process logger', () => {
  it('redacts secret keys at every depth, in the fields and the bindings', () => {
    const { logger, lines } = captureLogger();
    logger.info(
      {
        password: 's1',
        auth: { clientSecret: 's2', token: 's3' },
        config: { leaders: [{ auth: { password: 's4' } }] },
        req: { headers: { authorization: 'Bearer s5', 'proxy-authorization': 'Basic s6' } },
        body: { access_token: 's7', client_secret: 's8' },
        username: 'admin',
      },
      'hello',
    );
    logger.child({ auth: { password: 's9' } }).info('child');
    const out = lines.join('');
    for (const s of ['s1', 's2', 's3', 's4', 's5', 's6', 's7', 's8', 's9']) expect(out).not.toContain(`"${s}"`);
    expect(out).not.toContain('Bearer s5');
    expect(out).toContain('"username":"admin"');
    expect(out).toContain('[redacted]');
  });

  it('REDACT_PATHS is a list pino accepts', () => {
    expect(() => pino({ redact: [...REDACT_PATHS] })).not.toThrow();
    expect(REDACT_PATHS).toContain('password');
  });
});

describe('readSecretFile', () => {
  const files: Record<string, string> = { '/s/ok': 'pa ss\n', '/s/crlf': 'x\r\n', '/s/empty': '\n' };
  const readFile = (p: string): Promise<string> => {
    const v = files[p];
    if (v === undefined) return Promise.reject(Object.assign(new Error(`ENOENT: open '${p}'`), { code: 'ENOENT' }));
    return Promise.resolve(v);
  };

  it.each([
    ['/s/ok', 'pa ss'],
    ['/s/crlf', 'x'],
  ])('%s → %j (only trailing line breaks are stripped)', async (path, want) => {
    expect(await readSecretFile(readFile, path, '--leader.password-file', 'login')).toBe(want);
  });

  it.each([
    ['/s/empty', '--leader.password-file /s/empty is empty'],
    ['/s/missing', 'cannot read --leader.password-file /s/missing: ENOENT'],
  ])('%s fails naming the setting and the file', async (path, message) => {
    let caught: unknown;
    try {
      await readSecretFile(readFile, path, '--leader.password-file', 'login');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(AuthError);
    expect((caught as AuthError).message).toBe(message);
    expect((caught as AuthError).reason).toBe('file_unreadable');
  });
});

describe('recheckSecretFile (SIGHUP)', () => {
  it('logs that a readable file will be used, and why an unreadable one cannot, never its content', async () => {
    const { logger, lines } = captureLogger();
    const files: Record<string, string> = { '/pw': 'hunter2\n', '/empty': '' };
    const readFile = (p: string) => Promise.resolve(files[p] ?? '');
    await recheckSecretFile(readFile, '/pw', '--leader.password-file', 'login', logger);
    await recheckSecretFile(readFile, '/empty', '--leader.password-file', 'login', logger);
    const out = lines.join('');
    expect(out).toContain('--leader.password-file re-read; the next login uses it');
    expect(out).toContain('--leader.password-file /empty is empty');
    expect(out).not.toContain('hunter2');
  });
});
