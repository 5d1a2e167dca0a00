import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ENDPOINTS, type Endpoint } from '@cribl-exporter/api/routes';
import { RequestBudget } from '../../src/leader/budget.js';
import { createLeaderClient } from '../../src/leader/client.js';
import { systemClock } from '@cribl-exporter/api/clock';
import { createLogger, forLeader } from '../../src/util/logger.js';
import { recordingMetrics } from './helpers.js';
import { FakeClock } from '../helpers/fake-clock.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A leader on a real socket whose answers `handle` writes raw. */
async function leader(handle: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    handle(res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
}

function client(baseUrl: string, maxResponseBytes = 1024) {
  const { metrics, events } = recordingMetrics();
  const lines: string[] = [];
  const root = createLogger({ level: 'debug', format: 'json' }, { write: (l: string) => void lines.push(l) });
  const c = createLeaderClient({
    baseUrl,
    name: 'east',
    dispatcher: new Agent(),
    budget: new RequestBudget({ maxRps: 100, burst: 10, maxConcurrency: 2, clock: systemClock }),
    clock: systemClock,
    random: () => 0,
    // The app binds `leader` already: the client must not bind it a second time.
    logger: forLeader(root, 'east'),
    metrics,
    limits: { maxAttempts: 1, maxResponseBytes, backoffBaseMs: 1, backoffMaxMs: 5 },
  });
  const list = () =>
    c.request({
      endpoint: ENDPOINTS.workers,
      path: '/products/stream/workers',
      decode: (j) => j,
      deadline: Date.now() + 5_000,
    });
  return { c, list, events, lines };
}

describe('leader answers whose body fails', () => {
  it('a body cut short (Content-Length not met) is a decode failure, not a connection failure', async () => {
    const url = await leader((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"count":1,"items":[');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const { c, list, events } = client(url);
    const r = await list();
    await c.close();
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe('decode');
    expect(r.status).toBe(200);
    expect(r.message).toMatch(/response body cut short \(UND_ERR_/);
    expect(events).toContain('request /products/{product}/workers 200');
  });

  it('an oversized body is counted with code="too_large", not "200"', async () => {
    const url = await leader((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ count: 1, items: ['x'.repeat(4096)] }));
    });
    const { c, list, events } = client(url, 1024);
    const r = await list();
    await c.close();
    expect(r.ok).toBe(false);
    if (r.ok) return;
    // An oversized body is too large, not undecodable: the reason says so too.
    expect(r.reason).toBe('too_large');
    expect(events).toEqual(['request /products/{product}/workers too_large']);
  });

  it("a node's answer has a size limit of its own, cut off as it passes it; a listing that size is read", async () => {
    let written = 0;
    const server = createServer((req, res) => {
      req.resume();
      // A node's answer of 48 MiB, a listing of 1 MiB, in 64 KiB chunks written as the socket drains.
      const size = (req.url ?? '').includes('/w/') ? 48 * 1024 * 1024 : 1024 * 1024;
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = ' '.repeat(64 * 1024);
      let sent = 0;
      const pump = (): void => {
        while (sent < size && !res.destroyed) {
          sent += chunk.length;
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end('{"count":0,"items":[]}');
      };
      pump();
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
    const { metrics, events } = recordingMetrics();
    const c = createLeaderClient({
      baseUrl: url,
      name: 'east',
      dispatcher: new Agent(),
      budget: new RequestBudget({ maxRps: 100, burst: 10, maxConcurrency: 2, clock: systemClock }),
      clock: systemClock,
      random: () => 0,
      logger: createLogger({ level: 'silent', format: 'json' }),
      metrics,
      limits: { maxAttempts: 1, maxNodeResponseBytes: 128 * 1024 },
    });
    const deadline = Date.now() + 5_000;
    const node = await c.request({
      endpoint: ENDPOINTS.nodeMetadata,
      path: '/w/n1/edge/metadata',
      nodeScoped: true,
      decode: (j) => j,
      deadline,
    });
    const sentToNode = written;
    written = 0;
    const listing = await c.request({
      endpoint: ENDPOINTS.workers,
      path: '/products/stream/workers',
      decode: (j) => j,
      deadline,
    });
    await c.close();
    expect(node.ok ? 'ok' : node.reason).toBe('too_large');
    // Cut off, not read whole (what the kernel's socket buffers took is the most that left the server).
    expect(sentToNode).toBeLessThan(24 * 1024 * 1024);
    expect(listing.ok).toBe(true);
    expect(events).toEqual(['request /w/{nodeId}/edge/metadata too_large', 'request /products/{product}/workers 200']);
  });

  it("a node's answer whose body drips is a timeout 5 s after its headers; a listing may drip on", async () => {
    const url = await leader((res) => {
      // A byte now and then (the idle timeout is never reached), never the end.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
    });
    const clock = new FakeClock();
    const c = createLeaderClient({
      baseUrl: url,
      name: 'east',
      dispatcher: new Agent(),
      budget: new RequestBudget({ maxRps: 100, burst: 10, maxConcurrency: 2, clock }),
      clock,
      random: () => 0,
      logger: createLogger({ level: 'silent', format: 'json' }),
      limits: { maxAttempts: 1 },
    });
    const settled = (p: Promise<unknown>) => {
      const box = { done: false };
      void p.then(() => (box.done = true));
      return box;
    };
    const ask = (endpoint: Endpoint, path: string, nodeScoped: boolean) =>
      c.request({ endpoint, path, nodeScoped, decode: (j) => j, deadline: clock.now() + 60_000 });
    const node = ask(ENDPOINTS.nodeHealth, '/w/n1/health', true);
    const listing = ask(ENDPOINTS.workers, '/products/stream/workers', false);
    const [n, l] = [settled(node), settled(listing)];
    // 1 s at a time on the client's clock, letting the I/O run: the node's body ends 5 s after its headers came.
    for (let i = 0; i < 12 && !n.done; i++) {
      await new Promise((r) => setTimeout(r, 50));
      await clock.advance(1_000);
    }
    await new Promise((r) => setTimeout(r, 50));
    expect([n.done, l.done]).toEqual([true, false]);
    const r = await node;
    expect(r.ok ? 'ok' : r.reason).toBe('timeout');
    if (!r.ok) expect(r.message).toBe('GET /w/n1/health: body not complete 5000 ms after its headers');
    await clock.advance(30_000);
    await c.close();
  });

  it('the code label takes the statuses the API defines, any other status is "other"', async () => {
    const statuses = [404, 503, 418, 299, 599, 404];
    let i = 0;
    const url = await leader((res) => {
      res.writeHead(statuses[i++] ?? 500);
      res.end();
    });
    const { c, list, events } = client(url);
    const reasons = [];
    for (let n = 0; n < statuses.length; n++) {
      const r = await list();
      reasons.push(r.ok ? 'ok' : r.reason);
    }
    await c.close();
    const codes = events.filter((e) => e.startsWith('request ')).map((e) => e.split(' ')[2]);
    expect(codes).toEqual(['404', '503', 'other', 'other', 'other', '404']);
    // The reason still follows the real status.
    expect(reasons).toEqual(['not_found', 'throttled', 'http_4xx', 'http_4xx', 'http_5xx', 'not_found']);
  });

  it('a 3xx is a redirect, never followed', async () => {
    const url = await leader((res) => {
      res.writeHead(302, { location: 'https://login.example.com/' });
      res.end();
    });
    const { c, list, events } = client(url);
    const r = await list();
    await c.close();
    expect(r).toMatchObject({ ok: false, reason: 'redirect', status: 302 });
    expect(events.filter((e) => e.startsWith('request '))).toEqual(['request /products/{product}/workers other']);
  });

  it('a leader that never answers: a request that finds every slot held until its deadline is a timeout', async () => {
    // Two slots, both held by requests the leader never answers; the third waits for one until its deadline.
    const url = await leader(() => undefined);
    const { c, list } = client(url);
    const hanging = [list(), list()];
    await new Promise((r) => setTimeout(r, 50));
    const r = await c.request({
      endpoint: ENDPOINTS.workers,
      path: '/products/stream/workers',
      decode: (j) => j,
      deadline: Date.now() + 100,
    });
    expect(r).toMatchObject({ ok: false, reason: 'timeout' });
    expect(r.ok ? '' : r.message).toContain('every request slot was held by requests the leader had not answered');
    await c.close();
    await Promise.all(hanging);
  });

  it('a log line of the client carries one "leader" key when the app bound it already', async () => {
    const url = await leader((res) => {
      res.writeHead(429, { 'retry-after': '1' });
      res.end();
    });
    const { c, list, lines } = client(url);
    await list();
    await c.close();
    const throttled = lines.filter((l) => l.includes('slow down'));
    expect(throttled.length).toBeGreaterThan(0);
    for (const line of throttled) expect(line.match(/"leader":/g)).toHaveLength(1);
  });
});
