import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM files of a throwaway PKI made with openssl for one test file. */
export interface TestPki {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  /** A second server certificate (rotation). */
  server2Cert: string;
  server2Key: string;
  clientCert: string;
  clientKey: string;
  /** Signed by another CA: must be refused. */
  rogueCert: string;
  rogueKey: string;
  read(path: string): Buffer;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function ca(dir: string, name: string): void {
  openssl(
    dir,
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '2',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-subj',
    `/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
}

function leaf(dir: string, name: string, issuer: string, cn: string, ext: string): void {
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(
    dir,
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${cn}`,
  );
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${issuer}.crt`,
    '-CAkey',
    `${issuer}.key`,
    '-CAcreateserial',
    '-days',
    '2',
    '-out',
    `${name}.crt`,
    '-extfile',
    `${name}.ext`,
  );
}

/** Generates a CA, two server certificates for 127.0.0.1, a client certificate and a rogue one. */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'cribl-exporter-pki-'));
  ca(dir, 'ca');
  ca(dir, 'rogue-ca');
  const serverExt = 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n';
  leaf(dir, 'server', 'ca', 'localhost', serverExt);
  leaf(dir, 'server2', 'ca', 'localhost', serverExt);
  leaf(dir, 'client', 'ca', 'prometheus', 'subjectAltName=DNS:prometheus.example\nextendedKeyUsage=clientAuth\n');
  leaf(dir, 'rogue', 'rogue-ca', 'prometheus', 'subjectAltName=DNS:prometheus.example\nextendedKeyUsage=clientAuth\n');
  const p = (f: string) => join(dir, f);
  return {
    dir,
    caCert: p('ca.crt'),
    serverCert: p('server.crt'),
    serverKey: p('server.key'),
    server2Cert: p('server2.crt'),
    server2Key: p('server2.key'),
    clientCert: p('client.crt'),
    clientKey: p('client.key'),
    rogueCert: p('rogue.crt'),
    rogueKey: p('rogue.key'),
    read: (path) => readFileSync(path),
  };
}
