import { describe, expect, it } from 'vitest';
import { errorCode, errorLabel } from '../../src/util/errors.js';

const withCode = (code: string) => Object.assign(new Error('x'), { code });

describe('errorCode', () => {
  it.each([
    [withCode('ENOENT'), 'ENOENT'],
    [new Error('wrapped', { cause: withCode('ECONNRESET') }), 'ECONNRESET'],
    [new AggregateError([new Error('none'), withCode('ECONNREFUSED')]), 'ECONNREFUSED'],
    [new Error('no code'), undefined],
    ['a string', undefined],
  ])('%s → %s', (err, code) => expect(errorCode(err)).toBe(code));

  it('does not loop on a cause cycle', () => {
    const a: { cause?: unknown } = {};
    a.cause = a;
    expect(errorCode(a)).toBeUndefined();
  });
});

describe('errorLabel', () => {
  it('is the code, else the class name, never the message (which may quote a secret)', () => {
    expect(errorLabel(withCode('EACCES'))).toBe('EACCES');
    expect(errorLabel(new TypeError('secret-value'))).toBe('TypeError');
    expect(errorLabel(42)).toBe('unknown error');
  });
});
