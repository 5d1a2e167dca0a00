/**
 * Issue 49, Why 5: clients that open /metrics and never read hold a bounded part of the server. At most `maxBodies`
 * bodies are written at once (a newcomer takes the slot of one whose client has not read for a second, else it is
 * answered 503), every response must be written within the write timeout (then its socket is closed), and /healthz
 * and a well-behaved scrape are answered meanwhile.
 */
import { connect } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { startServer, type RunningServer } from '../../src/exposition/server.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { TestStore, testBody } from '../helpers/stores.js';
import { node } from './fixtures.js';

const closers: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** A body of a few MB uncompressed: more than a socket's buffers take. */
async function start(limits: { maxBodies: number; writeTimeoutMs: number }) {
  const clock = new FakeClock();
  const snapshot = new TestStore({ workspace: 'main' }).discovered();
  for (let i = 0; i < 3000; i++) {
    const id = `w${i}`;
    snapshot.setNode(id, node(id, { health: { up: true, status: 'healthy', lastSuccessMs: 1717200000000 } }));
  }
  const server = await startServer({
    listenAddress: '127.0.0.1:0',
    body: testBody([snapshot], { clock }),
    collectors: COLLECTORS.map((c) => c.name),
    ready: () => true,
    clock,
    limits,
  });
  closers.push(() => server.close());
  return { server, clock };
}

/** A client that sends `requests` (one write), reads the first chunk (a status line) and then never reads again. */
function stalled(
  server: RunningServer,
  requests = 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n',
): { status: Promise<string>; rest: () => Promise<string> } {
  const socket = connect(server.port, '127.0.0.1');
  socket.once('error', () => undefined);
  closers.push(() => void socket.destroy());
  const chunks: Buffer[] = [];
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const status = new Promise<string>((resolve) => {
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      chunks.push(chunk);
      resolve(chunk.toString('latin1').split('\r\n', 1)[0] ?? '');
    });
    socket.once('close', () => resolve('closed'));
  });
  socket.write(requests);
  return {
    status,
    /** Reads again, until the server closes the connection: everything it received. */
    rest: async () => {
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.resume();
      await closed;
      return Buffer.concat(chunks).toString('latin1');
    },
  };
}

/** A chunked response that ended: its last chunk. */
const LAST_CHUNK = '\r\n0\r\n\r\n';

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 50));

describe('clients that never read (issue 49, Why 5)', () => {
  it('100 of them: a few hold a body, /healthz and a reading scrape answer, the write timeout closes', async () => {
    const { server, clock } = await start({ maxBodies: 8, writeTimeoutMs: 30_000 });
    const clients = Array.from({ length: 100 }, () => stalled(server));
    const statuses = await Promise.all(clients.map((c) => c.status));
    // Bodies are written to at most maxBodies of them at once; the others are told to come back.
    const served = statuses.filter((s) => s === 'HTTP/1.1 200 OK').length;
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThanOrEqual(8);
    expect(statuses.filter((s) => s.startsWith('HTTP/1.1 503')).length).toBe(100 - served);

    const healthz = await request(`${server.url}/healthz`);
    expect([healthz.statusCode, await healthz.body.text()]).toEqual([200, 'ok\n']);
    // Once their socket buffers are full, a second later on the clock, the stalled bodies give a slot to a scrape
    // that reads (until they are full, their clients are still taking bytes: tried again a second later).
    let scrape = await request(`${server.url}/metrics`);
    for (let i = 0; i < 20 && scrape.statusCode === 503; i++) {
      await scrape.body.text();
      await clock.advance(1_000);
      scrape = await request(`${server.url}/metrics`);
    }
    const text = await scrape.body.text();
    expect(scrape.statusCode).toBe(200);
    expect(text).toContain('node_id="w2999"');
    expect(text).toContain('# TYPE cribl_leader_up gauge');

    // The write timeout closes every connection whose response was not written whole: read now, each body is cut.
    await clock.advance(60_000);
    const received = await Promise.all(
      clients.filter((_c, i) => statuses[i] === 'HTTP/1.1 200 OK').map((c) => c.rest()),
    );
    expect(received.filter((r) => r.endsWith(LAST_CHUNK))).toEqual([]);
    const healthzAfter = await request(`${server.url}/healthz`);
    expect(healthzAfter.statusCode).toBe(200);
    await healthzAfter.body.text();
  }, 60_000);

  it('a connection gets one body at a time: a pipelined request waits until the answer before is written', async () => {
    const { server, clock } = await start({ maxBodies: 8, writeTimeoutMs: 30_000 });
    // Ten scrapes in one write, none read: only the first body is started; the others hold no body slot meanwhile.
    const client = stalled(server, 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(10));
    expect(await client.status).toBe('HTTP/1.1 200 OK');
    await settle();
    const others = await Promise.all(
      Array.from({ length: 7 }, async () => {
        const r = await request(`${server.url}/metrics`);
        await r.body.text();
        return r.statusCode;
      }),
    );
    expect(others).toEqual(Array.from({ length: 7 }, () => 200));
    // The first answer is not written in time: the connection is closed, the nine others never begin.
    await clock.advance(30_000);
    const received = await client.rest();
    expect(received.split('HTTP/1.1 200 OK')).toHaveLength(2);
    expect(received.endsWith(LAST_CHUNK)).toBe(false);
  }, 60_000);
});
