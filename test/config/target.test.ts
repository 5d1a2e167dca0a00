import { describe, expect, it } from 'vitest';
import { targetOf } from '../../src/config/types.js';

describe('targetOf: is the leader a Cribl.Cloud workspace', () => {
  it.each([
    ['https://main-acme.cribl.cloud/api/v1', 'token', true],
    ['https://main-acme.cribl-gov.cloud/api/v1', 'token', true],
    ['https://MAIN-ACME.CRIBL.CLOUD/api/v1', 'none', true],
    ['https://leader.example.com:9000/api/v1', 'cloud', true],
    ['https://leader.example.com:9000/api/v1', 'token', false],
    ['https://cribl.cloud.example.com/api/v1', 'token', false],
    ['http://127.0.0.1:9000/api/v1', 'basic', false],
  ] as const)('%s with auth %s: %s', (url, mode, cloud) => {
    expect(targetOf({ url, auth: { mode } as never })).toEqual({ cloud });
  });
});
