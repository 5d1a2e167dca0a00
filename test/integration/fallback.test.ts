/**
 * Issue 49, "a fallback never comes back": one 404 on /products/stream/workers (a proxy in front of a 4.17+ leader
 * restarting) used to switch the exporter to the unpaged /master/workers until a restart. The paged listing is
 * asked again within 10 discoveries, and kept once it answers.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@cribl-exporter/simulator';
import { startTestExporter } from '../helpers/test-exporter.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/**
 * A pass-through proxy in front of the simulator that answers 404 to the first `notFound` requests whose path
 * contains `/products/stream/workers`; returns a simulator-like handle on the proxy's address.
 */
async function oneOff404(sim: Simulator, notFound: number): Promise<Simulator> {
  let left = notFound;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (left > 0 && req.url?.includes('/products/stream/workers')) {
        left--;
        req.resume();
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"status":"error","message":"Not Found"}');
        return;
      }
      const upstream = await request(`${sim.origin}${req.url ?? '/'}`, {
        method: (req.method ?? 'GET') as 'GET',
        headers: { ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) },
      });
      const body = Buffer.from(await upstream.body.arrayBuffer());
      res.writeHead(upstream.statusCode, { 'content-type': 'application/json' });
      res.end(body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => server.close(r)));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { ...sim, origin, baseUrl: `${origin}/api/v1`, token: sim.token };
}

describe('the paged listing comes back after a one-off 404', () => {
  it('within 10 discoveries the exporter lists with /products/{product}/workers again, and stays there', async () => {
    const sim = await startSimulator({ nodes: 12, seed: 8 });
    closers.push(() => sim.close());
    const exp = await startTestExporter(await oneOff404(sim, 1), ['--products', 'stream']);
    closers.push(() => exp.app.close());
    const used: string[] = [];
    for (let i = 0; i < 14; i++) {
      sim.resetStats();
      await exp.run('discovery');
      const r = sim.stats().requests;
      used.push(r['/master/workers'] ? 'master' : r['/products/{product}/workers'] ? 'paged' : 'none');
    }
    // The first discovery met the 404 (it never reached the simulator) and fell back.
    expect(used[0]).toBe('master');
    const back = used.indexOf('paged');
    expect(back).toBeGreaterThan(0);
    expect(back).toBeLessThanOrEqual(10);
    expect(used.slice(back).every((u) => u === 'paged')).toBe(true);
    const samples = (await exp.scrape()).samples;
    expect(samples.find((s) => s.name === 'cribl_leader_up')?.value).toBe(1);
    expect(samples.filter((s) => s.name === 'cribl_node_info').length).toBe(
      sim.fleet.nodes().filter((n) => n.product === 'stream').length,
    );
  });
});
