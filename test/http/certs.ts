import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM files of a CA generated for one test run, a server certificate for 127.0.0.1 and a client certificate. */
export interface TestPki {
  dir: string;
  caFile: string;
  serverCert: string;
  serverKey: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** A second, unrelated CA: a server certificate from it must be rejected. */
  otherCaFile: string;
  read(path: string): string;
  cleanup(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function makeCa(dir: string, name: string): void {
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-subj',
    `/CN=${name} test CA`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
}

function makeLeaf(dir: string, ca: string, name: string, ext: string): void {
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${name}`,
  ]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  ]);
}

/** Generates the PKI with the openssl command line (present on the build machines). */
export function generatePki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'pki-'));
  makeCa(dir, 'ca');
  makeCa(dir, 'other');
  makeLeaf(dir, 'ca', 'server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  makeLeaf(dir, 'ca', 'client', 'extendedKeyUsage=clientAuth\n');
  const p = (f: string): string => join(dir, f);
  return {
    dir,
    caFile: p('ca.crt'),
    serverCert: p('server.crt'),
    serverKey: p('server.key'),
    clientCertFile: p('client.crt'),
    clientKeyFile: p('client.key'),
    otherCaFile: p('other.crt'),
    read: (path) => readFileSync(path, 'utf8'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
