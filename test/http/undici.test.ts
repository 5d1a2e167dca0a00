/**
 * src/http/undici.ts loads undici's classes from its own files, not from its index (memory). These tests fail when
 * an undici release moves those files or changes what the index exports, and when the exporter's HTTP path starts
 * loading the index again or needs something only the index sets up.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import * as ours from '../../src/http/undici.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('undici without its index', () => {
  it('gives the very classes that undici exports', () => {
    expect(ours.Pool).toBe(undici.Pool);
    expect(ours.Agent).toBe(undici.Agent);
    expect(ours.ProxyAgent).toBe(undici.ProxyAgent);
    expect(ours.EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
  });

  it('sends bounded requests directly and through a CONNECT proxy in a process that never loads the index', () => {
    // A fresh process: nothing else there mixes request() and connect() into undici's Dispatcher (ProxyAgent opens
    // its tunnel with connect()).
    const script = `
      import { createServer, request } from 'node:http';
      import { connect } from 'node:net';
      import { createRequire } from 'node:module';
      import { pino } from 'pino';
      const { createDispatcher } = await import('./src/http/transport.ts');
      const { boundedRequest } = await import('./src/http/bounded.ts');
      const listen = (s) => new Promise((r) => s.listen(0, '127.0.0.1', () => r(s.address().port)));
      const server = createServer((req, res) => res.end(JSON.stringify({ path: req.url, method: req.method })));
      let tunnels = 0;
      const proxy = createServer().on('connect', (req, client) => {
        tunnels++;
        const [host, port] = req.url.split(':');
        const up = connect(Number(port), host, () => {
          client.write('HTTP/1.1 200 Connection Established\\r\\n\\r\\n');
          up.pipe(client).pipe(up);
        });
      });
      const url = 'http://127.0.0.1:' + (await listen(server)) + '/a/b?c=1';
      const proxyUrl = 'http://127.0.0.1:' + (await listen(proxy));
      const noFile = async () => { throw new Error('no files'); };
      const deps = { env: {}, readFile: noFile, logger: pino({ level: 'silent' }) };
      const out = [];
      for (const t of [{ insecureSkipVerify: false }, { insecureSkipVerify: false, proxyUrl }]) {
        const dispatcher = await createDispatcher(t, deps);
        const res = await boundedRequest({ url, method: 'GET', headers: {}, dispatcher });
        out.push({ status: res.status, json: res.json });
        await dispatcher.close();
      }
      server.close();
      proxy.close();
      const require = createRequire(import.meta.url);
      console.log(JSON.stringify({ out, tunnels, indexLoaded: require.resolve('undici') in require.cache }));
    `;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const answer = { status: 200, json: { path: '/a/b?c=1', method: 'GET' } };
    expect(JSON.parse(out.trim().split('\n').at(-1) ?? '')).toEqual({
      out: [answer, answer],
      tunnels: 1,
      indexLoaded: false,
    });
  });
});
