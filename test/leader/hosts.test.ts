/**
 * The HA hosts of a leader (src/leader/hosts.ts) against two stand-in hosts whose GET /health the test sets: each
 * round reads every host, a failover is the primary moving to another host, and without a load balancer the client
 * follows the primary when the host in use does not serve.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/leader/budget.js';
import { createLeaderClient, noopLeaderClientMetrics } from '../../src/leader/client.js';
import type { HostReading } from '../../src/leader/types.js';
import { systemClock } from '@cribl-exporter/api/clock';

type Answer = 'primary' | 'standby' | 'down' | 'legacy';

interface StandIn {
  url: string;
  host: string;
  answer: Answer;
  /** Requests other than GET /health it got. */
  api: number;
  server: Server;
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of open.splice(0).reverse()) await c.close();
});

async function standIn(answer: Answer): Promise<StandIn> {
  const s: StandIn = { url: '', host: '', answer, api: 0, server: undefined as unknown as Server };
  s.server = createServer((req, res) => {
    if (s.answer === 'down') {
      req.socket.destroy();
      return;
    }
    const standby = s.answer === 'standby';
    const body = JSON.stringify({
      status: standby ? 'standby' : 'healthy',
      startTime: 1,
      ...(s.answer === 'legacy' ? {} : { role: standby ? 'standby' : 'primary' }),
    });
    if (req.url !== '/api/v1/health') s.api++;
    res.writeHead(standby ? 420 : 200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((r) => s.server.listen(0, '127.0.0.1', r));
  const { port } = s.server.address() as AddressInfo;
  s.host = `127.0.0.1:${port}`;
  s.url = `http://${s.host}/api/v1`;
  open.push({ close: () => new Promise<void>((r) => (s.server.closeAllConnections(), s.server.close(() => r()))) });
  return s;
}

function client(apiUrl: string, hosts: readonly StandIn[]) {
  const failovers: number[] = [];
  const rounds: (readonly HostReading[])[] = [];
  const c = createLeaderClient({
    baseUrl: apiUrl,
    name: 'ha',
    dispatcher: new Agent(),
    budget: new RequestBudget({ maxRps: 100, burst: 10, maxConcurrency: 4, clock: systemClock }),
    clock: systemClock,
    random: () => 0.5,
    logger: pino({ level: 'silent' }),
    metrics: { ...noopLeaderClientMetrics, onFailovers: (n) => failovers.push(n) },
    haUrls: hosts.map((h) => h.url),
    onHosts: (r) => rounds.push(r),
  });
  open.push(c);
  return { c, failovers, rounds };
}

const roles = (r: readonly HostReading[]): string[] =>
  r.map((h) => `${h.health?.status ?? '-'}/${h.health?.role ?? '-'}/${h.failure ?? '-'}`);

describe('HA hosts', () => {
  it('reads each host: a standby reads standby, a host that does not answer has a failure and no health', async () => {
    const [a, b] = [await standIn('primary'), await standIn('standby')];
    const { c, failovers, rounds } = client(a.url, [a, b]);
    expect(failovers).toEqual([0]);
    let r = await c.hosts!.read();
    expect(r.map((h) => h.host)).toEqual([a.host, b.host]);
    expect(roles(r)).toEqual(['healthy/primary/-', 'standby/standby/-']);
    expect(rounds).toHaveLength(1);
    b.answer = 'down';
    r = await c.hosts!.read();
    expect(roles(r)).toEqual(['healthy/primary/-', '-/-/connect']);
    expect(r[1]!.lastSuccessMs).toBeGreaterThan(0);
    expect(failovers).toEqual([0]);
  });

  it('counts a failover when the primary is another host than the last one seen, not while there is none', async () => {
    const [a, b] = [await standIn('primary'), await standIn('standby')];
    const lb = await standIn('primary');
    const { c, failovers } = client(lb.url, [a, b]);
    await c.hosts!.read();
    a.answer = 'standby';
    await c.hosts!.read(); // no primary: not a failover yet
    expect(failovers).toEqual([0]);
    b.answer = 'primary';
    await c.hosts!.read();
    expect(failovers).toEqual([0, 1]);
    a.answer = 'primary'; // two primaries: which one is it? No failover counted
    await c.hosts!.read();
    expect(failovers).toEqual([0, 1]);
    // Behind a load balancer the API address is never replaced.
    expect(c.baseUrl).toBe(lb.url);
  });

  it('without a load balancer, follows the single serving primary when the host in use does not serve', async () => {
    const [a, b] = [await standIn('primary'), await standIn('standby')];
    const { c } = client(a.url, [a, b]);
    const get = () => c.request({ endpoint: '/system/info', path: '/system/info', decode: (j) => j });
    expect((await get()).ok).toBe(true);
    expect([a.api, b.api]).toEqual([1, 0]);
    // Two primaries: the host in use serves, nothing moves.
    b.answer = 'primary';
    await c.hosts!.read();
    expect(c.baseUrl).toBe(a.url);
    // The host in use goes standby, the other is the only serving primary: requests go there.
    a.answer = 'standby';
    await c.hosts!.read();
    expect(c.baseUrl).toBe(b.url);
    expect((await get()).ok).toBe(true);
    expect([a.api, b.api]).toEqual([1, 1]);
  });

  it('does not follow a host that does not say it is primary (a leader before 4.17)', async () => {
    const [a, b] = [await standIn('standby'), await standIn('legacy')];
    const { c } = client(a.url, [a, b]);
    await c.hosts!.read();
    expect(c.baseUrl).toBe(a.url);
  });
});
