import { CONFIG_MAX_BYTES, fileProblem, type ReadFile } from '../util/files.js';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { forLeader } from '../util/logger.js';
import { Agent, EnvHttpProxyAgent, Pool, ProxyAgent } from './undici.js';
import { withoutCredentials } from '../util/url.js';

/** TLS and proxy settings for the connection to a leader. */
export interface TransportConfig {
  caFile?: string;
  insecureSkipVerify: boolean;
  clientCertFile?: string;
  clientKeyFile?: string;
  /** Explicit proxy; otherwise HTTPS_PROXY / HTTP_PROXY / NO_PROXY from the environment are honoured. */
  proxyUrl?: string;
}

/** What createDispatcher needs; `env` is the process environment as the CLI hands it over. */
export interface TransportDeps {
  readFile: ReadFile;
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  /** TCP + TLS handshake timeout. @default 10_000 */
  connectTimeoutMs?: number;
  /** Name of the leader, for the log lines. */
  leader?: string;
}

/** A dispatcher setting is wrong (unreadable file, bad PEM, bad proxy URL); the message names the setting. */
export class TransportConfigError extends Error {
  override readonly name = 'TransportConfigError';
}

export interface TlsOptions {
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
  timeout: number;
}

/**
 * The undici dispatcher for one leader: keep-alive Agent, TLS verified by default. `caFile` replaces the
 * default trust store (only that CA is trusted for the leader); `insecureSkipVerify` turns verification off
 * with a warning; a client certificate and key give mTLS. Proxy: `proxyUrl`, else HTTPS_PROXY / HTTP_PROXY /
 * NO_PROXY (lower-case variants first, as curl) from `env`.
 */
export async function createDispatcher(t: TransportConfig, deps: TransportDeps): Promise<Dispatcher> {
  const tls = await tlsOptions(t, deps);
  const log = forLeader(deps.logger, deps.leader);
  if (t.insecureSkipVerify) {
    log.warn('TLS certificate verification of the leader is disabled (--leader.insecure-skip-verify)');
  }
  const pool = { keepAliveTimeout: 4_000, keepAliveMaxTimeout: 60_000, connectTimeout: tls.timeout };

  if (t.proxyUrl !== undefined) {
    const uri = checkProxyUrl(t.proxyUrl, '--leader.proxy-url');
    log.info({ proxy: withoutCredentials(uri) }, 'sending leader requests through the proxy');
    return new ProxyAgent({ ...pool, uri, requestTls: tls, proxyTls: proxyTls(tls), clientFactory: tunnelClient });
  }

  const env = (name: string): string => deps.env[name.toLowerCase()] ?? deps.env[name] ?? '';
  const httpProxy = env('HTTP_PROXY');
  const httpsProxy = env('HTTPS_PROXY');
  if (httpProxy === '' && httpsProxy === '') return new Agent({ ...pool, connect: tls });

  if (httpProxy !== '') checkProxyUrl(httpProxy, 'HTTP_PROXY');
  if (httpsProxy !== '') checkProxyUrl(httpsProxy, 'HTTPS_PROXY');
  const noProxy = env('NO_PROXY');
  log.info(
    {
      httpProxy: httpProxy === '' ? undefined : withoutCredentials(httpProxy),
      httpsProxy: httpsProxy === '' ? undefined : withoutCredentials(httpsProxy),
      noProxy: noProxy === '' ? undefined : noProxy,
    },
    'using the proxy from the environment for leader requests',
  );
  // Empty strings, not undefined: undici would otherwise read process.env itself.
  return new EnvHttpProxyAgent({
    ...pool,
    httpProxy,
    httpsProxy,
    noProxy,
    connect: tls,
    requestTls: tls,
    proxyTls: proxyTls(tls),
    clientFactory: tunnelClient,
  });
}

/** A proxy dropped the connection while a CONNECT tunnel was being set up. */
export class ProxyTunnelError extends Error {
  override readonly name = 'ProxyTunnelError';
  readonly code = 'UND_ERR_PRX_CONN';
}

/**
 * The proxy's connection pool. undici 7 retries a CONNECT that the proxy closes without an answer in a tight
 * loop, forever (nodejs/undici#3897, fixed upstream by #5441 later): a socket error there becomes a final error.
 */
class TunnelPool extends Pool {
  override connect(options: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData>;
  override connect(
    options: Dispatcher.ConnectOptions,
    callback: (err: Error | null, data: Dispatcher.ConnectData) => void,
  ): void;
  override connect(
    options: Dispatcher.ConnectOptions,
    callback?: (err: Error | null, data: Dispatcher.ConnectData) => void,
  ): Promise<Dispatcher.ConnectData> | void {
    if (callback) return super.connect(options, callback);
    return super.connect(options).catch((err: unknown) => {
      if ((err as { code?: unknown } | null)?.code === 'UND_ERR_SOCKET') {
        throw new ProxyTunnelError('the proxy closed the connection while opening a tunnel (CONNECT)');
      }
      throw err;
    });
  }
}

function tunnelClient(origin: URL, opts: object): Dispatcher {
  return new TunnelPool(origin, opts);
}

/** The TLS options of the connection to a leader (files read and checked), as the dispatcher uses them. */
export async function tlsOptions(
  t: TransportConfig,
  deps: Pick<TransportDeps, 'readFile' | 'connectTimeoutMs'>,
): Promise<TlsOptions> {
  const tls: TlsOptions = { rejectUnauthorized: !t.insecureSkipVerify, timeout: deps.connectTimeoutMs ?? 10_000 };
  if (t.caFile !== undefined) {
    tls.ca = await readPem(deps.readFile, t.caFile, '--leader.ca-file');
    checkCertificate(tls.ca, t.caFile, '--leader.ca-file');
  }
  if ((t.clientCertFile === undefined) !== (t.clientKeyFile === undefined)) {
    throw new TransportConfigError('--leader.client-cert-file and --leader.client-key-file must be given together');
  }
  if (t.clientCertFile !== undefined && t.clientKeyFile !== undefined) {
    tls.cert = await readPem(deps.readFile, t.clientCertFile, '--leader.client-cert-file');
    checkCertificate(tls.cert, t.clientCertFile, '--leader.client-cert-file');
    tls.key = await readPem(deps.readFile, t.clientKeyFile, '--leader.client-key-file');
    try {
      createPrivateKey(tls.key);
    } catch {
      // The crypto error is not quoted: it could echo part of the key.
      throw new TransportConfigError(`--leader.client-key-file ${t.clientKeyFile} is not a readable private key (PEM)`);
    }
  }
  return tls;
}

// The proxy itself is verified against the default roots plus the private CA: corporate proxies that
// intercept TLS usually present a certificate from that same CA, other proxies a public one.
function proxyTls(tls: TlsOptions): { ca?: string[]; rejectUnauthorized: boolean; timeout: number } {
  return {
    rejectUnauthorized: tls.rejectUnauthorized,
    timeout: tls.timeout,
    ...(tls.ca !== undefined ? { ca: [...rootCertificates, tls.ca] } : {}),
  };
}

async function readPem(readFile: ReadFile, path: string, setting: string): Promise<string> {
  try {
    // Certificate files get the configuration cap: a CA bundle is often a few hundred KiB.
    return await readFile(path, { setting, maxBytes: CONFIG_MAX_BYTES });
  } catch (e) {
    throw new TransportConfigError(`cannot read ${setting} ${path}: ${fileProblem(e)}`);
  }
}

function checkCertificate(pem: string, path: string, setting: string): void {
  try {
    new X509Certificate(pem);
  } catch {
    throw new TransportConfigError(`${setting} ${path} is not a PEM certificate`);
  }
}

function checkProxyUrl(url: string, setting: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TransportConfigError(`${setting} is not a valid URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new TransportConfigError(`${setting} must be an http:// or https:// URL, not ${u.protocol}`);
  }
  return url;
}
