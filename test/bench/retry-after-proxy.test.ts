import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRetryAfterProxy } from '../../bench/lib/retry-after-proxy.mjs';

describe('startRetryAfterProxy', () => {
  let leader: Server;
  let proxy: Awaited<ReturnType<typeof startRetryAfterProxy>>;
  let now = 1_000_000;
  const seen: { url?: string; auth?: string | string[] }[] = [];
  beforeAll(async () => {
    leader = createServer((req, res) => {
      seen.push({ url: req.url, auth: req.headers.authorization });
      if (req.url?.startsWith('/limited')) res.writeHead(429, { 'retry-after': '1' }).end('slow down');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => leader.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(leader.address() as AddressInfo).port}`;
    proxy = await startRetryAfterProxy(origin, { retryAfterS: 2, now: () => now });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise<void>((resolve) => leader.close(() => resolve()));
  });

  it('passes answers through, gives every 429 the fixed Retry-After, and counts requests inside it', async () => {
    const get = async (path: string) => {
      const r = await request(`${proxy.url}${path}`, { headers: { authorization: 'Bearer t' } });
      return { status: r.statusCode, retryAfter: r.headers['retry-after'], body: await r.body.text() };
    };
    expect(await get('/api/v1/w/n1/health')).toEqual({ status: 200, retryAfter: undefined, body: '{"ok":true}' });
    expect(await get('/limited')).toEqual({ status: 429, retryAfter: '2', body: 'slow down' });
    now += 1500;
    await get('/api/v1/health');
    now += 600;
    await get('/api/v1/health');
    expect(proxy.stats()).toEqual({ retryAfterS: 2, rewritten: 1, violations: 1 });
    expect(seen[0]).toEqual({ url: '/api/v1/w/n1/health', auth: 'Bearer t' });
  });
});
