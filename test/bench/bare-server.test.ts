import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Children } from '../../bench/lib/children.mjs';
import { scrapeRounds, timedGet } from '../../bench/lib/http.mjs';

// The bench's child handling and scraping, against its bare node:http server (127.0.0.1:0).
const children = new Children();
const dir = mkdtempSync(join(tmpdir(), 'bench-test-'));
const identity = Buffer.from('# TYPE up gauge\nup 1\n'.repeat(1000));
const gzipped = gzipSync(identity);
let url = '';

beforeAll(async () => {
  writeFileSync(join(dir, 'body.txt'), identity);
  writeFileSync(join(dir, 'body.txt.gz'), gzipped);
  const bare = children.fork('bare server', new URL('../../bench/bare-server.mjs', import.meta.url).pathname, [
    join(dir, 'body.txt'),
    join(dir, 'body.txt.gz'),
    'text/plain; version=0.0.4',
  ]);
  const ready = (await bare.waitForMessage((m) => (m as { ready?: boolean }).ready === true, 20_000)) as {
    url: string;
  };
  url = ready.url;
});

afterAll(async () => {
  await children.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

describe('bare server and scrapes', () => {
  it('listens on loopback only', () => {
    expect(new URL(url).hostname).toBe('127.0.0.1');
  });

  it.each([
    ['identity', identity, undefined],
    ['gzip', gzipped, 'gzip'],
  ])('sends the captured %s bytes as they are', async (encoding, bytes, contentEncoding) => {
    const agent = new Agent({ connections: 1 });
    const r = await timedGet(url, { dispatcher: agent, encoding, keep: true });
    await agent.close();
    expect(r.body!.equals(bytes)).toBe(true);
    expect(r.headers['content-encoding']).toBe(contentEncoding);
    expect(r.ttfbMs).toBeLessThanOrEqual(r.totalMs);
  });

  it('scrapes in interleaved rounds of 2 concurrent requests', async () => {
    const got = await scrapeRounds(
      [
        { name: 'a', url },
        { name: 'b', url },
      ],
      { encoding: 'gzip', minRounds: 3, maxRounds: 3, warmup: 1 },
    );
    expect(got.get('a')!.totalMs).toHaveLength(6);
    expect(got.get('b')!.ttfbMs).toHaveLength(6);
    expect(got.get('a')!.bytes).toBe(gzipped.length);
  });

  it('refuses to send traffic off the machine', async () => {
    const agent = new Agent({ connections: 1 });
    await expect(timedGet('http://192.0.2.1/metrics', { dispatcher: agent, encoding: 'gzip' })).rejects.toThrow(
      /127\.0\.0\.1 only/,
    );
    await agent.close();
  });
});

describe('children', () => {
  it('kills every child it started, and a killed child rejects its waiters', async () => {
    const c = new Children();
    const child = c.fork('idle', new URL('../../bench/bare-server.mjs', import.meta.url).pathname, [
      join(dir, 'body.txt'),
      join(dir, 'body.txt.gz'),
      'text/plain',
    ]);
    await child.waitForMessage((m) => (m as { ready?: boolean }).ready === true, 20_000);
    const waiting = child.waitForLine((l) => l === 'never', 20_000);
    c.killAll();
    await child.done;
    expect(child.exited).toBe(true);
    await expect(waiting).rejects.toThrow(/exited/);
  });
});
