import { describe, expect, it } from 'vitest';
import { decodeJwtExpiry, normalizeToken } from '../../src/auth/jwt.js';
import { fakeJwt } from './helpers.js';

describe('decodeJwtExpiry', () => {
  it.each([
    ['a JWT with exp', fakeJwt(1_900_000_000), 1_900_000_000_000],
    ['a JWT without exp', fakeJwt(undefined), undefined],
    ['a JWT with a string exp', fakeJwt(undefined, { exp: '1900000000' }), undefined],
    ['a JWT with exp 0', fakeJwt(0), undefined],
    ['not a JWT', 'opaque-token-value', undefined],
    ['two parts', 'aaa.bbb', undefined],
    ['garbage payload', 'aaa.!!!.ccc', undefined],
    ['a payload that is JSON but not an object', `x.${Buffer.from('42').toString('base64url')}.y`, undefined],
  ])('%s', (_name, token, want) => {
    expect(decodeJwtExpiry(token)).toBe(want);
  });
});

describe('normalizeToken', () => {
  it.each([
    ['abc', 'abc'],
    ['  abc\n', 'abc'],
    ['Bearer abc', 'abc'],
    ['bearer   abc\r\n', 'abc'],
    ['Bearerabc', 'Bearerabc'],
    ['', ''],
    ['\n', ''],
  ])('%j → %j', (raw, want) => {
    expect(normalizeToken(raw)).toBe(want);
  });
});
