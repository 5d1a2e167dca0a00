/**
 * The network checks of `cribl-exporter check`, before any HTTP: does the leader's host name resolve, does its port
 * accept a connection, and does its TLS certificate chain to a trusted CA, name the host and stay valid. They use
 * the TLS settings of the exporter's own transport (src/http/transport.ts). Through a proxy they are skipped: the
 * proxy resolves and connects, and the API checks that follow go through it.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { connect as netConnect, isIP } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type PeerCertificate, type TLSSocket } from 'node:tls';
import type { TlsOptions } from '../http/transport.js';
import type { Clock } from '@cribl-exporter/api/clock';
import { errorLabel } from '../util/errors.js';
import { DAY_MS, type CheckResult } from './report.js';

/** Resolves a host name to its addresses. */
export type Lookup = (host: string) => Promise<readonly { address: string }[]>;

/** The system resolver (getaddrinfo, as the exporter's connections use). */
export const systemLookup: Lookup = (host) => dnsLookup(host, { all: true });

/** What the network checks need. */
export interface NetworkCheckOptions {
  /** The leader's name (the report's target). */
  target: string;
  url: URL;
  /** The transport's TLS options (CA, client certificate, verification). */
  tls: TlsOptions;
  /** `--leader.ca-file`, named in fixes. */
  caFile?: string;
  /** The proxy the requests go through, without credentials; undefined when they go direct. */
  proxy?: string;
  lookup: Lookup;
  clock: Clock;
  connectTimeoutMs: number;
}

/** Certificates expiring within this many days are reported as a warning. */
export const CERT_WARN_DAYS = 14;

const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const LOOPBACK = /^(127\.|::1$|localhost$)/;

type Line = (check: string, status: CheckResult['status'], message: string, fix?: string) => CheckResult;

/** What the network steps share: the options, the line maker, and the leader URL's host, port and scheme. */
interface Net {
  o: NetworkCheckOptions;
  r: Line;
  host: string;
  https: boolean;
  port: number;
}

/** DNS, TCP and TLS, in that order; a step that cannot run because an earlier one failed is skipped. */
export async function checkNetwork(o: NetworkCheckOptions): Promise<CheckResult[]> {
  const r: Line = (check, status, message, fix) => ({
    target: o.target,
    check,
    status,
    message,
    ...(fix ? { fix } : {}),
  });
  const https = o.url.protocol === 'https:';
  const n: Net = {
    o,
    r,
    host: o.url.hostname.replace(/^\[(.*)\]$/, '$1'),
    https,
    port: Number(o.url.port || (https ? 443 : 80)),
  };
  if (o.proxy !== undefined) {
    const why = `requests go through the proxy ${o.proxy}, which resolves and connects: the checks below use it`;
    return [r('dns', 'skip', why), r('tcp', 'skip', why), r('tls', 'skip', why)];
  }
  return checkDns(n);
}

/** DNS: the host's addresses (an IP address is its own), then TCP and TLS to the first. */
async function checkDns(n: Net): Promise<CheckResult[]> {
  const { r, host, https } = n;
  if (isIP(host) !== 0)
    return [r('dns', 'ok', `${host} is an IP address: nothing to resolve`), ...(await afterDns(n, host))];
  try {
    const addresses = await n.o.lookup(host);
    if (addresses.length === 0) throw Object.assign(new Error('no address'), { code: 'ENODATA' });
    const shown = addresses.slice(0, 3).map((a) => a.address);
    const more = addresses.length > 3 ? ` and ${addresses.length - 3} more` : '';
    return [
      r('dns', 'ok', `${host} resolves to ${shown.join(', ')}${more}`),
      ...(await afterDns(n, addresses[0]!.address)),
    ];
  } catch (e) {
    return [
      r(
        'dns',
        'fail',
        `cannot resolve ${host} (${errorLabel(e)})`,
        "check the host name in the leader URL and this machine's DNS (a Cribl.Cloud leader is " +
          '<workspace>-<organization>.cribl.cloud)',
      ),
      r('tcp', 'skip', 'not checked: the host name does not resolve'),
      ...(https ? [r('tls', 'skip', 'not checked: the host name does not resolve')] : []),
    ];
  }
}

/** TCP to the address, then TLS (or what plain HTTP means there). */
async function afterDns(n: Net, ip: string): Promise<CheckResult[]> {
  const { o, r, host, https, port } = n;
  const shown = `${isIP(ip) === 6 ? `[${ip}]` : ip}:${port}`;
  const tcp = await connectTcp(ip, port, o.connectTimeoutMs);
  if (!tcp.ok) {
    const refused = tcp.code === 'ECONNREFUSED';
    const timedOut = tcp.code === 'ETIMEDOUT';
    return [
      r(
        'tcp',
        'fail',
        refused
          ? `connection to ${shown} refused: nothing listens there`
          : timedOut
            ? `no answer from ${shown} within ${o.connectTimeoutMs / 1000}s`
            : `cannot connect to ${shown} (${tcp.code})`,
        refused
          ? "check the port in the leader URL (a leader's API listens on 9000 unless configured otherwise) and " +
              'that the leader runs'
          : 'a firewall, security group or NetworkPolicy may drop the connection; check the route from here to ' +
              'the leader (or --leader.timeout.connect)',
      ),
      ...(https ? [r('tls', 'skip', 'not checked: no TCP connection')] : []),
    ];
  }
  const results = [r('tcp', 'ok', `connected to ${shown}`)];
  if (!https) {
    results.push(
      LOOPBACK.test(host)
        ? r('tls', 'ok', 'plain HTTP to this machine (no TLS needed on loopback)')
        : r(
            'tls',
            'warn',
            'plain HTTP: the credentials cross the network unencrypted',
            'use an https:// leader URL if the leader serves TLS',
          ),
    );
    return results;
  }
  results.push(await checkTls(n, ip, host, port));
  return results;
}

/** TLS: the handshake, then what the certificate it showed says. */
async function checkTls(n: Net, ip: string, name: string, p: number): Promise<CheckResult> {
  let hs: Handshake;
  try {
    hs = await handshake(ip, name, p, n.o.tls);
  } catch (e) {
    const code = errorLabel(e);
    const clientCert = /CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE|BAD_CERTIFICATE|UNKNOWN_CA/.test(code);
    const plain = /WRONG_VERSION_NUMBER|EPROTO/.test(code);
    return n.r(
      'tls',
      'fail',
      `TLS handshake with ${name}:${p} failed (${code})`,
      clientCert
        ? 'the leader may want a client certificate it trusts: --leader.client-cert-file and --leader.client-key-file'
        : plain
          ? 'the port may serve plain HTTP: try an http:// leader URL'
          : 'check that the port serves HTTPS and that a TLS-inspecting proxy is not in the way',
    );
  }
  return certificateLine(n, name, hs);
}

/** The certificate of a handshake: verified or not, the host it names, its chain, its dates. */
function certificateLine(n: Net, name: string, hs: Handshake): CheckResult {
  const { o, r } = n;
  const { cert, authorized, authError } = hs;
  const issuer = certName(cert.issuer);
  const until = Date.parse(cert.valid_to);
  const days = Math.floor((until - o.clock.now()) / DAY_MS);
  const identity = checkServerIdentity(name, cert);
  const facts = `issued by ${issuer}, valid until ${isoDay(until)}`;
  const caFix = o.caFile
    ? `--leader.ca-file ${o.caFile} does not hold the CA that issued it (${issuer}): use that CA's certificate`
    : `give the CA certificate that issued it (${issuer}) with --leader.ca-file (a private CA, or the CA of a ` +
      'TLS-inspecting proxy)';
  if (!o.tls.rejectUnauthorized) {
    const state = !authorized ? `untrusted (${authError})` : identity ? 'names another host' : 'trusted';
    return r(
      'tls',
      'warn',
      `not verified (--leader.insecure-skip-verify); the certificate is ${state}, ${facts}`,
      'give the CA with --leader.ca-file and drop --leader.insecure-skip-verify',
    );
  }
  // Node names a host mismatch as the authorization error when the chain is fine otherwise.
  const wrongName = authError === 'ERR_TLS_CERT_ALTNAME_INVALID' || (authorized && identity !== undefined);
  if (wrongName) {
    return r(
      'tls',
      'fail',
      `the certificate is for ${cert.subjectaltname ?? certName(cert.subject)}, not ${name}`,
      `use a host name the certificate names in the leader URL, or reissue it for ${name}`,
    );
  }
  if (!authorized) {
    if (authError === 'CERT_HAS_EXPIRED') {
      return r(
        'tls',
        'fail',
        `the certificate expired on ${isoDay(until)} (${facts})`,
        "renew the leader's certificate",
      );
    }
    if (authError === 'CERT_NOT_YET_VALID') {
      return r(
        'tls',
        'fail',
        `the certificate is not valid yet (${facts})`,
        "check this machine's clock and the certificate's start date",
      );
    }
    return r('tls', 'fail', `the certificate does not chain to a trusted CA (${authError}; ${facts})`, caFix);
  }
  if (days < CERT_WARN_DAYS) {
    return r(
      'tls',
      'warn',
      `the certificate expires in ${days} day${days === 1 ? '' : 's'} (${facts})`,
      `renew the leader's certificate before ${isoDay(until)}`,
    );
  }
  return r('tls', 'ok', `certificate for ${name} ${facts} (${days} days)`);
}

function certName(n: PeerCertificate['issuer'] | undefined): string {
  const v = n?.CN ?? n?.O;
  return JSON.stringify(Array.isArray(v) ? v.join(', ') : (v ?? 'unknown'));
}

function connectTcp(
  host: string,
  port: number,
  timeoutMs: number,
): Promise<{ ok: true } | { ok: false; code: string }> {
  return new Promise((resolve) => {
    const socket = netConnect({ host, port });
    const done = (v: { ok: true } | { ok: false; code: string }): void => {
      socket.destroy();
      resolve(v);
    };
    socket.setTimeout(timeoutMs, () => done({ ok: false, code: 'ETIMEDOUT' }));
    socket.once('connect', () => done({ ok: true }));
    socket.once('error', (e) => done({ ok: false, code: errorLabel(e) }));
  });
}

interface Handshake {
  cert: PeerCertificate;
  authorized: boolean;
  authError: string;
}

/** One TLS handshake that always completes (verification is judged afterwards, so the certificate can be shown). */
function handshake(ip: string, name: string, port: number, tls: TlsOptions): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const socket: TLSSocket = tlsConnect({
      host: ip,
      port,
      ...(isIP(name) === 0 ? { servername: name } : {}),
      ...(tls.ca !== undefined ? { ca: tls.ca } : {}),
      ...(tls.cert !== undefined ? { cert: tls.cert } : {}),
      ...(tls.key !== undefined ? { key: tls.key } : {}),
      rejectUnauthorized: false,
    });
    socket.setTimeout(tls.timeout, () => {
      socket.destroy();
      reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }));
    });
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate(true);
      const err = socket.authorizationError as unknown;
      const authError = err instanceof Error ? errorLabel(err) : typeof err === 'string' ? err : '';
      resolve({ cert, authorized: socket.authorized, authError });
      socket.end();
    });
    socket.once('error', (e: Error) => {
      socket.destroy();
      reject(e);
    });
  });
}
