import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, REDACT_PATHS } from '../src/logger.js';

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
    expect(line).toMatchObject({ headers: { 'set-cookie': '[redacted]' }, err: { request: { headers: { authorization: '[redacted]' } } } });
    expect(typeof line.time).toBe('string');
    expect(out.text()).not.toContain(SECRET);
  });

  it('redacts in child loggers too', () => {
    const out = sink();
    createLogger({ level: 'info', format: 'json' }, out.stream).child({ leader: 'prod' }).warn({ password: SECRET }, 'login failed');
    expect(out.text()).toContain('"password":"[redacted]"');
    expect(out.text()).not.toContain(SECRET);
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

  it('lists header paths with bracket notation where the name has a dash', () => {
    expect(REDACT_PATHS).toContain('*.headers["set-cookie"]');
    expect(REDACT_PATHS).toContain('token');
  });
});
