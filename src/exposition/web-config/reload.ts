/** The web configuration in force, re-read when its files change; a bad file later keeps the previous one. */

import type { Clock } from '@cribl-exporter/api/clock';
import { loadWebConfig, nodeWebConfigFs, tlsFiles, type LoadedWebConfig, type WebConfigFs } from './load.js';
import { fail, WebConfigError, type WebConfig } from './parse.js';

/** Outcome of a reload attempt, for the reload metric and logs. */
export type ReloadResult = { ok: true; config: LoadedWebConfig } | { ok: false; error: WebConfigError };

/** Options of createWebConfigSource. */
export interface WebConfigSourceOptions {
  path: string;
  clock: Clock;
  /** Files are stat'ed at most this often (on request). @default 1000 */
  recheckMs?: number;
  fs?: WebConfigFs;
  /** Vetoes a reloaded configuration: returns why it cannot be applied, or undefined. */
  accept?: (next: LoadedWebConfig) => string | undefined;
  onReload?: (result: ReloadResult) => void;
}

/** The current web configuration, re-read when the file or a file it names changes. */
export interface WebConfigSource {
  /** The configuration in force, without checking the files. */
  latest(): LoadedWebConfig;
  /** The configuration in force: the last one that loaded. Checks the files when the recheck period has passed. */
  current(): Promise<LoadedWebConfig>;
  /** Re-reads the files now, changed or not (SIGHUP); `onReload` hears the outcome. */
  reload(): Promise<LoadedWebConfig>;
}

/**
 * Loads the configuration once (throwing on error: a bad file at startup is fatal) and returns a
 * source that re-reads it when its files change; `onReload` hears about every later reload. A bad
 * file later keeps the previous configuration.
 */
export async function createWebConfigSource(options: WebConfigSourceOptions): Promise<WebConfigSource> {
  const fs = options.fs ?? nodeWebConfigFs;
  const recheckMs = options.recheckMs ?? 1000;
  const fingerprintOf = async (config: WebConfig | undefined): Promise<string> => {
    const files = [options.path, ...(config ? tlsFiles(config) : [])];
    const prints = await Promise.all(files.map((f) => fs.fingerprint(f).catch(() => 'missing')));
    return prints.join('|');
  };

  let loaded = await loadWebConfig(options.path, fs);
  let lastPrint = await fingerprintOf(loaded.config);
  let lastCheck = options.clock.now();
  let checking: Promise<LoadedWebConfig> | undefined;

  const check = async (force = false): Promise<LoadedWebConfig> => {
    const print = await fingerprintOf(loaded.config);
    if (print === lastPrint && !force) return loaded;
    lastPrint = print;
    try {
      const next = await loadWebConfig(options.path, fs);
      // The new file may name other TLS files: fingerprint those from now on.
      lastPrint = await fingerprintOf(next.config);
      const veto = options.accept?.(next);
      if (veto !== undefined) fail(options.path, veto);
      loaded = next;
      options.onReload?.({ ok: true, config: next });
    } catch (err) {
      const error =
        err instanceof WebConfigError ? err : new WebConfigError(`web config ${options.path}: ${String(err)}`);
      options.onReload?.({ ok: false, error });
    }
    return loaded;
  };

  return {
    latest: () => loaded,
    current(): Promise<LoadedWebConfig> {
      if (checking) return checking;
      if (options.clock.now() - lastCheck < recheckMs) return Promise.resolve(loaded);
      lastCheck = options.clock.now();
      checking = check().finally(() => {
        checking = undefined;
      });
      return checking;
    },
    async reload(): Promise<LoadedWebConfig> {
      // A check in flight may have read the files before they changed: wait for it, then read them again.
      await checking?.catch(() => undefined);
      lastCheck = options.clock.now();
      const forced = check(true).finally(() => {
        if (checking === forced) checking = undefined;
      });
      checking = forced;
      return forced;
    },
  };
}
