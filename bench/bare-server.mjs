// The physical floor for serving /metrics: a bare node:http server on 127.0.0.1:0 that answers every
// request with bytes captured from the exporter (identity or gzip, as the request asks), nothing else.
//   node bench/bare-server.mjs <identity-file> <gzip-file> <content-type>
// Sends {url} over IPC when listening; exits when the IPC channel closes.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [identityFile, gzipFile, contentType] = process.argv.slice(2);
const identity = readFileSync(identityFile);
const gzip = readFileSync(gzipFile);

const server = createServer((req, res) => {
  const gz = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
  const body = gz ? gzip : identity;
  res.writeHead(200, {
    'Content-Type': contentType,
    'Content-Length': body.length,
    ...(gz ? { 'Content-Encoding': 'gzip' } : {}),
  });
  res.end(body);
});
server.listen(0, '127.0.0.1', () =>
  process.send?.({ ready: true, url: `http://127.0.0.1:${server.address().port}/metrics` }),
);
process.once('disconnect', () => process.exit(0));
process.once('SIGTERM', () => process.exit(0));
