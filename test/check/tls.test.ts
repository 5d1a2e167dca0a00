import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '@cribl-exporter/simulator';
import { generatePki, type TestPki } from '../http/certs.js';
import { check, SECRET, sim } from './helpers.js';

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
