import { parseWebConfig } from '../../src/exposition/web-config/parse.js';
import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { Agent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer, type ServerOptions } from '../../src/exposition/server.js';
import { TestStore, testBody } from '../helpers/stores.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { createTestPki, type TestPki } from './certs.js';

// Cost 4 keeps the tests fast; the server reads the cost from the hash.
const ALICE_HASH = bcrypt.hashSync('alice-pw', 4);
const ALICE_HASH_2 = bcrypt.hashSync('alice-pw-2', 4);

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

describe('parseWebConfig', () => {
  it('admits a bcrypt cost up to 14 and user names that can log in', () => {
    const c = parseWebConfig(
      ['basic_auth_users:', `  alice: "$2b$14$${'a'.repeat(53)}"`, `  "bob smith": ${ALICE_HASH}`].join('\n'),
      '/w.yml',
    );
    expect([...c.users.keys()]).toEqual(['alice', 'bob smith']);
  });

  it('parses every supported key, resolving paths against the file', () => {
    const c = parseWebConfig(
      [
        'tls_server_config:',
        '  cert_file: tls/server.crt',
        '  key_file: /abs/server.key',
        '  client_auth_type: RequireAndVerifyClientCert',
        '  client_ca_file: ca.crt',
        '  min_version: TLS13',
        '  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]',
        '  curve_preferences: [X25519, CurveP256]',
        '  client_allowed_sans: [prometheus.example]',
        'http_server_config:',
        '  http2: false',
        '  headers:',
        '    X-Frame-Options: deny',
        '    Strict-Transport-Security: max-age=31536000',
        'basic_auth_users:',
        `  alice: ${ALICE_HASH}`,
        'rate_limit:',
        '  interval: 100ms',
        '  burst: 5',
      ].join('\n'),
      '/etc/cribl-exporter/web.yml',
    );
    expect(c.tls).toEqual({
      certFile: '/etc/cribl-exporter/tls/server.crt',
      keyFile: '/abs/server.key',
      clientCaFile: '/etc/cribl-exporter/ca.crt',
      clientAuth: 'RequireAndVerifyClientCert',
      minVersion: 'TLSv1.3',
      maxVersion: 'TLSv1.3',
      honorCipherOrder: true,
      ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256',
      ecdhCurve: 'X25519:P-256',
      clientAllowedSans: ['prometheus.example'],
    });
    expect(c.headers).toEqual({ 'X-Frame-Options': 'deny', 'Strict-Transport-Security': 'max-age=31536000' });
    expect([...c.users.keys()]).toEqual(['alice']);
    expect(c.rateLimit).toEqual({ intervalMs: 100, burst: 5 });
  });

  it.each([['empty sections', 'tls_server_config:\nbasic_auth_users:\n']])('%s: no TLS, no auth', (_name, text) => {
    const c = parseWebConfig(text, '/w.yml');
    expect(c.tls).toBeUndefined();
    expect(c.users.size).toBe(0);
  });

  it.each([
    [
      'empty file (a config emptied while written must not turn basic auth off)',
      '\n# nothing\n',
      'web config /w.yml: the file is empty (to serve without TLS and basic auth, leave out --web.config.file)',
    ],
    ['unknown top-level key', 'tls_config: {}', 'web config /w.yml: unknown key "tls_config"'],
    [
      'unknown nested key',
      'tls_server_config:\n  cert_fil: x',
      'web config /w.yml: unknown key "tls_server_config.cert_fil"',
    ],
    [
      'bad client auth',
      'tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Always',
      'tls_server_config.client_auth_type: expected one of NoClientCert',
    ],
    [
      'bad TLS version',
      'tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS99',
      'tls_server_config.min_version: expected one of TLS10, TLS11, TLS12, TLS13',
    ],
    ['missing key', 'tls_server_config:\n  cert_file: a', 'tls_server_config: missing one of key or key_file'],
    ['missing cert', 'tls_server_config:\n  key_file: a', 'tls_server_config: missing one of cert or cert_file'],
    [
      'CA without client auth',
      'tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c',
      'client_ca_file is set but client_auth_type is NoClientCert',
    ],
    [
      'SANs without required cert',
      'tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: VerifyClientCertIfGiven\n  ' +
        'client_allowed_sans: [x]',
      'client_allowed_sans: needs client_auth_type',
    ],
    [
      'unknown cipher',
      'tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [TLS_NOPE]',
      'cipher_suites: unknown cipher "TLS_NOPE"',
    ],
    [
      'unknown curve',
      'tls_server_config:\n  cert_file: a\n  key_file: b\n  curve_preferences: [P999]',
      'curve_preferences: unknown curve "P999"',
    ],
    [
      'header not allowed',
      'http_server_config:\n  headers:\n    X-Powered-By: me',
      'http_server_config.headers: header "X-Powered-By" can not be configured',
    ],
    [
      'header value not allowed',
      'http_server_config:\n  headers:\n    X-Frame-Options: always',
      'http_server_config.headers.X-Frame-Options: expected one of deny, sameorigin',
    ],
    [
      'http2 asked for',
      'http_server_config:\n  http2: true',
      'http_server_config.http2: true is not supported (this exporter serves HTTP/1.1)',
    ],
    ['not a bcrypt hash', 'basic_auth_users:\n  bob: plaintext-secret', 'basic_auth_users.bob: not a bcrypt hash'],
    [
      'bcrypt cost 31',
      `basic_auth_users:\n  bob: "$2b$31$${'a'.repeat(53)}"`,
      'basic_auth_users.bob: bcrypt cost 31 is above 14',
    ],
    [
      'bcrypt cost 15',
      `basic_auth_users:\n  bob: "$2y$15$${'a'.repeat(53)}"`,
      'basic_auth_users.bob: bcrypt cost 15 is above 14',
    ],
    [
      'empty user name',
      `basic_auth_users:\n  "": "$2b$04$${'a'.repeat(53)}"`,
      'basic_auth_users: an empty user name can never log in',
    ],
    [
      'user name with a colon',
      `basic_auth_users:\n  "a:b": "$2b$04$${'a'.repeat(53)}"`,
      'basic_auth_users: user name "a:b" contains ":" and can never log in',
    ],
    ['bad rate interval', 'rate_limit:\n  interval: soon', 'rate_limit.interval: "soon" is not a duration'],
    ['wrong type', 'basic_auth_users: [a, b]', 'web config /w.yml: basic_auth_users:'],
    ['invalid YAML', 'a: [\n', 'web config /w.yml: invalid YAML:'],
    ['duplicate key', 'rate_limit: {}\nrate_limit: {}\n', 'web config /w.yml: invalid YAML:'],
  ])('%s → one clear line', (_name, text, message) => {
    let error: unknown;
    try {
      parseWebConfig(text, '/w.yml');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(Error);
    const msg = (error as Error).message;
    expect(msg).toContain(message);
    expect(msg).not.toContain('\n');
    expect(msg).not.toContain('plaintext-secret');
  });
});

describe('web config on the server', () => {
  let pki: TestPki;
  const servers: RunningServer[] = [];
  const agents: Agent[] = [];
  let fileCounter = 0;

  beforeAll(() => {
    pki = createTestPki();
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    await Promise.all(agents.splice(0).map((a) => a.close()));
  });
  afterAll(() => {
    rmSync(pki.dir, { recursive: true, force: true });
  });

  /** Writes the file with an mtime that moves forward by 10 s per write, so every write is seen. */
  function writeConfig(path: string, lines: string[]): void {
    writeFileSync(path, lines.join('\n'));
    const t = Date.now() / 1000 + ++fileCounter * 10;
    utimesSync(path, t, t);
  }

  async function start(lines: string[], overrides: Partial<ServerOptions> = {}) {
    const path = join(pki.dir, `web-${++fileCounter}.yml`);
    writeConfig(path, lines);
    const clock = new FakeClock();
    const reloads: boolean[] = [];
    const snapshot = new TestStore().discovered();
    const body = testBody([snapshot], { clock });
    const server = await startServer({
      listenAddress: '127.0.0.1:0',
      body,
      collectors: [],
      selfMetrics: { render: () => Promise.resolve(''), setWebConfigReloadSuccessful: (ok) => reloads.push(ok) },
      ready: () => true,
      webConfigFile: path,
      clock,
      ...overrides,
    });
    servers.push(server);
    return { server, path, clock, reloads };
  }

  function client(opts: { cert?: string; key?: string; ca?: boolean } = {}): Agent {
    const agent = new Agent({
      connect: {
        ...(opts.ca === false ? {} : { ca: pki.read(pki.caCert) }),
        ...(opts.cert ? { cert: pki.read(opts.cert) } : {}),
        ...(opts.key ? { key: pki.read(opts.key) } : {}),
      },
    });
    agents.push(agent);
    return agent;
  }

  async function get(url: string, dispatcher: Agent, headers: Record<string, string> = {}) {
    const res = await request(url, { dispatcher, headers });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  }

  const tls = (): string[] => ['tls_server_config:', `  cert_file: ${pki.serverCert}`, `  key_file: ${pki.serverKey}`];
  const mtls = (type = 'RequireAndVerifyClientCert'): string[] => [
    ...tls(),
    `  client_auth_type: ${type}`,
    `  client_ca_file: ${pki.caCert}`,
  ];

  it('serves HTTPS with the configured certificate', async () => {
    const { server } = await start(tls());
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await get(`${server.url}/metrics`, client());
    expect(res.status).toBe(200);
    expect(res.text).toContain('cribl_leader_up 1\n');
    // A client that does not trust our CA refuses the certificate.
    await expect(get(`${server.url}/metrics`, client({ ca: false }))).rejects.toThrow();
  });

  it('mTLS: RequireAndVerifyClientCert accepts our client, refuses no cert and a rogue cert', async () => {
    const { server } = await start(mtls());
    expect((await get(`${server.url}/metrics`, client({ cert: pki.clientCert, key: pki.clientKey }))).status).toBe(200);
    await expect(get(`${server.url}/metrics`, client())).rejects.toThrow();
    await expect(get(`${server.url}/metrics`, client({ cert: pki.rogueCert, key: pki.rogueKey }))).rejects.toThrow();
  });

  it('RequireAnyClientCert wants a certificate but does not verify it', async () => {
    const { server } = await start(mtls('RequireAnyClientCert'));
    expect((await get(`${server.url}/healthz`, client({ cert: pki.rogueCert, key: pki.rogueKey }))).status).toBe(200);
    await expect(get(`${server.url}/healthz`, client())).rejects.toThrow();
  });

  it('VerifyClientCertIfGiven accepts no certificate, refuses a rogue one', async () => {
    const { server } = await start(mtls('VerifyClientCertIfGiven'));
    expect((await get(`${server.url}/healthz`, client())).status).toBe(200);
    expect((await get(`${server.url}/healthz`, client({ cert: pki.clientCert, key: pki.clientKey }))).status).toBe(200);
    await expect(get(`${server.url}/healthz`, client({ cert: pki.rogueCert, key: pki.rogueKey }))).rejects.toThrow();
  });

  it('client_allowed_sans refuses a verified client with another SAN', async () => {
    const allowed = await start([...mtls(), '  client_allowed_sans: [prometheus.example]']);
    expect(
      (await get(`${allowed.server.url}/healthz`, client({ cert: pki.clientCert, key: pki.clientKey }))).status,
    ).toBe(200);
    const other = await start([...mtls(), '  client_allowed_sans: [grafana.example]']);
    await expect(
      get(`${other.server.url}/healthz`, client({ cert: pki.clientCert, key: pki.clientKey })),
    ).rejects.toThrow();
  });

  it('basic auth: right password 200, wrong 401 with a challenge; probes stay open', async () => {
    const { server } = await start(['basic_auth_users:', `  alice: ${ALICE_HASH}`]);
    const agent = new Agent();
    agents.push(agent);
    expect((await get(`${server.url}/metrics`, agent, { authorization: basic('alice', 'alice-pw') })).status).toBe(200);
    const wrong = await get(`${server.url}/metrics`, agent, { authorization: basic('alice', 'wrong') });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Basic');
    expect(wrong.text).not.toContain('cribl_');
    expect((await get(`${server.url}/metrics`, agent)).status).toBe(401);
    expect((await get(`${server.url}/`, agent)).status).toBe(401);
    expect((await get(`${server.url}/healthz`, agent)).status).toBe(200);
    expect((await get(`${server.url}/readyz`, agent)).status).toBe(200);
  });

  it('TLS and basic auth together', async () => {
    const { server } = await start([...tls(), 'basic_auth_users:', `  alice: ${ALICE_HASH}`]);
    const agent = client();
    expect((await get(`${server.url}/metrics`, agent, { authorization: basic('alice', 'alice-pw') })).status).toBe(200);
    expect((await get(`${server.url}/metrics`, agent)).status).toBe(401);
  });

  it('adds the configured headers to every response', async () => {
    const { server } = await start([
      'http_server_config:',
      '  headers:',
      '    X-Frame-Options: deny',
      '    X-Content-Type-Options: nosniff',
    ]);
    const agent = new Agent();
    agents.push(agent);
    for (const path of ['/metrics', '/nope']) {
      const res = await get(`${server.url}${path}`, agent);
      expect(res.headers['x-frame-options']).toBe('deny');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('rate_limit starts with a full bucket (as Go x/time/rate) and answers 429 beyond the burst', async () => {
    const { server, clock } = await start(['rate_limit:', '  interval: 1s', '  burst: 2']);
    const agent = new Agent();
    agents.push(agent);
    // No time passes before the first requests: the burst is there from the start.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(`${server.url}/healthz`, agent)).status);
    expect(statuses).toEqual([200, 200, 429]);
    await clock.advance(1000);
    expect((await get(`${server.url}/healthz`, agent)).status).toBe(200);
  });

  it('re-reads the file when it changes: new users apply, a broken file keeps the last good one', async () => {
    const { server, path, clock, reloads } = await start(['basic_auth_users:', `  alice: ${ALICE_HASH}`]);
    const agent = new Agent();
    agents.push(agent);
    const status = async (pw: string) =>
      (await get(`${server.url}/metrics`, agent, { authorization: basic('alice', pw) })).status;
    expect(await status('alice-pw')).toBe(200);

    writeConfig(path, ['basic_auth_users:', `  alice: ${ALICE_HASH_2}`]);
    expect(await status('alice-pw')).toBe(200); // not re-checked before the recheck period
    await clock.advance(1000);
    expect(await status('alice-pw-2')).toBe(200);
    expect(await status('alice-pw')).toBe(401);
    expect(reloads.at(-1)).toBe(true);

    writeConfig(path, ['basic_auth_users:', '  alice: not-a-hash']);
    await clock.advance(1000);
    expect(await status('alice-pw-2')).toBe(200);
    expect(reloads.at(-1)).toBe(false);

    // A cost that would hold the CPU for days is refused on reload as at the start: the previous file stays.
    writeConfig(path, ['basic_auth_users:', `  alice: ${ALICE_HASH.replace('$04$', '$31$')}`]);
    await clock.advance(1000);
    expect(await status('alice-pw-2')).toBe(200);
    expect(reloads.at(-1)).toBe(false);

    writeConfig(path, ['basic_auth_users:', `  alice: ${ALICE_HASH}`]);
    await clock.advance(1000);
    expect(await status('alice-pw')).toBe(200);
    expect(reloads.at(-1)).toBe(true);
  });

  it('rotates the certificate and the client auth policy without a restart', async () => {
    const { server, path, clock } = await start(tls());
    const serialOf = async (): Promise<string> => {
      const { connect } = await import('node:tls');
      return new Promise((resolve, reject) => {
        const socket = connect(
          { host: '127.0.0.1', port: server.port, ca: pki.read(pki.caCert), servername: 'localhost' },
          () => {
            resolve(socket.getPeerCertificate().serialNumber);
            socket.end();
          },
        );
        socket.on('error', reject);
      });
    };
    const agent = client();
    const before = await serialOf();
    writeConfig(path, ['tls_server_config:', `  cert_file: ${pki.server2Cert}`, `  key_file: ${pki.server2Key}`]);
    await clock.advance(1000);
    expect((await get(`${server.url}/metrics`, agent)).status).toBe(200); // this request triggers the check
    const after = await serialOf();
    expect(after).not.toBe(before);

    writeConfig(path, mtls());
    await clock.advance(1000);
    await get(`${server.url}/metrics`, agent); // existing connection; triggers the check
    await expect(get(`${server.url}/healthz`, client())).rejects.toThrow();
    expect((await get(`${server.url}/healthz`, client({ cert: pki.clientCert, key: pki.clientKey }))).status).toBe(200);
  });

  it('refuses to turn TLS off on reload', async () => {
    const { server, path, clock, reloads } = await start(tls());
    const agent = client();
    writeConfig(path, ['basic_auth_users: {}']);
    await clock.advance(1000);
    expect((await get(`${server.url}/metrics`, agent)).status).toBe(200);
    expect(reloads.at(-1)).toBe(false);
  });

  it('refuses to start with a bad file, in one line', async () => {
    await expect(
      start(['tls_server_config:', '  cert_file: /nonexistent/server.crt', '  key_file: /nonexistent/server.key']),
    ).rejects.toThrow(/^web config .*web-\d+\.yml: tls_server_config\.cert_file \/nonexistent\/server\.crt: ENOENT$/);
    await expect(
      start(['tls_server_config:', `  cert_file: ${pki.serverCert}`, `  key_file: ${pki.clientKey}`]),
    ).rejects.toThrow(/tls_server_config: cannot use the certificate and key/);
    await expect(start(['basic_auth_user: {}'])).rejects.toThrow('unknown key "basic_auth_user"');
  });
});
