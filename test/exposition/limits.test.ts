import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_LIMITS, guardConnections } from '../../src/exposition/limits.js';

let port = 40_000;

/** A socket as the guard sees it: an address, end(), destroy() and a close event. */
function socket() {
  const s = Object.assign(new EventEmitter(), {
    remoteAddress: '127.0.0.1',
    remotePort: ++port,
    ended: '',
    destroyed: false,
    end(data?: string, cb?: () => void) {
      s.ended = data ?? '(nothing)';
      cb?.();
    },
    destroy() {
      s.destroyed = true;
      s.emit('close');
    },
  });
  return s;
}

function setup(maxConnections: number, tls = false) {
  const server = Object.assign(new EventEmitter(), { keepAliveTimeout: 0 });
  const guard = guardConnections(server as unknown as Server, { ...DEFAULT_SERVER_LIMITS, maxConnections }, tls);
  const open = () => {
    const s = socket();
    server.emit('connection', s);
    return s;
  };
  const ask = (s: ReturnType<typeof socket>, path: string) => {
    const res = { shouldKeepAlive: true };
    const refused = guard.refuse({ socket: s } as unknown as IncomingMessage, path, res as unknown as ServerResponse);
    return { refused, keepAlive: res.shouldKeepAlive };
  };
  return { server, open, ask };
}

describe('guardConnections', () => {
  it('sets the keep-alive timeout', () => {
    expect(setup(4).server.keepAliveTimeout).toBe(5_000);
  });

  it('serves maxConnections - 1 connections fully; the last one serves only the probes, then closes', () => {
    const { open, ask } = setup(3);
    const [a, b] = [open(), open()];
    expect(ask(a, '/metrics')).toEqual({ refused: false, keepAlive: true });
    expect(ask(b, '/metrics').refused).toBe(false);
    const last = open();
    expect(ask(last, '/metrics')).toEqual({ refused: true, keepAlive: false });
    const next = open();
    expect(last.destroyed).toBe(false); // it asked something: it is answered (503) and closes by itself
    expect(next.ended).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
  });

  it('a newcomer takes the last slot from a connection that has sent nothing (idle sockets)', () => {
    const { open, ask } = setup(2);
    open();
    const squatter = open();
    const probe = open();
    expect(squatter.destroyed).toBe(true);
    expect(ask(probe, '/healthz')).toEqual({ refused: false, keepAlive: false });
    expect(ask(probe, '/readyz').refused).toBe(false);
  });

  it('refuses beyond the cap while the last slot serves a request: a 503 over HTTP, a close over TLS', () => {
    for (const tls of [false, true]) {
      const { open, ask } = setup(2, tls);
      open();
      const busy = open();
      ask(busy, '/healthz');
      const refused = open();
      expect(busy.destroyed).toBe(false);
      if (tls) expect(refused.destroyed).toBe(true);
      else expect(refused.ended).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1/);
    }
  });

  it('a closed connection frees its slot', () => {
    const { open, ask } = setup(2);
    const a = open();
    a.destroy();
    const b = open();
    expect(ask(b, '/metrics').refused).toBe(false);
  });
});
