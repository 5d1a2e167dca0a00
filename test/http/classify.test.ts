import { describe, expect, it } from 'vitest';
import { classifyError, classifyStatus } from '../../src/http/classify.js';
import { unsafePath } from '../../src/leader/client.js';

describe('classifyStatus', () => {
  it.each([
    [400, false, 'http_4xx', 'none', 'ok'],
    [401, false, 'unauthorized', 'none', 'ok'],
    [403, false, 'forbidden', 'none', 'ok'],
    [403, true, 'forbidden', 'none', 'ok'],
    [404, false, 'not_found', 'none', 'ok'],
    [404, true, 'not_found', 'none', 'ok'],
    [405, false, 'http_4xx', 'none', 'ok'],
    [415, false, 'http_4xx', 'none', 'ok'],
    [420, false, 'leader_unavailable', 'unavailable', 'overload'],
    [420, true, 'http_4xx', 'none', 'ok'],
    [429, false, 'throttled', 'pause', 'overload'],
    [429, true, 'throttled', 'pause', 'overload'],
    [500, false, 'http_5xx', 'none', 'neutral'],
    [502, false, 'http_5xx', 'backoff', 'neutral'],
    [503, false, 'throttled', 'pause', 'overload'],
    [504, false, 'http_5xx', 'backoff', 'timeout'],
    [502, true, 'http_5xx', 'none', 'neutral'],
    [504, true, 'http_5xx', 'none', 'neutral'],
    [599, false, 'http_5xx', 'none', 'neutral'],
    [301, false, 'redirect', 'none', 'ok'],
    [302, true, 'redirect', 'none', 'ok'],
    [308, false, 'redirect', 'none', 'ok'],
    [204, false, 'http_4xx', 'none', 'ok'],
  ] as const)('%i (nodeScoped %s) → %s, retry %s, outcome %s', (status, nodeScoped, reason, retry, outcome) => {
    expect(classifyStatus(status, { nodeScoped })).toEqual({ reason, retry, outcome });
  });
});

describe('classifyError', () => {
  const withCode = (code: string) => Object.assign(new Error('x'), { code });
  it.each([
    [withCode('ECONNREFUSED'), 'connect', 'backoff', 'ECONNREFUSED'],
    [withCode('ECONNRESET'), 'connect', 'backoff', 'ECONNRESET'],
    [withCode('UND_ERR_SOCKET'), 'connect', 'backoff', 'UND_ERR_SOCKET'],
    [withCode('ENOTFOUND'), 'connect', 'backoff', 'ENOTFOUND'],
    [withCode('UND_ERR_CONNECT_TIMEOUT'), 'timeout', 'backoff', 'UND_ERR_CONNECT_TIMEOUT'],
    [withCode('UND_ERR_HEADERS_TIMEOUT'), 'timeout', 'backoff', 'UND_ERR_HEADERS_TIMEOUT'],
    [withCode('UND_ERR_BODY_TIMEOUT'), 'timeout', 'backoff', 'UND_ERR_BODY_TIMEOUT'],
    [withCode('DEPTH_ZERO_SELF_SIGNED_CERT'), 'connect', 'none', 'DEPTH_ZERO_SELF_SIGNED_CERT'],
    [new Error('no code'), 'connect', 'none', 'UNKNOWN'],
    ['a string', 'connect', 'none', 'UNKNOWN'],
    [new Error('wrapped', { cause: withCode('ECONNRESET') }), 'connect', 'backoff', 'ECONNRESET'],
    [new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]), 'connect', 'backoff', 'ECONNREFUSED'],
  ])('%s → %s / %s', (err, reason, retry, code) => {
    expect(classifyError(err)).toMatchObject({ reason, retry, code });
  });
});

describe('unsafePath', () => {
  it.each([
    ['/products/stream/workers', undefined],
    ['/w/node%2F1/health', undefined],
    ['/w/...x/health', undefined],
    ['/w/a..b/health', undefined],
    ['/w/../health', 'dot segment'],
    ['/w/%2E%2E/health', undefined],
    ['/w/%2e/health', undefined],
    ['/w/.%2E/health', 'dot segment'],
    ['/w/%2e./health', 'dot segment'],
    ['/w/x/..', 'dot segment'],
    ['/w/x?y', 'raw ?, # or \\'],
    ['/w/x#y', 'raw ?, # or \\'],
    ['/w/x\\..\\y', 'raw ?, # or \\'],
    ['/w/x\ny', 'whitespace or control character'],
    ['w/x', 'must start with /'],
  ])('%j → %s', (path, why) => {
    expect(unsafePath(path)).toBe(why);
  });
});
