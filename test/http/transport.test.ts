import { readFileSync } from 'node:fs';
import { request } from 'undici';
import type { Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher, TransportConfigError, type TransportConfig } from '../../src/http/transport.js';
import { captureLogger } from '../auth/helpers.js';
import { generatePki } from './certs.js';
import type { TestPki } from './certs.js';
import { startHttpLeader, startHttpsLeader, startProxy } from './servers.js';
import type { Started } from './servers.js';

let pki: TestPki;
beforeAll(() => {
  pki = generatePki();
});
afterAll(() => pki.cleanup());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const readUtf8 = (p: string): Promise<string> => Promise.resolve(readFileSync(p, 'utf8'));
const plain: TransportConfig = { insecureSkipVerify: false };

async function dispatcher(t: TransportConfig, env: Record<string, string | undefined> = {}) {
  const log = captureLogger();
  const d = await createDispatcher(t, { readFile: readUtf8, env, logger: log.logger, connectTimeoutMs: 5_000 });
  cleanups.push(() => d.close());
  return { d, log };
}

async function track<T extends Started>(s: Promise<T>): Promise<T> {
  const started = await s;
  cleanups.push(() => started.close());
  return started;
}

async function health(d: Dispatcher, base: string): Promise<{ status: number; body: { clientCN: string | null } }> {
  const res = await request(`${base}/api/v1/health`, { dispatcher: d });
  return { status: res.statusCode, body: (await res.body.json()) as { clientCN: string | null } };
}

async function failure(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeDefined();
  const { code, cause } = e as { code?: string; cause?: { code?: string } };
  return String(code ?? cause?.code);
}

describe('TLS', () => {
  it('trusts a leader whose certificate comes from --leader.ca-file', async () => {
    const leader = await track(startHttpsLeader({ cert: pki.read(pki.serverCert), key: pki.read(pki.serverKey) }));
    const { d } = await dispatcher({ ...plain, caFile: pki.caFile });
    expect((await health(d, leader.url)).status).toBe(200);
  });

  it('verifies by default: the private CA is not trusted without --leader.ca-file', async () => {
    const leader = await track(startHttpsLeader({ cert: pki.read(pki.serverCert), key: pki.read(pki.serverKey) }));
    const { d } = await dispatcher(plain);
    expect(await failure(health(d, leader.url))).toMatch(
      /UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER/,
    );
  });

  it('the CA file replaces the default roots: a certificate from another CA is rejected', async () => {
    const leader = await track(startHttpsLeader({ cert: pki.read(pki.serverCert), key: pki.read(pki.serverKey) }));
    const { d } = await dispatcher({ ...plain, caFile: pki.otherCaFile });
    expect(await failure(health(d, leader.url))).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER/);
  });

  it('--leader.insecure-skip-verify accepts any certificate and logs a warning at start', async () => {
    const leader = await track(startHttpsLeader({ cert: pki.read(pki.serverCert), key: pki.read(pki.serverKey) }));
    const { d, log } = await dispatcher({ insecureSkipVerify: true });
    const warnings = log.records().filter((r) => r.level === 'warn');
    expect(warnings.map((r) => r.msg)).toEqual([
      'TLS certificate verification of the leader is disabled (--leader.insecure-skip-verify)',
    ]);
    expect((await health(d, leader.url)).status).toBe(200);
  });

  it('presents the client certificate to a leader that requires one (mTLS)', async () => {
    const leader = await track(
      startHttpsLeader({
        cert: pki.read(pki.serverCert),
        key: pki.read(pki.serverKey),
        ca: pki.read(pki.caFile),
        requestCert: true,
        rejectUnauthorized: true,
      }),
    );
    const withCert = await dispatcher({
      ...plain,
      caFile: pki.caFile,
      clientCertFile: pki.clientCertFile,
      clientKeyFile: pki.clientKeyFile,
    });
    expect((await health(withCert.d, leader.url)).body.clientCN).toBe('client');
    const without = await dispatcher({ ...plain, caFile: pki.caFile });
    await expect(health(without.d, leader.url)).rejects.toThrow();
  });

  it.each([
    [{ caFile: '/nonexistent/ca.pem' }, 'cannot read --leader.ca-file /nonexistent/ca.pem: ENOENT'],
    [{ clientCertFile: '/x' }, '--leader.client-cert-file and --leader.client-key-file must be given together'],
  ])('a bad setting %j fails at start with one line naming it', async (over, message) => {
    await expect(dispatcher({ ...plain, ...over })).rejects.toThrow(new TransportConfigError(message));
  });

  it('a file that is not PEM is named', async () => {
    await expect(dispatcher({ ...plain, caFile: pki.serverKey })).rejects.toThrow(
      `--leader.ca-file ${pki.serverKey} is not a PEM certificate`,
    );
    await expect(
      dispatcher({ ...plain, clientCertFile: pki.clientCertFile, clientKeyFile: pki.clientCertFile }),
    ).rejects.toThrow(`--leader.client-key-file ${pki.clientCertFile} is not a readable private key (PEM)`);
  });
});

describe('proxies', () => {
  it('HTTPS_PROXY tunnels a TLS leader through the proxy (CONNECT), CA still verified', async () => {
    const leader = await track(startHttpsLeader({ cert: pki.read(pki.serverCert), key: pki.read(pki.serverKey) }));
    const proxy = await track(startProxy());
    const { d } = await dispatcher({ ...plain, caFile: pki.caFile }, { HTTPS_PROXY: proxy.url });
    expect((await health(d, leader.url)).status).toBe(200);
    expect(proxy.seen).toEqual([{ method: 'CONNECT', target: `127.0.0.1:${leader.port}` }]);
  });

  it('lower-case https_proxy wins over HTTPS_PROXY, as in curl', async () => {
    const leader = await track(startHttpsLeader({ cert: pki.read(pki.serverCert), key: pki.read(pki.serverKey) }));
    const proxy = await track(startProxy());
    const { d } = await dispatcher(
      { ...plain, caFile: pki.caFile },
      { https_proxy: proxy.url, HTTPS_PROXY: 'http://127.0.0.1:1' },
    );
    expect((await health(d, leader.url)).status).toBe(200);
    expect(proxy.seen).toHaveLength(1);
  });

  it('HTTP_PROXY carries a plain-http leader; NO_PROXY bypasses the proxy', async () => {
    const leader = await track(startHttpLeader());
    const proxy = await track(startProxy());
    const via = await dispatcher(plain, { HTTP_PROXY: proxy.url });
    expect((await health(via.d, leader.url)).status).toBe(200);
    expect(proxy.seen).toHaveLength(1);
    expect(proxy.seen[0]?.target).toContain(`127.0.0.1:${leader.port}`);

    const bypass = await dispatcher(plain, { HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' });
    expect((await health(bypass.d, leader.url)).status).toBe(200);
    expect(proxy.seen).toHaveLength(1);
  });

  it(
    '--leader.proxy-url is used even without proxy variables, with its credentials sent to the proxy but never ' +
      'logged',
    async () => {
      const leader = await track(startHttpsLeader({ cert: pki.read(pki.serverCert), key: pki.read(pki.serverKey) }));
      const proxy = await track(startProxy());
      const withCreds = proxy.url.replace('http://', 'http://proxyuser:pr0xy-pa55@');
      const { d, log } = await dispatcher({ ...plain, caFile: pki.caFile, proxyUrl: withCreds });
      expect((await health(d, leader.url)).status).toBe(200);
      expect(proxy.seen).toEqual([
        {
          method: 'CONNECT',
          target: `127.0.0.1:${leader.port}`,
          auth: `Basic ${Buffer.from('proxyuser:pr0xy-pa55').toString('base64')}`,
        },
      ]);
      const out = log.lines.join('');
      expect(out).toContain(`"proxy":"${proxy.url}"`);
      expect(out).not.toContain('pr0xy-pa55');
    },
  );

  it.each([
    ['HTTPS_PROXY', (url: string) => [{ ...plain, caFile: pki.caFile }, { HTTPS_PROXY: url }] as const],
    ['--leader.proxy-url', (url: string) => [{ ...plain, caFile: pki.caFile, proxyUrl: url }, {}] as const],
  ])(
    '%s: a proxy that drops the tunnel fails the request at once instead of reconnecting in a loop',
    async (_n, cfg) => {
      const leader = await track(startHttpsLeader({ cert: pki.read(pki.serverCert), key: pki.read(pki.serverKey) }));
      const proxy = await track(startProxy({ dropTunnels: true }));
      const [t, env] = cfg(proxy.url);
      const { d } = await dispatcher(t, env);
      expect(await failure(health(d, leader.url))).toBe('UND_ERR_PRX_CONN');
      expect(proxy.seen).toHaveLength(1);
    },
  );

  it('a proxy that cannot reach the leader (502) fails the request', async () => {
    const proxy = await track(startProxy());
    const { d } = await dispatcher({ ...plain, caFile: pki.caFile }, { HTTPS_PROXY: proxy.url });
    await expect(health(d, 'https://127.0.0.1:9')).rejects.toThrow('Proxy response (502)');
  });

  it('no proxy variables: requests go straight to the leader', async () => {
    const leader = await track(startHttpLeader());
    const proxy = await track(startProxy());
    const { d } = await dispatcher(plain, {});
    expect((await health(d, leader.url)).status).toBe(200);
    expect(proxy.seen).toHaveLength(0);
  });

  it.each([
    [{ proxyUrl: 'not a url' }, {}, '--leader.proxy-url is not a valid URL'],
    [{ proxyUrl: 'socks5://127.0.0.1:1080' }, {}, '--leader.proxy-url must be an http:// or https:// URL, not socks5:'],
    [{}, { HTTPS_PROXY: '::bad' }, 'HTTPS_PROXY is not a valid URL'],
  ])('rejects a bad proxy %j %j', async (over, env, message) => {
    await expect(dispatcher({ ...plain, ...over }, env)).rejects.toThrow(new TransportConfigError(message));
  });
});
