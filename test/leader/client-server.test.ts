import { ENDPOINTS } from '@cribl-exporter/api/routes';
import type { LeaderClientLimits } from '../../src/leader/settings.js';
import { withAuth } from '../../src/auth/with-auth.js';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import pino from 'pino';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/leader/budget.js';
import { createLeaderClient } from '../../src/leader/client.js';
import { systemClock } from '@cribl-exporter/api/clock';
import { fakeAuth, recordingMetrics } from './helpers.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface TestServer {
  server: Server;
  port: number;
  requests: number;
  closedEarly: number;
  close(): Promise<void>;
}

/** A node:http server on 127.0.0.1 (port 0 unless given) that counts requests and can be killed hard. */
async function serve(handler: Handler, port = 0): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const t: TestServer = {
    server: createServer((req, res) => {
      t.requests++;
      res.on('close', () => {
        if (!res.writableFinished) t.closedEarly++;
      });
      handler(req, res);
    }),
    port: 0,
    requests: 0,
    closedEarly: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        t.server.close(() => resolve());
      }),
  };
  t.server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => t.server.listen(port, '127.0.0.1', resolve));
  t.port = (t.server.address() as AddressInfo).port;
  return t;
}

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function clientFor(port: number, limits: Partial<LeaderClientLimits> = {}, metrics = recordingMetrics().metrics) {
  const budget = new RequestBudget({ maxRps: 200, burst: 20, maxConcurrency: 4, clock: systemClock });
  const client = withAuth(
    createLeaderClient({
      baseUrl: `http://127.0.0.1:${port}/api/v1`,
      name: 'real',
      dispatcher: new Agent({ connect: { timeout: 1000 }, keepAliveTimeout: 10_000 }),
      budget,
      clock: systemClock,
      random: () => 0.5,
      logger: pino({ level: 'silent' }),
      metrics,
      limits: {
        connectTimeoutMs: 1000,
        headersTimeoutMs: 1000,
        bodyTimeoutMs: 1000,
        backoffBaseMs: 20,
        backoffMaxMs: 100,
        maxAttempts: 2,
        ...limits,
      },
    }),
    fakeAuth().auth,
  );
  cleanup.push(() => client.close());
  return client;
}

const workers = { endpoint: ENDPOINTS.workers, path: '/products/stream/workers', decode: (j: unknown) => j };

describe('leader client against a real server', () => {
  it('times out when the headers never come, and retries within bounds', async () => {
    const s = await serve(() => undefined);
    cleanup.push(() => s.close());
    const { metrics, events } = recordingMetrics();
    const client = clientFor(s.port, { connectTimeoutMs: 100, headersTimeoutMs: 150 }, metrics);
    const r = await client.request(workers);
    expect(r).toMatchObject({ ok: false, reason: 'timeout' });
    expect(events).toEqual([
      'request /products/{product}/workers timeout',
      'request /products/{product}/workers timeout',
    ]);
    expect(s.requests).toBeGreaterThanOrEqual(1);
  });

  it('times out when the body trickles in and stops', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items": [');
    });
    cleanup.push(() => s.close());
    const client = clientFor(s.port, { bodyTimeoutMs: 150, maxAttempts: 1 });
    const r = await client.request(workers);
    expect(r).toMatchObject({ ok: false, reason: 'timeout' });
  });

  it('keeps reading a slow body as long as chunks keep coming (the body timeout is idle time)', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const parts = ['{"items":', '[1,', '2,', '3,', '4,', '5,', '6]', '}'];
      const next = (): void => {
        const p = parts.shift();
        if (p === undefined) res.end();
        else {
          res.write(p);
          setTimeout(next, 60);
        }
      };
      next();
    });
    cleanup.push(() => s.close());
    const client = clientFor(s.port, { bodyTimeoutMs: 300, maxAttempts: 1 });
    expect(await client.request(workers)).toEqual({ ok: true, status: 200, body: { items: [1, 2, 3, 4, 5, 6] } });
  });

  it('reports a connection reset as connect, after retrying', async () => {
    const s = await serve((req) => req.socket.destroy());
    cleanup.push(() => s.close());
    const client = clientFor(s.port, { maxAttempts: 3 });
    const r = await client.request(workers);
    expect(r).toMatchObject({ ok: false, reason: 'connect' });
    expect(s.requests).toBe(3);
  });

  it('aborts an endless chunked body beyond the size cap and closes the connection', async () => {
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"pad":"');
      const pump = (): void => {
        if (res.destroyed) return;
        if (res.write(chunk)) setImmediate(pump);
        else res.once('drain', pump);
      };
      pump();
    });
    cleanup.push(() => s.close());
    const client = clientFor(s.port, { maxResponseBytes: 256 * 1024 });
    const r = await client.request(workers);
    expect(r).toMatchObject({ ok: false, reason: 'too_large', status: 200 });
    expect(r.ok ? '' : r.message).toContain('larger than 262144 bytes');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(s.closedEarly).toBe(1);
  });

  it('close() aborts a request in flight', async () => {
    let seen!: () => void;
    const arrived = new Promise<void>((resolve) => (seen = resolve));
    const s = await serve(() => seen());
    cleanup.push(() => s.close());
    const client = clientFor(s.port, { headersTimeoutMs: 60_000 });
    const pending = client.request(workers);
    await arrived;
    await client.close();
    expect(await pending).toMatchObject({ ok: false, reason: 'timeout', message: expect.stringContaining('aborted') });
  });

  it('survives a leader restart on the same address without intervention', async () => {
    const ok: Handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"count":0,"items":[]}');
    };
    const first = await serve(ok);
    const port = first.port;
    const client = clientFor(port, { maxAttempts: 50, backoffBaseMs: 20, backoffMaxMs: 50 });
    expect(await client.request(workers)).toMatchObject({ ok: true });
    await first.close();

    // While it is down, requests fail cleanly as connection errors.
    const down = await client.request({ ...workers, deadline: Date.now() + 200 });
    expect(down).toMatchObject({ ok: false, reason: 'connect' });

    const during = client.request({ ...workers, deadline: Date.now() + 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const second = await serve(ok, port);
    cleanup.push(() => second.close());
    expect(await during).toMatchObject({ ok: true });
    expect(await client.request(workers)).toMatchObject({ ok: true });
    expect(second.requests).toBeGreaterThanOrEqual(2);
  });
});
