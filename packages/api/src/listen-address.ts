import { ValueError } from './errors.js';

/** A parsed listen address: `host` undefined means all interfaces. */
export interface ListenAddress {
  host: string | undefined;
  port: number;
}

const LISTEN_RE = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/;

/**
 * Parses `host:port`, `[ipv6]:port` or `:port` (all interfaces); port 0 picks a free port. Throws ValueError
 * (one line, without the setting's name: the caller adds it).
 */
export function parseListenAddress(text: string): ListenAddress {
  const m = LISTEN_RE.exec(text.trim());
  const port = Number(m?.[3]);
  if (!m || port > 65535) {
    throw new ValueError(`${JSON.stringify(text)} must be host:port (e.g. :9864, 127.0.0.1:9864 or [::1]:9864)`);
  }
  return { host: m[1] ?? (m[2] || undefined), port };
}

/** The host to put in a URL for a listen address (`localhost` for all interfaces, brackets for IPv6). */
export function urlHost(host: string | undefined): string {
  const shown = host === undefined || host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return shown.includes(':') ? `[${shown}]` : shown;
}
