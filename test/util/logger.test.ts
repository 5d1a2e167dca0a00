import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/parse.js';
import { censorSecrets, createLogger, REDACT_PATHS } from '../../src/util/logger.js';

function sink(): { stream: Writable; text: () => string } {
  let out = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out += chunk.toString();
      cb();
    },
  });
  return { stream, text: () => out };
}

const SECRET = 'sup3r-s3cret';

// Every key the redaction list promises to cover, at the depths our log calls use.
const secretObject = {
  token: SECRET,
  password: SECRET,
  client_secret: SECRET,
  access_token: SECRET,
  authorization: `Bearer ${SECRET}`,
  CRIBL_TOKEN: SECRET,
  auth: { token: SECRET, password: SECRET, clientSecret: SECRET, refresh_token: SECRET, secret: SECRET },
  leader: { auth: { accessToken: SECRET, password: SECRET } },
  headers: { authorization: `Bearer ${SECRET}`, cookie: SECRET, 'set-cookie': SECRET, 'proxy-authorization': SECRET },
  req: { headers: { Authorization: `Bearer ${SECRET}` } },
  err: { request: { headers: { authorization: `Bearer ${SECRET}` } } },
  deep: { a: { b: { c: { d: { apiKey: SECRET, CRIBL_CLIENT_SECRET: SECRET, x_auth_token: SECRET } } } } },
  list: [{ password: SECRET }, { ok: 1 }],
  node: 'worker-01',
};

describe('createLogger', () => {
  it('writes JSON lines with level names and never the secrets', () => {
    const out = sink();
    const log = createLogger({ level: 'info', format: 'json' }, out.stream);
    log.info(secretObject, 'polled');
    const line = JSON.parse(out.text()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'info', msg: 'polled', node: 'worker-01', token: '[redacted]' });
    expect(line).toMatchObject({ auth: { clientSecret: '[redacted]' }, leader: { auth: { password: '[redacted]' } } });
    expect(line).toMatchObject({
      headers: { 'set-cookie': '[redacted]' },
      err: { request: { headers: { authorization: '[redacted]' } } },
    });
    expect(typeof line.time).toBe('string');
    expect(out.text()).not.toContain(SECRET);
  });

  it('redacts the secrets of a whole Config', () => {
    const out = sink();
    const config = parseConfig({
      argv: [
        '--leader.url=https://l/api/v1',
        '--cloud.discover-workspaces',
        '--cloud.organization=o',
        '--cloud.client-id=c',
      ],
      env: { CRIBL_CLIENT_SECRET: SECRET },
      readFile: () => '',
    });
    expect(config.leaders[0]!.auth).toMatchObject({ clientSecret: SECRET });
    const log = createLogger({ level: 'info', format: 'json' }, out.stream);
    log.info({ config }, 'starting');
    log.info(config, 'starting');
    expect(out.text()).toContain('"clientSecret":"[redacted]"');
    expect(out.text()).not.toContain(SECRET);
  });

  it('redacts in child loggers too, bindings included', () => {
    const out = sink();
    const log = createLogger({ level: 'info', format: 'json' }, out.stream);
    log.child({ leader: 'prod', auth: { token: SECRET } }).warn({ password: SECRET }, 'login failed');
    expect(out.text()).toContain('"password":"[redacted]"');
    expect(out.text()).toContain('"leader":"prod"');
    expect(out.text()).not.toContain(SECRET);
  });

  it('leaves the logged object untouched', () => {
    const out = sink();
    const object = { auth: { token: SECRET }, headers: { authorization: SECRET } };
    createLogger({ level: 'info', format: 'json' }, out.stream).info(object, 'x');
    expect(object).toEqual({ auth: { token: SECRET }, headers: { authorization: SECRET } });
  });

  it('writes pretty lines synchronously and never the secrets', () => {
    const out = sink();
    const log = createLogger({ level: 'debug', format: 'pretty' }, out.stream);
    log.debug(secretObject, 'polled');
    expect(out.text()).toContain('polled');
    expect(out.text()).toContain('worker-01');
    expect(out.text()).toContain('[redacted]');
    expect(out.text()).not.toContain(SECRET);
  });

  it('writes pretty lines to a bare { write } destination too (what commands are given in tests)', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', format: 'pretty' }, { write: (s: string) => void lines.push(s) });
    log.info('pretty and plain');
    expect(lines.join('')).toMatch(/INFO.*pretty and plain/);
  });

  it.each([
    ['warn', 0],
    ['info', 1],
    ['debug', 2],
  ] as const)('at level %s writes %d of info and debug', (level, lines) => {
    const out = sink();
    const log = createLogger({ level, format: 'json' }, out.stream);
    log.info('a');
    log.debug('b');
    expect(out.text().split('\n').filter(Boolean)).toHaveLength(lines);
  });

  it('gives pino static redaction paths only (leading wildcards cost ~30x per line)', () => {
    expect(REDACT_PATHS).toContain('req.headers["set-cookie"]');
    expect(REDACT_PATHS).toContain('auth.token');
    expect(REDACT_PATHS.filter((p) => p.includes('*'))).toEqual([]);
  });
});

describe('censorSecrets', () => {
  it.each<[string, unknown, unknown]>([
    ['top-level token', { token: 'x', mode: 'token' }, { token: '[redacted]', mode: 'token' }],
    [
      'suffixes in any case',
      { clientSecret: 'x', CRIBL_PASSWORD: 'x', refresh_token: 'x' },
      { clientSecret: '[redacted]', CRIBL_PASSWORD: '[redacted]', refresh_token: '[redacted]' },
    ],
    [
      'headers',
      { 'Set-Cookie': ['a'], 'proxy-authorization': 'x', accept: 'json' },
      { 'Set-Cookie': '[redacted]', 'proxy-authorization': '[redacted]', accept: 'json' },
    ],
    ['nested in arrays', [{ a: [{ password: 'x' }] }], [{ a: [{ password: '[redacted]' }] }]],
    ['whole object values', { token: { value: 'x' } }, { token: '[redacted]' }],
    [
      'look-alike keys stay',
      { tokenUrl: 'u', tokenFile: 'f', tokens: 3, secretFile: 's' },
      { tokenUrl: 'u', tokenFile: 'f', tokens: 3, secretFile: 's' },
    ],
    ['undefined stays undefined', { token: undefined }, { token: undefined }],
    ['scalars', 'token', 'token'],
  ])('%s', (_name, input, output) => {
    expect(censorSecrets(input)).toEqual(output);
  });

  it('returns the same object when there is nothing to censor', () => {
    const clean = { a: { b: [1, 2, { c: 'd' }] } };
    expect(censorSecrets(clean)).toBe(clean);
  });
});
