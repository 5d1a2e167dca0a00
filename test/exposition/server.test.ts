import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createSelfMetrics } from '../../src/telemetry/self-metrics.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/exposition/server.js';
import { STATUS_CSP } from '../../src/exposition/status/page.js';
import { TestStore, testBody } from '../helpers/stores.js';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { PROMETHEUS_3 } from '../helpers/accept.js';
import { firstGzipMember } from '../helpers/gzip.js';
import { node } from './fixtures.js';

const agent = new Agent({ keepAliveTimeout: 10_000 });
const servers: RunningServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await agent.close();
});

async function start(overrides: Partial<ServerOptions> = {}, builder?: 'inline' | 'worker') {
  const clock = new FakeClock();
  const snapshot = new TestStore({ workspace: 'main' }).discovered();
  snapshot.setNode('w1', node('w1', { health: { up: true, status: 'healthy', lastSuccessMs: 1717200000000 } }));
  const body = testBody([snapshot], { clock, ...(builder ? { builder } : {}) });
  const selfMetrics = createSelfMetrics({ version: '9.9.9', nodejsVersion: 'v22.0.0', defaultMetrics: false });
  let ready = false;
  const server = await startServer({
    listenAddress: '127.0.0.1:0',
    body,
    collectors: COLLECTORS.map((c) => c.name),
    selfMetrics,
    ready: () => ready,
    clock,
    ...overrides,
  });
  servers.push(server);
  return { server, snapshot, body, selfMetrics, clock, setReady: (r: boolean) => (ready = r) };
}

async function get(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' | 'POST' = 'GET') {
  const res = await request(url, { method, headers, dispatcher: agent });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, bytes, text: bytes.toString('utf8') };
}

describe('startServer', () => {
  it('serves text 0.0.4 by default: snapshot families then self-metrics, no EOF', async () => {
    const { server } = await start();
    const res = await get(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toBe('Accept, Accept-Encoding');
    // Streamed: the cached part goes out before the self-metrics are rendered.
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.text).toContain('cribl_leader_up{workspace="main"} 1\n');
    expect(res.text).toContain(
      'cribl_node_healthy{workspace="main",product="stream",group="default",node_id="w1"} 1\n',
    );
    expect(res.text).toContain('# TYPE cribl_exporter_leader_requests_total counter\n');
    expect(res.text).toContain(
      'cribl_exporter_build_info{version="9.9.9",revision="unknown",nodejs_version="v22.0.0"} 1\n',
    );
    expect(res.text).not.toContain('# EOF');
  });

  it('tells the body cache of each GET scrape and its client (address, User-Agent), not a HEAD', async () => {
    const { server, body } = await start();
    const scrape = vi.spyOn(body, 'scrape');
    await get(`${server.url}/metrics`, { 'user-agent': 'Prometheus/3.1.0', 'accept-encoding': 'gzip' });
    await get(`${server.url}/metrics`, { 'user-agent': 'curl/8.5.0' });
    await get(`${server.url}/metrics`, {}, 'HEAD');
    expect(scrape.mock.calls).toEqual([['127.0.0.1 Prometheus/3.1.0'], ['127.0.0.1 curl/8.5.0']]);
  });

  it('serves OpenMetrics 1.0.0 to Prometheus 3, ending with # EOF', async () => {
    const { server } = await start();
    const res = await get(`${server.url}/metrics`, { accept: PROMETHEUS_3 });
    expect(res.headers['content-type']).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(res.text.endsWith('\n# EOF\n')).toBe(true);
    expect(res.text.indexOf('# EOF')).toBe(res.text.length - '# EOF\n'.length);
    expect(res.text).toContain('# TYPE cribl_exporter_leader_requests counter\n');
    expect(res.text).toContain(
      'cribl_node_healthy{workspace="main",product="stream",group="default",node_id="w1"} 1\n',
    );
  });

  it.each([
    ['text', undefined],
    ['openmetrics', PROMETHEUS_3],
  ])('gzip (%s) is the identity body as one gzip member, self-metrics included', async (_format, accept) => {
    const { server, snapshot, body } = await start();
    for (let i = 0; i < 200; i++) snapshot.setNode(`n${i}`, node(`n${i}`));
    await body.rebuild();
    const headers: Record<string, string> = accept ? { accept } : {};
    const plainRes = await get(`${server.url}/metrics`, headers);
    const gz = await get(`${server.url}/metrics`, { ...headers, 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['transfer-encoding']).toBe('chunked');
    // gunzip checks the trailer's CRC and length (combined from the pieces' and the self-metrics').
    expect(gunzipSync(gz.bytes).toString('utf8')).toBe(plainRes.text);
    // Compressed in 512-byte pieces and a self-metrics piece per scrape, yet one member: a reader that stops
    // after the first gets it all.
    expect(firstGzipMember(gz.bytes)).toEqual({ text: plainRes.text, bytesAfter: 0 });
    expect(plainRes.text).toContain('node_id="n199"');
    expect(plainRes.text).toContain('cribl_exporter_build_info');
  });

  it('curl --compressed shows the whole body (it reads only the first gzip member)', async () => {
    const { server, snapshot, body } = await start();
    for (let i = 0; i < 200; i++) snapshot.setNode(`n${i}`, node(`n${i}`));
    await body.rebuild();
    const plainRes = await get(`${server.url}/metrics`);
    const curl = await promisify(execFile)('curl', ['-sS', '--compressed', `${server.url}/metrics`], {
      maxBuffer: 1 << 24,
    });
    expect(curl.stdout).toBe(plainRes.text);
    expect(curl.stdout).toContain('node_id="n199"');
  });

  it('serves identity by gunzipping the body', async () => {
    const { server, snapshot, body } = await start();
    for (let i = 0; i < 200; i++) snapshot.setNode(`n${i}`, node(`n${i}`));
    await body.rebuild();
    const gz = await get(`${server.url}/metrics`, { 'accept-encoding': 'gzip' });
    const plainRes = await get(`${server.url}/metrics`);
    expect(plainRes.headers['content-encoding']).toBeUndefined();
    expect(plainRes.text).toBe(gunzipSync(gz.bytes).toString('utf8'));
    expect(plainRes.text).toContain('node_id="n199"');
  });

  it('serves a body built in the worker, gzip and identity, the same as one built inline', async () => {
    const { server, snapshot, body } = await start({}, 'worker');
    try {
      for (let i = 0; i < 200; i++) snapshot.setNode(`n${i}`, node(`n${i}`));
      await body.rebuild();
      const gz = await get(`${server.url}/metrics`, { 'accept-encoding': 'gzip' });
      const plainRes = await get(`${server.url}/metrics`);
      expect(plainRes.text).toBe(gunzipSync(gz.bytes).toString('utf8'));
      expect(plainRes.text).toContain('node_id="n199"');
      const inline = await start({}, 'inline');
      for (let i = 0; i < 200; i++) inline.snapshot.setNode(`n${i}`, node(`n${i}`));
      await inline.body.rebuild();
      const cut = (t: string): string => t.slice(0, t.indexOf('# HELP cribl_exporter_'));
      expect(cut(plainRes.text)).toBe(cut((await get(`${inline.server.url}/metrics`)).text));
      inline.body.close();
    } finally {
      body.close();
    }
  });

  describe('collect[] and exclude[] (as node_exporter)', () => {
    const names = (text: string): string[] => [
      ...new Set(text.split('\n').flatMap((l) => /^# TYPE (\S+)/.exec(l)?.[1] ?? [])),
    ];

    it('collect[] serves only the collectors named, and the exporter’s own metrics', async () => {
      const { server } = await start();
      const res = await get(`${server.url}/metrics?collect[]=node_health&collect[]=listing`, {
        'accept-encoding': 'gzip',
      });
      expect(res.status).toBe(200);
      const families = names(gunzipSync(res.bytes).toString('utf8'));
      expect(families).toContain('cribl_node_health_up');
      expect(families).toContain('cribl_node_info');
      expect(families).toContain('cribl_leader_up');
      expect(families).toContain('cribl_exporter_build_info');
      expect(families).not.toContain('cribl_node_metadata_info');
      expect(families.filter((f) => f.startsWith('cribl_group_'))).toEqual([]);
    });

    it('exclude[] serves every collector but those named', async () => {
      const { server } = await start();
      const families = names((await get(`${server.url}/metrics?exclude[]=listing`)).text);
      expect(families).toContain('cribl_node_health_up');
      expect(families).not.toContain('cribl_node_info');
      expect(families).not.toContain('cribl_leader_up');
      expect(families).toContain('cribl_exporter_build_info');
    });

    it('an unknown collector is a 400 naming the known ones; both at once is a 400 too', async () => {
      const { server } = await start();
      const res = await get(`${server.url}/metrics?collect[]=nodes`);
      expect(res.status).toBe(400);
      expect(res.text).toBe(
        `unknown collector "nodes"; known collectors: ${COLLECTORS.map((c) => c.name).join(', ')}\n`,
      );
      const both = await get(`${server.url}/metrics?collect[]=listing&exclude[]=node_health`);
      expect(both.status).toBe(400);
      expect(both.text).toContain('cannot be used together');
    });

    it('without either, every collector', async () => {
      const { server } = await start();
      const all = names((await get(`${server.url}/metrics`)).text);
      expect(names((await get(`${server.url}/metrics?`)).text)).toEqual(all);
      for (const f of ['cribl_leader_up', 'cribl_node_info', 'cribl_node_health_up', 'cribl_exporter_build_info'])
        expect(all).toContain(f);
    });
  });

  it(
    'sends the cached body before the self-metrics are rendered (time to first byte waits for nothing ' + 'else)',
    async () => {
      let release: (text: string) => void = () => undefined;
      const slowSelf = { render: () => new Promise<string>((r) => (release = r)) };
      const { server, body } = await start({ selfMetrics: slowSelf });
      await body.rebuild();
      const res = await request(`${server.url}/metrics`);
      expect(res.statusCode).toBe(200);
      const reader = res.body[Symbol.asyncIterator]();
      const first = await reader.next();
      expect(Buffer.from(first.value as Buffer).toString('utf8')).toContain('cribl_leader_up');
      release('# HELP cribl_exporter_x late\n# TYPE cribl_exporter_x gauge\ncribl_exporter_x 1\n');
      let rest = '';
      for (let r = await reader.next(); !r.done; r = await reader.next())
        rest += Buffer.from(r.value as Buffer).toString('utf8');
      expect(rest.endsWith('cribl_exporter_x 1\n')).toBe(true);
    },
  );

  it('refuses gzip when Accept-Encoding says q=0', async () => {
    const { server } = await start();
    const res = await get(`${server.url}/metrics`, { 'accept-encoding': 'gzip;q=0' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.text).toContain('cribl_leader_up');
  });

  it('serves the latest built body: a deleted node vanishes after the rebuild', async () => {
    const { server, snapshot, body } = await start();
    expect((await get(`${server.url}/metrics`)).text).toContain('node_id="w1"');
    snapshot.deleteNode('w1');
    await body.rebuild();
    expect((await get(`${server.url}/metrics`)).text).not.toContain('node_id="w1"');
  });

  it('HEAD has the headers of GET and no body', async () => {
    const { server } = await start();
    const full = await get(`${server.url}/metrics`);
    const head = await get(`${server.url}/metrics`, {}, 'HEAD');
    expect(head.status).toBe(200);
    for (const h of ['content-type', 'vary', 'content-encoding']) expect(head.headers[h]).toBe(full.headers[h]);
    expect(full.bytes.length).toBeGreaterThan(0);
    expect(head.bytes.length).toBe(0);
  });

  it('/healthz is always 200; /readyz only once ready', async () => {
    const { server, setReady } = await start();
    expect((await get(`${server.url}/healthz`)).status).toBe(200);
    expect((await get(`${server.url}/readyz`)).status).toBe(503);
    setReady(true);
    expect((await get(`${server.url}/readyz`)).status).toBe(200);
  });

  it('/ serves the status page as HTML under its CSP, Not Found without one', async () => {
    const { server } = await start({ statusPage: { html: () => Promise.resolve('<p>status</p>') } });
    const res = await get(`${server.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(STATUS_CSP);
    expect(res.text).toBe('<p>status</p>');
    expect((await get(`${(await start()).server.url}/`)).status).toBe(404);
  });

  it('404 elsewhere, 405 for other methods', async () => {
    const { server } = await start();
    expect((await get(`${server.url}/nope`)).status).toBe(404);
    const post = await get(`${server.url}/metrics`, {}, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('serves metrics on a custom telemetry path only', async () => {
    const { server } = await start({ telemetryPath: '/custom' });
    expect((await get(`${server.url}/custom?x=1`)).text).toContain('cribl_leader_up');
    expect((await get(`${server.url}/metrics`)).status).toBe(404);
  });

  it('close() returns promptly with keep-alive connections open, and stops serving', async () => {
    const { server } = await start();
    await get(`${server.url}/healthz`); // leaves a keep-alive connection
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    await expect(request(`${server.url}/healthz`)).rejects.toThrow();
  });

  it('fails to start with one line when the port is taken', async () => {
    const { server } = await start();
    await expect(start({ listenAddress: `127.0.0.1:${server.port}` })).rejects.toThrow(/EADDRINUSE/);
  });
});
