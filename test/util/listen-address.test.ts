import { describe, expect, it } from 'vitest';
import { parseListenAddress, urlHost } from '@cribl-exporter/api/listen-address';

describe('parseListenAddress', () => {
  it.each([
    ['127.0.0.1:9864', { host: '127.0.0.1', port: 9864 }],
    [':9864', { host: undefined, port: 9864 }],
    ['[::1]:0', { host: '::1', port: 0 }],
    ['localhost:80', { host: 'localhost', port: 80 }],
    ['0.0.0.0:9864', { host: '0.0.0.0', port: 9864 }],
  ])('%s', (address, expected) => {
    expect(parseListenAddress(address)).toEqual(expected);
  });

  it.each(['9864', 'host:', 'host:99999', '::1:80', '[zz]:80', 'a b:80', ''])('rejects %j in one line', (address) => {
    expect(() => parseListenAddress(address)).toThrow(`${JSON.stringify(address)} must be host:port`);
  });
});

describe('urlHost', () => {
  it.each([
    [undefined, 'localhost'],
    ['0.0.0.0', 'localhost'],
    ['::', 'localhost'],
    ['::1', '[::1]'],
    ['127.0.0.1', '127.0.0.1'],
  ])('%s → %s', (host, shown) => expect(urlHost(host)).toBe(shown));
});
