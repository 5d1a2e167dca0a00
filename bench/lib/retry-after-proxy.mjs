// A loopback HTTP proxy in front of the simulated leader that gives every 429 a fixed `Retry-After` (issue 40's
// leader: 429 with `Retry-After: 2`). The simulator's own rate limit announces the time until its next token (1 s
// at 40/s); a real leader may announce more. Everything else passes through untouched. It counts the requests that
// arrive while a Retry-After it sent is still running (one client: the exporter): violations.
// Used by bench/fair.mjs; drop it once the simulator can announce a fixed Retry-After itself.

import { createServer } from 'node:http';
import { Pool } from 'undici';

/** Hop-by-hop headers a proxy does not forward. */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

/**
 * Starts the proxy on 127.0.0.1 (a free port) in front of `target` (an origin): `{ url, stats(), close() }`, `url`
 * the proxy's origin. `retryAfterS` replaces the Retry-After of every 429 answer.
 */
export async function startRetryAfterProxy(target, { retryAfterS, connections = 16, now = () => Date.now() }) {
  const pool = new Pool(target, { connections });
  let until = 0;
  let violations = 0;
  let rewritten = 0;
  const server = createServer((req, res) => {
    if (now() < until) violations++;
    const headers = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k) && k !== 'host' && v !== undefined) headers[k] = v;
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      pool
        .request({ method: req.method, path: req.url, headers, body })
        .then(async (r) => {
          const out = {};
          for (const [k, v] of Object.entries(r.headers)) if (!HOP.has(k)) out[k] = v;
          if (r.statusCode === 429) {
            out['retry-after'] = String(retryAfterS);
            until = Math.max(until, now() + retryAfterS * 1000);
            rewritten++;
          }
          const bytes = Buffer.from(await r.body.arrayBuffer());
          out['content-length'] = String(bytes.length);
          res.writeHead(r.statusCode, out);
          res.end(bytes);
        })
        .catch(() => {
          if (!res.headersSent) res.writeHead(502).end();
          else res.destroy();
        });
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => ({ retryAfterS, rewritten, violations }),
    async close() {
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(() => resolve()));
      await pool.close();
    },
  };
}
