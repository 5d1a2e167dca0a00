/**
 * What a client that never reads can hold of the server: every response must be written within the write timeout
 * (else its socket is closed), a connection gets one body at a time (a pipelined request waits until the answer
 * before it is written whole), and at most `maxBodies` bodies are in flight at once: a newcomer past that takes the
 * slot of the body that has waited longest for its client to read, once that is a second or more; when none has,
 * it is answered 503. Probes (/healthz, /readyz) carry no body this counts: they always answer.
 * docs/runbook.md ("Web server limits") lists the bounds.
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Clock } from '@cribl-exporter/api/clock';
import { Alarm } from '../util/timer.js';

/** A body in flight: when its client last took some of it. */
interface Body {
  readonly res: ServerResponse;
  progressAt: number;
}

/** A body that has waited this long for its client to read may lose its slot to a newcomer. */
const STALLED_MS = 1_000;

/** The write bounds of one server. */
export interface WriteGuard {
  /** Arms the write timeout of a response: its socket is closed unless the response is written whole in time. */
  watch(res: ServerResponse): void;
  /**
   * Waits until this response's connection has no earlier response still unwritten, then takes a body slot; false
   * when none is free (answer 503 then).
   */
  admit(res: ServerResponse): Promise<boolean>;
}

export function guardWrites(clock: Clock, limits: { writeTimeoutMs: number; maxBodies: number }): WriteGuard {
  const bodies = new Set<Body>();
  /** The last response of each connection, while it is unwritten. */
  const last = new WeakMap<Socket, ServerResponse>();

  const evictStalled = (): boolean => {
    let oldest: Body | undefined;
    for (const b of bodies) if (!oldest || b.progressAt < oldest.progressAt) oldest = b;
    if (!oldest || clock.now() - oldest.progressAt < STALLED_MS) return false;
    bodies.delete(oldest);
    oldest.res.socket?.destroy();
    oldest.res.destroy();
    return true;
  };

  return {
    watch(res) {
      const socket = res.req.socket;
      const alarm = new Alarm(clock, () => socket.destroy());
      alarm.set(clock.now() + limits.writeTimeoutMs);
      res.once('close', () => alarm.cancel());
    },
    async admit(res) {
      const socket = res.req.socket;
      const before = last.get(socket);
      last.set(socket, res);
      res.once('close', () => {
        if (last.get(socket) === res) last.delete(socket);
      });
      if (before && !before.writableFinished && !before.destroyed) {
        await new Promise<void>((resolve) => {
          before.once('close', resolve);
          before.once('finish', resolve);
        });
      }
      if (res.destroyed) return false;
      if (bodies.size >= limits.maxBodies && !evictStalled()) return false;
      const body: Body = { res, progressAt: clock.now() };
      bodies.add(body);
      res.on('drain', () => (body.progressAt = clock.now()));
      res.once('close', () => bodies.delete(body));
      return true;
    },
  };
}
