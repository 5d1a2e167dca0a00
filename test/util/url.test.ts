import { describe, expect, it } from 'vitest';
import { describeUrl, withoutCredentials } from '../../src/util/url.js';

describe('withoutCredentials', () => {
  it.each([
    ['http://user:pa55@proxy.corp:3128', 'http://proxy.corp:3128'],
    ['http://proxy.corp:3128', 'http://proxy.corp:3128'],
    ['https://tok@proxy.corp/', 'https://proxy.corp/'],
    ['not a url', 'not a url'],
  ])('%s → %s', (url, want) => {
    expect(withoutCredentials(url)).toBe(want);
  });
});

describe('describeUrl', () => {
  it.each([
    ['https://u:p@login.cribl.cloud/oauth/token?x=1#y', 'https://login.cribl.cloud/oauth/token'],
    ['nonsense', '(unparseable URL)'],
  ])('%s → %s', (url, want) => expect(describeUrl(url)).toBe(want));
});
