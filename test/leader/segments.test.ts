/**
 * Every node id becomes exactly one path segment of the request the leader receives. A raw node:http server
 * records the request line as it came off the wire (no router, no URL normalisation in between), and the real
 * leader client sends the health and metadata polls the collectors build.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { segment } from '@cribl-exporter/api/routes';
import { healthRequest } from '../../src/collectors/node-health/index.js';
import { metadataRequest } from '../../src/collectors/node-metadata/index.js';
import { RequestBudget } from '../../src/leader/budget.js';
import { createLeaderClient, type NamedLeaderClient } from '../../src/leader/client.js';
import { systemClock } from '@cribl-exporter/api/clock';

let server: Server;
let client: NamedLeaderClient;
/** Request lines as the server read them: `GET /api/v1/w/…/health HTTP/1.1`. */
const lines: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    lines.push(`${req.method} ${req.url} HTTP/${req.httpVersion}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      req.url?.endsWith('/health')
        ? JSON.stringify({ status: 'healthy', startTime: 1 })
        : JSON.stringify({ count: 1, items: [{ timestamp: 1 }] }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = createLeaderClient({
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    name: 'raw',
    dispatcher: new Agent(),
    budget: new RequestBudget({ maxRps: 1000, burst: 1000, maxConcurrency: 4, clock: systemClock }),
    clock: systemClock,
    random: () => 0.5,
    logger: pino({ level: 'silent' }),
  });
});

afterAll(async () => {
  await client.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('node ids as one path segment, as the leader receives them', () => {
  it.each([
    ['plain', 'node-1', 'node-1'],
    ['space', 'a b', 'a%20b'],
    ['slash', 'slash/inside', 'slash%2Finside'],
    ['question mark', '?query=1&x', '%3Fquery%3D1%26x'],
    ['hash', 'x#frag', 'x%23frag'],
    ['percent', '100%', '100%25'],
    ['looks encoded', '%2F-looks-encoded', '%252F-looks-encoded'],
    ['dot', '.', '%2E'],
    ['dot dot', '..', '%2E%2E'],
    ['three dots (a name, not a dot segment)', '...', '...'],
    ['traversal inside', 'dots/../up', 'dots%2F..%2Fup'],
    ['unicode', 'ünï-cødé-東京', '%C3%BCn%C3%AF-c%C3%B8d%C3%A9-%E6%9D%B1%E4%BA%AC'],
    ['backslash', 'back\\slash', 'back%5Cslash'],
    ['double quotes', '"quoted"', '%22quoted%22'],
    ['single quote', "it's", "it's"],
    ['brackets', '[x]{y}', '%5Bx%5D%7By%7D'],
    ['newline and tab', 'a\nb\tc', 'a%0Ab%09c'],
  ])('%s: %j', async (_name, id, encoded) => {
    expect(segment(id)).toBe(encoded);
    lines.length = 0;
    const health = await client.request(healthRequest(id, Date.now() + 5_000));
    const metadata = await client.request(metadataRequest(id, Date.now() + 5_000));
    expect(health.ok, JSON.stringify(health)).toBe(true);
    expect(metadata.ok, JSON.stringify(metadata)).toBe(true);
    expect(lines).toEqual([
      `GET /api/v1/w/${encoded}/health HTTP/1.1`,
      `GET /api/v1/w/${encoded}/edge/metadata HTTP/1.1`,
    ]);
    // Exactly one segment between /w/ and the route, whatever the id.
    expect(lines[0]!.split(' ')[1]!.split('/')).toHaveLength(6);
  });
});
