import { describe, expect, it } from 'vitest';
import { describeUrl, withoutCredentials } from '../../src/util/url.js';

describe('withoutCredentials', () => {
  it.each([
    ['http://user:pa55@proxy.corp:3128', 'http://proxy.corp:3128'],
    ['http://proxy.corp:3128', 'http://proxy.corp:3128'],
    ['https://tok@proxy.corp/', 'https://proxy.corp/'],
    ['not a url', 'not a url'],
    // Credentials in the query or the fragment are hidden like those of the userinfo; other parameters stay.
    ['https://leader:9000/api/v1?token=abc123', 'https://leader:9000/api/v1?token=REDACTED'],
    ['https://leader/api/v1?a=1&access_token=abc123&b=2', 'https://leader/api/v1?a=1&access_token=REDACTED&b=2'],
    ['https://u:p@leader/api/v1?Password=abc123#x', 'https://leader/api/v1?Password=REDACTED#x'],
    ['https://leader/api/v1#id_token=abc123', 'https://leader/api/v1#id_token=REDACTED'],
    ['https://blob/x?sv=1&sig=abc123', 'https://blob/x?sv=1&sig=REDACTED'],
    [
      'https://leader/api/v1?client_secret=abc123;api_key=def',
      'https://leader/api/v1?client_secret=REDACTED;api_key=REDACTED',
    ],
    ['leader/api/v1?token=abc123', 'leader/api/v1?token=REDACTED'],
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
