import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { Agent, request } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_LIMITS, serverOptions } from '../../src/exposition/limits.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/exposition/server.js';
import { TestStore, testBody } from '../helpers/stores.js';
import { FakeClock } from '../helpers/fake-clock.js';

const dir = mkdtempSync(join(tmpdir(), 'hardening-'));
const servers: RunningServer[] = [];
const agents: Agent[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(agents.splice(0).map((a) => a.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

let files = 0;
function webConfig(lines: string[]): string {
  const path = join(dir, `web-${++files}.yml`);
  writeFileSync(path, lines.join('\n'));
  return path;
}

async function start(overrides: Partial<ServerOptions> = {}) {
  const clock = new FakeClock();
  const snapshot = new TestStore().discovered();
  const body = testBody([snapshot], { clock });
  const reloads: boolean[] = [];
  const errors: string[] = [];
  const server = await startServer({
    listenAddress: '127.0.0.1:0',
    body,
    collectors: [],
    selfMetrics: { render: () => Promise.resolve(''), setWebConfigReloadSuccessful: (ok) => reloads.push(ok) },
    ready: () => true,
    clock,
    logger: { info: () => undefined, warn: () => undefined, error: (m: unknown) => void errors.push(String(m)) },
    ...overrides,
  });
  servers.push(server);
  return { server, clock, reloads, errors };
}

function agent(localAddress?: string): Agent {
  const a = new Agent({ connections: 10, ...(localAddress ? { connect: { localAddress } } : {}) });
  agents.push(a);
  return a;
}

async function get(url: string, dispatcher: Agent, headers: Record<string, string> = {}) {
  const res = await request(url, { dispatcher, headers });
  await res.body.dump();
  return { status: res.statusCode, headers: res.headers };
}

/** A raw socket to the server, with what it received and whether the server closed it. */
async function raw(port: number): Promise<{ socket: Socket; received: () => string; closed: () => boolean }> {
  const socket = connect({ port, host: '127.0.0.1' });
  sockets.push(socket);
  let data = '';
  let closed = false;
  socket.on('data', (b: Buffer) => (data += b.toString()));
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => data, closed: () => closed };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The soft limit of open files of this process (the idle-socket test holds 1,100 client and 512 server sockets). */
function openFilesLimit(): number {
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return m?.[1] === 'unlimited' ? Infinity : Number(m?.[1] ?? 0);
}
const FD_LIMIT = openFilesLimit();

describe('basic auth under a flood of wrong credentials', () => {
  it('1,000 wrong credentials in 2 s: /healthz and a valid scrape are answered before the flood ends', async () => {
    // Cost 10, as in the report: 87 ms per comparison with bcryptjs on this machine.
    const path = webConfig(['basic_auth_users:', `  alice: ${bcrypt.hashSync('alice-pw', 10)}`]);
    const { server } = await start({ webConfigFile: path });
    const scraper = agent();
    const alice = { authorization: basic('alice', 'alice-pw') };
    // Prometheus scrapes with the same credentials every time: the first one costs a bcrypt, the rest a lookup.
    expect((await get(`${server.url}/metrics`, scraper, alice)).status).toBe(200);

    // 20 clients (source addresses 127.0.0.2–21), 50 requests every 100 ms.
    const flooders = Array.from({ length: 20 }, (_, i) => agent(`127.0.0.${i + 2}`));
    const statuses: number[] = [];
    const retryAfter: string[] = [];
    let floodDone = false;
    const flood = (async () => {
      const all: Promise<void>[] = [];
      for (let tick = 0; tick < 20; tick++) {
        for (let j = 0; j < 50; j++) {
          const n = tick * 50 + j;
          const a = flooders[n % flooders.length]!;
          all.push(
            get(`${server.url}/metrics`, a, { authorization: basic('alice', `guess-${n}`) }).then(
              (r) => {
                statuses.push(r.status);
                if (r.headers['retry-after']) retryAfter.push(String(r.headers['retry-after']));
              },
              () => void statuses.push(0),
            ),
          );
        }
        await sleep(100);
      }
      await Promise.all(all);
      floodDone = true;
    })();

    await sleep(500);
    const probe = await get(`${server.url}/healthz`, agent());
    const probeDuringFlood = !floodDone;
    const scrape = await get(`${server.url}/metrics`, scraper, alice);
    const scrapeDuringFlood = !floodDone;
    await flood;

    expect(probe.status).toBe(200);
    expect(probeDuringFlood).toBe(true);
    expect(scrape.status).toBe(200);
    expect(scrapeDuringFlood).toBe(true);
    expect(statuses).toHaveLength(1000);
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    // Most of the flood is turned away at once, each 429 saying when to come back.
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(500);
    expect(retryAfter.length).toBe(statuses.filter((s) => s === 429).length);
    for (const v of retryAfter) expect(Number(v)).toBeGreaterThanOrEqual(1);
  }, 60_000);
});

describe('every answer says what it is', () => {
  it('X-Content-Type-Options: nosniff on every response: scrapes, probes, the page, errors, refusals', async () => {
    const path = webConfig([
      'basic_auth_users:',
      `  alice: ${bcrypt.hashSync('pw', 4)}`,
      'rate_limit:',
      '  interval: 1h',
      '  burst: 6',
    ]);
    const { server } = await start({ webConfigFile: path, ready: () => false });
    const a = agent();
    const auth = { authorization: basic('alice', 'pw') };
    const answers = [
      await get(`${server.url}/metrics`, a, auth), // 200
      await get(`${server.url}/healthz`, a), // 200
      await get(`${server.url}/readyz`, a), // 503
      await get(`${server.url}/nowhere`, a, auth), // 404
      await get(`${server.url}/metrics`, a), // 401
      await get(`${server.url}/metrics?collect[]=nope`, a, auth), // 400
      await get(`${server.url}/metrics`, a, auth), // 429: the burst is spent
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 503, 404, 401, 400, 429]);
    for (const r of answers) expect(r.headers['x-content-type-options']).toBe('nosniff');
    const post = await request(`${server.url}/metrics`, { dispatcher: a, method: 'POST', headers: auth });
    await post.body.dump();
    expect(post.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('connection limits', () => {
  it('sets the header, request and keep-alive timeouts', () => {
    expect(serverOptions(DEFAULT_SERVER_LIMITS)).toMatchObject({
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 5_000,
      handshakeTimeout: 10_000,
    });
    expect(DEFAULT_SERVER_LIMITS.maxConnections).toBe(512);
  });

  it('1,100 idle sockets leave /healthz answering; other paths get 503 on the last slot', async (ctx) => {
    // Client and server share this process here; the exporter alone would need 512 + a few.
    if (FD_LIMIT < 2_048) ctx.skip(`needs 2,048 open files (ulimit -n), has ${FD_LIMIT}`);
    const { server } = await start();
    const idle: Awaited<ReturnType<typeof raw>>[] = [];
    for (let i = 0; i < 1100; i += 100) {
      idle.push(...(await Promise.all(Array.from({ length: 100 }, () => raw(server.port)))));
    }
    await sleep(200);
    const probe = await get(`${server.url}/healthz`, agent());
    expect(probe.status).toBe(200);
    // The probe's connection freed the slot as soon as it was answered.
    expect(probe.headers.connection).toBe('close');
    const metrics = await get(`${server.url}/metrics`, agent());
    expect(metrics.status).toBe(503);
    expect(metrics.headers['retry-after']).toBe('1');
    expect(metrics.headers['x-content-type-options']).toBe('nosniff');
    // The idle sockets beyond the cap were closed by the server; 511 are still held.
    const open = idle.filter((s) => !s.closed()).length;
    expect(open).toBeLessThanOrEqual(511);
    expect(open).toBeGreaterThan(400);
  }, 60_000);

  it('closes a connection whose headers trickle in (slowloris) while it is still trickling', async () => {
    const { server } = await start({ limits: { headersTimeoutMs: 300, requestTimeoutMs: 600, checkIntervalMs: 50 } });
    const c = await raw(server.port);
    c.socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\n');
    let drips = 0;
    for (; drips < 100 && !c.closed(); drips++) {
      c.socket.write(`X-Drip-${drips}: y\r\n`);
      await sleep(50);
    }
    expect(c.closed()).toBe(true);
    expect(drips).toBeLessThan(100);
  });

  it('answers a dribbled POST 405 with Connection: close and closes it without reading the body', async () => {
    const { server } = await start();
    const c = await raw(server.port);
    c.socket.write('POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nabc');
    let drips = 0;
    for (; drips < 100 && !c.closed(); drips++) {
      c.socket.write('x');
      await sleep(20);
    }
    expect(c.closed()).toBe(true);
    expect(drips).toBeLessThan(100);
    expect(c.received()).toMatch(/^HTTP\/1\.1 405 /);
    expect(c.received()).toMatch(/\r\nConnection: close\r\n/i);
  });
});

describe('a web config that turns bad keeps the last good one', () => {
  const users = (name: string) => ['basic_auth_users:', `  ${name}: ${bcrypt.hashSync('pw', 4)}`];

  it.each([
    ['emptied', (p: string) => writeFileSync(p, ''), 'the file is empty'],
    ['a FIFO', (p: string) => (rmSync(p), execFileSync('mkfifo', [p])), 'is a FIFO, not a regular file'],
    ['/dev/zero', (p: string) => (rmSync(p), symlinkSync('/dev/zero', p)), 'is a device, not a regular file'],
  ])('%s: basic auth stays on, the reload metric is 0 and an error is logged', async (_name, spoil, why) => {
    const path = webConfig(users('alice'));
    const { server, clock, reloads, errors } = await start({ webConfigFile: path });
    const a = agent();
    expect((await get(`${server.url}/metrics`, a)).status).toBe(401);
    spoil(path);
    await clock.advance(1000);
    expect((await get(`${server.url}/metrics`, a)).status).toBe(401);
    expect((await get(`${server.url}/metrics`, a, { authorization: basic('alice', 'pw') })).status).toBe(200);
    expect(reloads.at(-1)).toBe(false);
    expect(errors.join('\n')).toContain(why);
    expect(errors.join('\n')).toContain('keeping the previous web config');
  });

  it('reload() re-reads the file at once even when it looks unchanged (SIGHUP)', async () => {
    const path = webConfig(users('alice'));
    const { server, reloads } = await start({ webConfigFile: path });
    const a = agent();
    writeFileSync(path, users('bobby').join('\n'));
    // Same size and mtime: the periodic check cannot see the change.
    utimesSync(path, 1_700_000_000, 1_700_000_000);
    await server.reload();
    expect(reloads.at(-1)).toBe(true);
    expect((await get(`${server.url}/metrics`, a, { authorization: basic('bobby', 'pw') })).status).toBe(200);
  });
});
