/**
 * What the process does on signals, against injected effects (src/cli.ts wires them to `process`): SIGTERM or
 * SIGINT starts a graceful shutdown bounded by a grace period, a second one forces exit 1 at once, and SIGHUP
 * asks for a reload (it never ends the process, whose default action on SIGHUP would be exit 129). An exception
 * nothing caught (a bug) ends the process with one line and exit 70, not Node's stack trace.
 */

/** The effects a signal may have. */
export interface SignalEffects {
  /** Starts the graceful shutdown. */
  abort(reason: Error): void;
  exit(code: number): void;
  stderr(line: string): void;
  /** Runs `fn` after `ms` without keeping the process alive. */
  later(fn: () => void, ms: number): void;
}

/** The handlers to register and the way to subscribe to reloads. */
export interface SignalHandlers {
  /** For SIGTERM and SIGINT. */
  stop: (signal: string) => void;
  /** For SIGHUP. */
  reload: () => void;
  /** Subscribes to reloads (SIGHUP); returns the unsubscribe. */
  onReload: (listener: () => void) => () => void;
  /** For an uncaught exception or an unhandled rejection. */
  fatal: (err: unknown) => void;
}

/** Exit code of an internal error (sysexits' EX_SOFTWARE). */
export const EXIT_INTERNAL = 70;

/** A graceful shutdown must finish within this long; past it the process exits 1. */
export const SHUTDOWN_GRACE_MS = 5_000;

export function signalHandlers(effects: SignalEffects, graceMs = SHUTDOWN_GRACE_MS): SignalHandlers {
  let stopping = false;
  const listeners = new Set<() => void>();
  return {
    stop(signal) {
      if (stopping) {
        effects.stderr(`cribl-exporter: second ${signal}, exiting now`);
        effects.exit(1);
        return;
      }
      stopping = true;
      effects.abort(new Error(signal));
      // Whatever is in flight (a hung file system, a stuck socket), the process ends within the grace period.
      effects.later(() => {
        effects.stderr(`cribl-exporter: shutdown took longer than ${graceMs / 1000}s, exiting`);
        effects.exit(1);
      }, graceMs);
    },
    reload() {
      if (listeners.size === 0) effects.stderr('cribl-exporter: SIGHUP: nothing to reload yet');
      for (const listener of listeners) listener();
    },
    onReload(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    fatal(err) {
      const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ');
      // Where it was thrown (the first frame, without the path), for the report; not the whole stack.
      const at =
        err instanceof Error
          ? /\n\s+at (?:.*\()?(?:.*\/)?([^/()\n]+:\d+):\d+\)?/.exec(err.stack ?? '')?.[1]
          : undefined;
      effects.stderr(`cribl-exporter: internal error (a bug, please report it): ${message}${at ? ` (at ${at})` : ''}`);
      effects.exit(EXIT_INTERNAL);
    },
  };
}
