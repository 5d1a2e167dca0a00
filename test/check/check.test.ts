import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCheckCommand } from '../../src/commands/check.js';
import { formatText, type CheckResult } from '../../src/check/report.js';
import { describeFailure } from '../../src/check/leader.js';
import { runCommand } from '../../src/commands/index.js';
import { COLLECTORS } from '../../src/collectors/registry.js';
import { leaderHealth } from '../../src/collectors/leader-health/index.js';
import { parseConfig } from '../../src/config/parse.js';
import { settingsOf, targetOf } from '../../src/config/types.js';
import { check, cleanups, closedPort, jwt, offsetClock, SECRET, sim, statuses } from './helpers.js';

// `cribl-exporter check` against the simulated leader, one failure mode at a time: each test asserts the lines
// that name the problem, their fix, and the exit code. TLS: tls.test.ts; the management plane: cloud.test.ts.

/**
 * The line `check` prints for each collector a healthy leader lets it read, from the registry: every registered
 * collector that is on by default and has a probe (the leader's own /health is checked apart, first).
 */
function probesOfDefaults(url: string): string[] {
  const config = parseConfig({ argv: ['--leader.url', url], env: { CRIBL_TOKEN: SECRET }, readFile: () => '' });
  const leader = config.leaders[0]!;
  return COLLECTORS.flatMap((c) => {
    const s = settingsOf(config, c);
    if (!c.probe || c === leaderHealth || c.enabled?.(s, targetOf(leader)) === false) return [];
    const req = c.probe(s, undefined, 0);
    return [`${req.method ?? 'GET'} ${req.endpoint} (collector ${c.name}): allowed`];
  });
}

describe('cribl-exporter check: a healthy leader', () => {
  it('passes every check, prints one line per check with its mark, and exits 0 (text)', async () => {
    const s = await sim();
    const out: string[] = [];
    const code = await runCommand({
      argv: ['check', '--leader.url', s.baseUrl],
      env: { CRIBL_TOKEN: SECRET },
      stdout: (l) => out.push(l),
      stderr: (l) => out.push(l),
      readFile: (p) => Promise.resolve(readFileSync(p, 'utf8')),
      signal: new AbortController().signal,
      version: '0.0.0-test',
      nodejsVersion: process.version,
    });
    const text = out.join('\n');
    expect(code, text).toBe(0);
    expect(out[0]).toBe(`leader ${new URL(s.baseUrl).host} (${s.baseUrl})`);
    const titles = ['DNS', 'TCP', 'TLS', 'health', 'clock', 'auth', 'permission', 'fleet', 'version', 'rate', 'detail'];
    for (const title of titles) {
      expect(text).toMatch(new RegExp(`^  ✓ ${title} `, 'm'));
    }
    expect(text).not.toMatch(/^ {2}[✗!-] /m);
    expect(text).toMatch(/✓ fleet +stream: \d+ nodes in 3 groups \(default \d+, prod-east \d+, prod-west \d+\)/);
    expect(text).toMatch(/✓ rate +needs [\d.]+ requests\/s for 20 nodes .*--leader\.max-rps auto allows 50$/m);
    expect(out.at(-1)).toMatch(/^no problem found, 0 warnings, \d+ ok$/);
    expect(text).not.toContain(SECRET);
  });

  it('--output json: one document with every result; the token is in none of it', async () => {
    const s = await sim();
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: SECRET });
    const probes = probesOfDefaults(s.baseUrl);
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
      ...Array<string>(probes.length).fill('collector:ok'),
      'version:ok',
      'rate:ok',
      'detail:ok',
    ]);
    expect(r.results.filter((x) => x.check === 'collector').map((x) => x.message)).toEqual(probes);
    // The registry's list is not empty by mistake: two of its probes, as the leader names them.
    expect(probes).toContain('GET /system/info (collector leader_info): allowed');
    expect(probes).toContain('POST /system/metrics/query (collector throughput): allowed');
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

describe('cribl-exporter check: what each collector may read', () => {
  it('a refused or absent endpoint names the collector that will be off and the fix; the rest is allowed', async () => {
    const s = await sim();
    s.addToken('limited-token', 'full', ['/system/messages']);
    s.setFaults({ license: { cloud: 404 } });
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: 'limited-token' });
    expect(r.code, r.out.join('\n')).toBe(0);
    expect(r.line('collector', 'collector leader_messages')).toMatchObject({
      status: 'warn',
      message:
        'GET /system/messages (collector leader_messages): forbidden (403): collector leader_messages will be off',
      fix: expect.stringContaining('(or turn it off: --no-collector.leader-messages)'),
    });
    expect(r.line('collector', 'collector license')).toMatchObject({
      status: 'warn',
      message: 'GET /system/licenses (collector license): absent (404): collector license will be off',
    });
    expect(r.line('collector', 'collector dataflow').status).toBe('ok');
  });

  it('a refused metrics store (403) names the throughput collector that will be off', async () => {
    const s = await sim();
    s.addToken('no-metrics-token', 'full', ['/system/metrics/query']);
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: 'no-metrics-token' });
    expect(r.code, r.out.join('\n')).toBe(0);
    expect(r.line('collector', 'collector throughput')).toMatchObject({
      status: 'warn',
      message: 'POST /system/metrics/query (collector throughput): forbidden (403): collector throughput will be off',
      fix: expect.stringContaining('(or turn it off: --no-collector.throughput)'),
    });
    expect(r.line('collector', 'collector dataflow').status).toBe('ok');
  });

  it('a collector turned off is not probed', async () => {
    const s = await sim();
    const r = await check(['--leader.url', s.baseUrl, '--no-collector.license', '--no-collector.dataflow'], {
      CRIBL_TOKEN: SECRET,
    });
    const names = r.results.filter((x) => x.check === 'collector').map((x) => x.message.split(':')[0]);
    expect(names).not.toContain('GET /system/licenses (collector license)');
    expect(names).not.toContain('GET /m/{group}/system/status/outputs (collector dataflow)');
    expect(s.stats().requests['/system/licenses']).toBeUndefined();
  });
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
    expect(r.line('health').fix).toMatch(/ending in \/api\/v1/);
    // One cause, said once: nothing at that path is the leader's API.
    expect(r.line('api').message).toMatch(/^API not checked: not found/);
    expect(r.results.filter((x) => x.status === 'fail')).toHaveLength(1);
  });

  it('a wrong base path whose server answers 401 to all but /health says "not found", not "token wrong"', async () => {
    // A web server or proxy at that path: 404 for /health, 401 for the rest whatever the credentials.
    const server = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(req.url?.endsWith('/health') ? 404 : 401, { 'content-type': 'application/json' });
      res.end('{"message":"Unauthorized"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => server.close(r)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cribl/api/v1`;
    const r = await check(['--leader.url', url], { CRIBL_TOKEN: SECRET });
    expect(r.code).toBe(1);
    expect(r.line('health')).toMatchObject({ status: 'fail', message: 'GET /health: 404, not found' });
    expect(r.line('health').fix).toMatch(/ending in \/api\/v1/);
    expect(r.line('api')).toMatchObject({ status: 'skip' });
    expect(r.line('api').message).toMatch(/not found/);
    const text = r.out.join('\n');
    expect(text).not.toMatch(/token is wrong|credentials were refused|\b401\b/);
  });

  it('a token with a character beyond Latin-1: one settings line and exit 2, not a connection failure', async () => {
    const s = await sim();
    const r = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: 'tok\u20acen' });
    expect(r.code).toBe(2);
    expect(r.err).toEqual([
      'cribl-exporter check: CRIBL_TOKEN contains a character that cannot be sent in an HTTP header (beyond ' +
        'Latin-1: a pasted quote or symbol?)',
    ]);
    expect(s.stats().requests).toEqual({});
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

  it('detail: the level each product would get, and how its health would be polled', async () => {
    const s = await sim({ nodes: 200 });
    const auto = await check(['--leader.url', s.baseUrl], { CRIBL_TOKEN: SECRET });
    expect(auto.line('detail').status).toBe('ok');
    expect(auto.line('detail').message).toMatch(
      /^stream full \(auto for \d+ nodes\): health of every node every 30s; /,
    );
    const pinned = await check(['--leader.url', s.baseUrl, '--edge.node-detail', 'minimal'], { CRIBL_TOKEN: SECRET });
    const edge = /edge minimal \(--edge\.node-detail\): health polls rotate at [\d.]+\/s, each node every \d+s /;
    expect(pinned.line('detail').message).toMatch(edge);
    expect(pinned.line('detail').message).toContain('(liveness from the listing)');
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
    // The Date header has whole seconds and is stamped before the answer travels: the estimate may read a second
    // more than the offset when the header was cut late in its second and the answer took a while (a loaded machine).
    const s0 = Math.round(offset / 1000);
    expect(r.line('clock').message).toMatch(new RegExp(`is (${s0}|${s0 + 1})s behind this machine's$`));
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
    // One cause, one problem: nothing below the failed login is reported as refused.
    expect(bad.results.filter((x) => x.status === 'fail')).toHaveLength(1);
    expect(bad.line('api').status).toBe('skip');
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
      readFile: (p) => Promise.resolve(readFileSync(p, 'utf8')),
      version: '0',
    });
    expect(code).toBe(2);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(message);
    expect(out).toEqual([]);
    expect(s.stats().totalRequests).toBe(0);
  });
});

describe('the README example of a check report', () => {
  it('is laid out as formatText lays it out', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const start = readme.indexOf('### Checking a leader');
    const section = readme.slice(start, readme.indexOf('\n## ', start));
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

describe('describeFailure: each reason its own fix', () => {
  it.each([
    [{ reason: 'redirect', status: 302, message: 'GET /health: HTTP 302' }, 'GET /health: 302, a redirect', /API base/],
    [{ reason: 'too_large', status: 200, message: 'larger than 1024 bytes' }, 'larger than --leader.max', /raise/],
    [{ reason: 'settings', message: 'cannot read --leader.token-file /t: ENOENT' }, 'ENOENT', /credential file/],
    [{ reason: 'not_found', status: 404, message: 'HTTP 404' }, '404, not found', /ending in \/api\/v1/],
  ] as const)('%j', (f, message, fix) => {
    const got = describeFailure('GET /health', f, { mode: 'token', token: 't' });
    expect(got.message).toContain(message);
    expect(got.fix).toMatch(fix);
  });
});
