/**
 * The parts of undici the exporter uses, loaded from undici's own files rather than its index: the index loads
 * all of undici (fetch, WebSocket, EventSource, caches, mock agents, interceptors, SOCKS), which the exporter never
 * uses. Measured with the image's flags, idle with 0 nodes (bench/base-mem.mjs, 4 runs): heap used 16.6 → 14.0 MB,
 * V8 heap committed 22.0 → 16.9 MB, RSS 69–70 → 62–63 MB; the same saving at any fleet size. The files are the
 * ones undici's index.js takes these classes from (undici 7) and the prototype methods are mixed in as it does;
 * test/http/undici.test.ts checks both against the package's exports, so an undici release that moves them fails
 * a test rather than the exporter.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

const dispatcher = require('undici/lib/dispatcher/dispatcher.js') as typeof Undici.Dispatcher;
// request(), stream(), pipeline(), upgrade() and connect() on every dispatcher, as undici's index.js does (idempotent:
// the index assigns the same functions when something else loads it); ProxyAgent needs connect() for its tunnel.
Object.assign(dispatcher.prototype, require('undici/lib/api/index.js') as object);

export const Pool = require('undici/lib/dispatcher/pool.js') as typeof Undici.Pool;
export const Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
export const ProxyAgent = require('undici/lib/dispatcher/proxy-agent.js') as typeof Undici.ProxyAgent;
export const EnvHttpProxyAgent =
  require('undici/lib/dispatcher/env-http-proxy-agent.js') as typeof Undici.EnvHttpProxyAgent;
