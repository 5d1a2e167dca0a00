import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCheckCommand, type CheckIo } from '../../src/check/command.js';
import { formatText, type CheckResult } from '../../src/check/report.js';
import { runCommand } from '../../src/commands.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { systemClock, type Clock } from '../../src/util/clock.js';
import { generatePki, type TestPki } from '../http/certs.js';

// `cribl-exporter check` against the simulated leader, one failure mode at a time: each test asserts the lines
// that name the problem, their fix, and the exit code.

const SECRET = 'sim-static-token-never-printed';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function sim(opts: SimulatorOptions = {}): Promise<Simulator> {
  const s = await startSimulator({ nodes: 20, seed: 4, token: SECRET, ...opts });
  cleanups.push(() => s.close());
  return s;
}

interface Run {
  code: number;
  out: string[];
  err: string[];
  results: CheckResult[];
  /** The result of one check, by id and (when there are several) by a part of its message. */
  line(check: string, contains?: string): CheckResult;
}

async function check(argv: string[], env: Record<string, string> = {}, extra: Partial<CheckIo> = {}): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCheckCommand(['--output', 'json', ...argv], {
    env,
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    readFile: (p) => readFileSync(p, 'utf8'),
    version: '0.0.0-test',
    ...extra,
  });
  const results = out.length ? (JSON.parse(out.join('\n')) as { results: CheckResult[] }).results : [];
  return {
    code,
    out,
    err,
    results,
    line(id, contains) {
      const r = results.find((x) => x.check === id && (contains === undefined || x.message.includes(contains)));
      if (!r) throw new Error(`no ${id} line${contains ? ` with "${contains}"` : ''} in:\n${out.join('\n')}`);
      return r;
    },
  };
}

const statuses = (r: Run): string[] => r.results.map((x) => `${x.check}:${x.status}`);

/** A clock `offsetMs` ahead of the real one (the leader's Date header then looks that far behind). */
const offsetClock = (offsetMs: number): Clock => ({
  now: () => Date.now() + offsetMs,
  sleep: (ms, signal) => systemClock.sleep(ms, signal),
});

const jwt = (exp: number): string =>
  [
    { alg: 'HS256', typ: 'JWT' },
    { sub: 'exporter', exp },
  ]
    .map((p) => Buffer.from(JSON.stringify(p)).toString('base64url'))
    .join('.') + '.c2ln';

describe('cribl-exporter check: a healthy leader', () => {
  it('passes every check, prints one line per check with its mark, and exits 0 (text)', async () => {
    const s = await sim();
    const out: string[] = [];
    const code = await runCommand({
      argv: ['check', '--leader.url', s.baseUrl],
      env: { CRIBL_TOKEN: SECRET },
      stdout: (l) => out.push(l),
      stderr: (l) => out.push(l),
      readFile: (p) => readFileSync(p, 'utf8'),
      signal: new AbortController().signal,
      version: '0.0.0-test',
      nodejsVersion: process.version,
    });
    const text = out.join('\n');
    expect(code, text).toBe(0);
    expect(out[0]).toBe(`leader ${new URL(s.baseUrl).host} (${s.baseUrl})`);
    for (const title of ['DNS', 'TCP', 'TLS', 'health', 'clock', 'auth', 'permission', 'fleet', 'version', 'rate']) {
      expect(text).toMatch(new RegExp(`^  ✓ ${title} `, 'm'));
    }
    expect(text).not.toMatch(/^ {2}[✗!-] /m);
    expect(text).toMatch(/✓ fleet +stream: \d+ nodes in 3 groups \(default \d+, prod-east \d+, prod-west \d+\)/);
    expect(text).toMatch(/✓ rate +needs [\d.]+ requests\/s for 20 nodes .*--leader\.max-rps allows 50$/m);
    expect(out.at(-1)).toMatch(/^no problem found, 0 warnings, \d+ ok$/);
    expect(text).not.toContain(SECRET);
  });

  it('--output json: one document with every result; the token is in none of it', async () => {
    const s = await sim();
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: SECRET });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out.join('\n')) as { ok: boolean; counts: Record<string, number>; targets: unknown[] };
    expect(doc.ok).toBe(true);
    expect(doc.counts.fail).toBe(0);
    expect(doc.targets).toEqual([{ name: new URL(s.baseUrl).host, url: s.baseUrl }]);
    expect(statuses(r)).toEqual([
      'dns:ok',
      'tcp:ok',
      'tls:ok',
      'health:ok',
      'clock:ok',
      'auth:ok',
      'permission:ok',
      'permission:ok',
      'permission:ok',
      'permission:ok',
      'fleet:ok',
      'fleet:ok',
      'permission:ok',
      'permission:ok',
      'version:ok',
      'rate:ok',
    ]);
    expect(r.out.join('')).not.toContain(SECRET);
    // Contacted once: one health poll and one metadata poll of a node, never a poll cycle.
    expect(s.stats().requests['/w/{nodeId}/health']).toEqual({ '200': 1 });
  });

  it('through the budget: a leader that rate-limits (429) is waited for, not reported broken', async () => {
    const s = await sim({ nodes: 5 });
    s.setFaults({ rateLimit: { rate: 4, burst: 2, retryAfter: 'seconds' } });
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: SECRET });
    expect(r.code, r.out.join('\n')).toBe(0);
    expect(s.stats().requests['/products/{product}/workers']?.['429']).toBeGreaterThan(0);
    expect(s.stats().retryAfterViolations).toBe(0);
  }, 30_000);
});

describe('cribl-exporter check: failure modes', () => {
  it('DNS: a host name that does not resolve', async () => {
    const lookup = (): Promise<never> => Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' }));
    const r = await check(
      ['--leader.url', 'https://leader.example.invalid:9000/api/v1'],
      { CRIBL_TOKEN: SECRET },
      { lookup },
    );
    expect(r.code).toBe(1);
    expect(r.line('dns')).toMatchObject({
      status: 'fail',
      message: 'cannot resolve leader.example.invalid (ENOTFOUND)',
    });
    expect(r.line('dns').fix).toMatch(/host name in the leader URL/);
    expect(statuses(r)).toEqual(['dns:fail', 'tcp:skip', 'tls:skip', 'api:skip']);
  });

  it('TCP: nothing listens on the port', async () => {
    const port = await closedPort();
    const r = await check(['--leader.url', `http://127.0.0.1:${port}/api/v1`], { CRIBL_TOKEN: SECRET });
    expect(r.code).toBe(1);
    expect(r.line('tcp')).toMatchObject({
      status: 'fail',
      message: `connection to 127.0.0.1:${port} refused: nothing listens there`,
    });
    expect(r.line('tcp').fix).toMatch(/port in the leader URL/);
  });

  it('a proxy: the direct checks are skipped and the API checks go through it', async () => {
    const port = await closedPort();
    const s = await sim();
    const r = await check(['--leader.url', s.baseUrl], {
      CRIBL_TOKEN: SECRET,
      HTTP_PROXY: `http://u:pw@127.0.0.1:${port}`,
    });
    expect(r.line('dns')).toMatchObject({ status: 'skip' });
    expect(r.line('dns').message).toContain(`through the proxy http://127.0.0.1:${port}`);
    expect(r.out.join('')).not.toContain('u:pw');
    expect(r.line('health').status).toBe('fail');
    expect(r.code).toBe(1);
  });

  it('health: a leader in standby (420)', async () => {
    const s = await sim();
    s.fleet.setLeaderState('standby');
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: SECRET });
    expect(r.code).toBe(1);
    expect(r.line('health')).toMatchObject({
      status: 'fail',
      message: 'the leader answers "standby" (420): it is not serving',
      fix: 'point the leader URL at the primary leader',
    });
    expect(r.line('api').status).toBe('skip');
  });

  it('credentials refused (401): a wrong token', async () => {
    const s = await sim();
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: 'not-the-token' });
    expect(r.code).toBe(1);
    expect(r.line('permission', '/products/stream/workers')).toMatchObject({
      status: 'fail',
      message: 'GET /products/stream/workers: 401, the credentials were refused',
      fix: 'the token is wrong, expired or revoked: create a new API token for the exporter',
    });
    expect(r.results.some((x) => x.check === 'fleet')).toBe(false);
  });

  it('not allowed (403): valid credentials without permission', async () => {
    const s = await sim();
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: s.forbiddenToken });
    expect(r.code).toBe(1);
    expect(r.line('permission', '/products/stream/workers')).toMatchObject({
      status: 'fail',
      message: 'GET /products/stream/workers: 403, the credentials are valid but not allowed here',
    });
    expect(r.line('permission', '/products/stream/workers').fix).toMatch(/Read Only/);
  });

  it('not found (404): a URL that is not the API base', async () => {
    const s = await sim();
    // A path prefix the leader does not serve (a reverse proxy's, say): every request is a 404.
    const r = await check(['--leader.url', `${s.origin}/cribl/api/v1`], { CRIBL_TOKEN: SECRET });
    expect(r.code).toBe(1);
    expect(r.line('health').message).toBe('GET /health: 404, not found');
    expect(r.line('permission', 'workers')).toMatchObject({
      status: 'fail',
      message: 'GET /products/stream/workers and GET /master/workers: 404, not found',
    });
    expect(r.line('permission', 'workers').fix).toMatch(/ending in \/api\/v1/);
  });

  it('version: a leader before 4.17 is listed with /master/workers', async () => {
    const s = await sim({ leaderVersion: '4.16' });
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: SECRET });
    expect(r.code, r.out.join('\n')).toBe(0);
    expect(r.line('permission', 'master')).toMatchObject({
      status: 'ok',
      message: 'GET /master/workers: allowed (/products/stream/workers answers 404: a leader before 4.17)',
    });
    expect(r.line('version').message).toMatch(
      /^leader before 4\.17: the exporter lists nodes with GET \/master\/workers; nodes run /,
    );
    expect(r.line('health').message).toContain('no role reported');
  });

  it('rate: intervals the allowed rate cannot cover', async () => {
    const s = await sim({ nodes: 200 });
    const r = await check(['--leader.url', s.baseUrl, '--health.interval', '5s', '--leader.max-rps', '20'], {
      CRIBL_TOKEN: SECRET,
    });
    expect(r.code).toBe(1);
    const rate = r.line('rate');
    expect(rate.status).toBe('fail');
    expect(rate.message).toMatch(/^needs 4\d requests\/s for 200 nodes .*; --leader\.max-rps allows 20: /);
    expect(rate.message).toMatch(/: a health cycle would take about 1\ds instead of 5s$/);
    expect(rate.fix).toMatch(/^raise --leader\.max-rps to at least \d+ .* or --health\.interval to at least 1\ds/);

    const close = await check(['--leader.url', s.baseUrl, '--health.interval', '5s', '--leader.max-rps', '45'], {
      CRIBL_TOKEN: SECRET,
    });
    expect(close.line('rate').status).toBe('warn');
    expect(close.code).toBe(0);
  });

  it.each([
    [10_000, 'warn'],
    [120_000, 'fail'],
  ])('clock: this machine %i ms ahead of the leader is a %s', async (offset, status) => {
    const s = await sim({ nodes: 2 });
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: SECRET }, { clock: offsetClock(offset) });
    expect(r.line('clock')).toMatchObject({ status });
    expect(r.line('clock').message).toMatch(new RegExp(`is ${Math.round(offset / 1000)}s behind this machine's$`));
    expect(r.line('clock').fix).toMatch(/NTP/);
  });

  it('auth: an expired JWT as static token', async () => {
    const s = await sim();
    const expired = jwt(Math.floor(Date.now() / 1000) - 3600);
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: expired });
    expect(r.line('auth')).toMatchObject({ status: 'fail', fix: 'create a new API token and give it to the exporter' });
    expect(r.line('auth').message).toMatch(/^static token \(CRIBL_TOKEN\): the token expired on /);
    expect(r.out.join('')).not.toContain(expired);
  });

  it('auth: a JWT expiring within a week is a warning', async () => {
    const s = await sim();
    const soon = jwt(Math.floor(Date.now() / 1000) + 2 * 86400);
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: soon });
    expect(r.line('auth').status).toBe('warn');
    expect(r.line('auth').message).toMatch(/expires .* \(in 4\d hours\)$/);
  });

  it('auth: on-prem login, right and wrong password', async () => {
    const s = await sim();
    const ok = await check(['--leader.url', s.baseUrl, '--leader.username', 'admin'], { CRIBL_PASSWORD: 'admin' });
    expect(ok.line('auth')).toMatchObject({ status: 'ok' });
    expect(ok.line('auth').message).toMatch(/^login as "admin" \(POST \/auth\/login\): got a token that expires /);
    expect(ok.code).toBe(0);
    const bad = await check(['--leader.url', s.baseUrl, '--leader.username', 'admin'], { CRIBL_PASSWORD: 'wrong-pw' });
    expect(bad.line('auth').status).toBe('fail');
    expect(bad.line('auth').fix).toMatch(/--leader\.username and the password/);
    expect(bad.out.join('')).not.toContain('wrong-pw');
    expect(bad.code).toBe(1);
  });

  it('auth: no credentials at all is a warning, and the leader then says 401', async () => {
    const s = await sim();
    const r = await check(['--leader.url', s.baseUrl]);
    expect(r.line('auth').status).toBe('warn');
    expect(r.line('permission', 'stream/workers').fix).toMatch(/^the leader wants credentials/);
  });
});

describe('cribl-exporter check: TLS', () => {
  let pki: TestPki;
  let expired: { cert: string; key: string };
  beforeAll(() => {
    pki = generatePki();
    // A certificate whose end lies before its start: expired from the moment it exists.
    const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: pki.dir, stdio: 'pipe' });
    writeFileSync(join(pki.dir, 'old.ext'), 'subjectAltName=IP:127.0.0.1\n');
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'old.key', '-out', 'old.csr', '-subj', '/CN=old');
    ssl(
      'x509',
      '-req',
      '-in',
      'old.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'old.crt',
      '-days',
      '-1',
      '-extfile',
      'old.ext',
    );
    expired = { cert: pki.read(join(pki.dir, 'old.crt')), key: pki.read(join(pki.dir, 'old.key')) };
  });
  afterAll(() => pki.cleanup());

  const tlsSim = (cert = pki.read(pki.serverCert), key = pki.read(pki.serverKey)): Promise<Simulator> =>
    sim({ nodes: 3, tls: { cert, key } });

  it('a certificate from a private CA without --leader.ca-file', async () => {
    const s = await tlsSim();
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: SECRET });
    expect(r.code).toBe(1);
    const tls = r.line('tls');
    expect(tls.status).toBe('fail');
    expect(tls.message).toMatch(/^the certificate does not chain to a trusted CA \(UNABLE_TO_VERIFY_LEAF_SIGNATURE; /);
    expect(tls.message).toMatch(/; issued by "ca test CA", valid until \d{4}-\d\d-\d\d\)$/);
    expect(tls.fix).toBe(
      'give the CA certificate that issued it ("ca test CA") with --leader.ca-file (a private CA, or the CA of a ' +
        'TLS-inspecting proxy)',
    );
    expect(r.line('api').status).toBe('skip');
  });

  it('with the CA that issued it: trusted; a 2-day certificate is reported as expiring', async () => {
    const s = await tlsSim();
    const r = await check(['--leader.url', s.baseUrl, '--leader.ca-file', pki.caFile], { CRIBL_TOKEN: SECRET });
    expect(r.line('tls')).toMatchObject({ status: 'warn' });
    expect(r.line('tls').message).toMatch(/^the certificate expires in [01] days? \(issued by "ca test CA"/);
    expect(r.line('permission', 'stream/workers').status).toBe('ok');
    expect(r.code).toBe(0);
  });

  it('with another CA: the fix names the file', async () => {
    const s = await tlsSim();
    const r = await check(['--leader.url', s.baseUrl, '--leader.ca-file', pki.otherCaFile], { CRIBL_TOKEN: SECRET });
    expect(r.line('tls').fix).toBe(
      `--leader.ca-file ${pki.otherCaFile} does not hold the CA that issued it ("ca test CA"): ` +
        "use that CA's certificate",
    );
  });

  it('a certificate for another host name', async () => {
    const s = await tlsSim();
    const url = s.baseUrl.replace('127.0.0.1', 'leader.test');
    const lookup = (): Promise<{ address: string }[]> => Promise.resolve([{ address: '127.0.0.1' }]);
    const r = await check(['--leader.url', url, '--leader.ca-file', pki.caFile], { CRIBL_TOKEN: SECRET }, { lookup });
    expect(r.line('tls')).toMatchObject({
      status: 'fail',
      message: 'the certificate is for IP Address:127.0.0.1, DNS:localhost, not leader.test',
    });
  });

  it('an expired certificate', async () => {
    const s = await tlsSim(expired.cert, expired.key);
    const r = await check(['--leader.url', s.baseUrl, '--leader.ca-file', pki.caFile], { CRIBL_TOKEN: SECRET });
    expect(r.line('tls')).toMatchObject({ status: 'fail', fix: "renew the leader's certificate" });
    expect(r.line('tls').message).toMatch(/^the certificate expired on \d{4}-\d\d-\d\d/);
  });

  it('https:// to a port that serves plain HTTP', async () => {
    const s = await sim({ nodes: 1 });
    const r = await check(['--leader.url', s.baseUrl.replace('http:', 'https:')], { CRIBL_TOKEN: SECRET });
    expect(r.line('tls').status).toBe('fail');
    expect(r.line('tls').fix).toBe('the port may serve plain HTTP: try an http:// leader URL');
  });

  it('--leader.insecure-skip-verify: works, with a warning', async () => {
    const s = await tlsSim();
    const r = await check(['--leader.url', s.baseUrl, '--leader.insecure-skip-verify'], { CRIBL_TOKEN: SECRET });
    expect(r.line('tls').status).toBe('warn');
    expect(r.line('tls').message).toMatch(
      /^not verified \(--leader\.insecure-skip-verify\); the certificate is untrusted/,
    );
    expect(r.line('permission', 'stream/workers').status).toBe('ok');
  });
});

describe('cribl-exporter check: the Cribl.Cloud management plane', () => {
  const cloud = (s: Simulator, organization = 'happy-org'): string[] => [
    '--cloud.discover-workspaces',
    '--cloud.organization',
    organization,
    '--cloud.client-id',
    'sim-client',
    '--cloud.token-url',
    s.oauthTokenUrl,
    '--cloud.management-url',
    s.managementUrl,
  ];
  // The simulated workspace's leader is the simulator itself, over http.
  const workspaceUrl = (ws: { leaderFQDN: string }): string => `http://${ws.leaderFQDN}/api/v1`;

  it('lists the workspaces and checks each Active one as a leader', async () => {
    const s = await sim({ nodes: 4, organizationId: 'happy-org' });
    const fqdn = new URL(s.origin).host;
    s.setWorkspaces([
      { workspaceId: 'main', region: 'us-west-2', leaderFQDN: fqdn, state: 'Active' },
      { workspaceId: 'old', region: 'us-west-2', leaderFQDN: fqdn, state: 'Inactive' },
    ]);
    const r = await check(cloud(s), { CRIBL_CLIENT_SECRET: 'sim-secret' }, { workspaceUrl });
    expect(r.code, r.out.join('\n')).toBe(0);
    const mgmt = r.results.filter((x) => x.target === 'management');
    expect(mgmt.map((x) => `${x.check}:${x.status}`)).toEqual(['auth:ok', 'workspaces:ok']);
    expect(r.line('workspaces').message).toBe('1 Active workspace: main');
    expect(r.results.filter((x) => x.target === 'main' && x.check === 'fleet')).toHaveLength(2);
    expect(r.out.join('')).not.toContain('sim-secret');
  });

  it('another organization (403) and a wrong client secret', async () => {
    const s = await sim({ nodes: 1, organizationId: 'happy-org' });
    const r = await check(cloud(s, 'other-org'), { CRIBL_CLIENT_SECRET: 'sim-secret' }, { workspaceUrl });
    expect(r.line('workspaces')).toMatchObject({ status: 'fail' });
    expect(r.line('workspaces').message).toMatch(/HTTP 403$/);
    expect(r.code).toBe(1);
    const bad = await check(cloud(s), { CRIBL_CLIENT_SECRET: 'wrong' }, { workspaceUrl });
    expect(bad.results.find((x) => x.target === 'management' && x.check === 'auth')?.status).toBe('fail');
    expect(bad.code).toBe(1);
  });
});

describe('cribl-exporter check: bad settings exit 2 before any request', () => {
  it.each<[string, string[], Record<string, string>, RegExp]>([
    ['an unknown flag', ['--leader.urll', 'x'], {}, /^cribl-exporter check: unknown flag --leader\.urll/],
    ['a bad --output', ['--output', 'yaml'], {}, /^cribl-exporter check: --output: "yaml" is not one of text, json$/],
    ['no leader', [], {}, /--leader\.url is required/],
    ['an unreadable CA file', ['--leader.ca-file', '/nope/ca.pem'], { CRIBL_TOKEN: SECRET }, /--leader\.ca-file/],
  ])('%s', async (_name, argv, env, message) => {
    const s = await sim({ nodes: 1 });
    const out: string[] = [];
    const err: string[] = [];
    const withUrl =
      argv.includes('--leader.urll') || _name === 'no leader' ? argv : ['--leader.url', s.baseUrl, ...argv];
    const code = await runCheckCommand(withUrl, {
      env,
      stdout: (l) => out.push(l),
      stderr: (l) => err.push(l),
      readFile: (p) => readFileSync(p, 'utf8'),
      version: '0',
    });
    expect(code).toBe(2);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(message);
    expect(out).toEqual([]);
    expect(s.stats().totalRequests).toBe(0);
  });
});

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

describe('the README example of a check report', () => {
  it('is laid out as formatText lays it out', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Checking a leader'), readme.indexOf('### Status page'));
    const example = /```text\n([\s\S]*?)\n```/.exec(section)?.[1] ?? '';
    const target = 'leader.example.com:9000';
    const results: CheckResult[] = [
      { target, check: 'dns', status: 'ok', message: 'leader.example.com resolves to 10.20.0.15' },
      { target, check: 'tcp', status: 'ok', message: 'connected to 10.20.0.15:9000' },
      {
        target,
        check: 'tls',
        status: 'fail',
        message:
          'the certificate does not chain to a trusted CA (UNABLE_TO_VERIFY_LEAF_SIGNATURE; issued by "corp CA", ' +
          'valid until 2027-03-01)',
        fix:
          'give the CA certificate that issued it ("corp CA") with --leader.ca-file (a private CA, or the CA of a ' +
          'TLS-inspecting proxy)',
      },
      { target, check: 'api', status: 'skip', message: 'API not checked: the leader cannot be reached (see above)' },
    ];
    const text = formatText({ targets: [{ name: target, url: `https://${target}/api/v1` }], results });
    expect(example).toBe(text.join('\n'));
  });
});
