/** `cribl-exporter [flags]`: the exporter, running until the stop signal; SIGHUP reloads its files. */
import type { DestinationStream } from 'pino';
import { AuthConfigError } from '../auth/errors.js';
import { ConfigError } from '../config/errors.js';
import { helpText } from '../config/help.js';
import { loadCommandLine } from '../config/parse.js';
import type { Config } from '../config/types.js';
import { startApp, type App } from '../exporter/app.js';
import { WebConfigError } from '../exposition/web-config/parse.js';
import { TransportConfigError } from '../http/transport.js';
import type { ReadFile } from '../util/files.js';
import { createLogger } from '../util/logger.js';

/** What the exporter touches: src/cli.ts wires it to the process, tests to buffers. */
export interface RunIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Reads a file the settings name (src/util/files.ts: async, capped, regular files only). */
  readFile: ReadFile;
  /** Aborted on SIGTERM/SIGINT. */
  signal: AbortSignal;
  /** Subscribes to SIGHUP (reload); returns the unsubscribe. */
  onReloadSignal?: (listener: () => void) => () => void;
  version: string;
  /** Source revision (`cribl_exporter_build_info{revision}`); src/revision.ts. @default 'unknown' */
  revision?: string;
  nodejsVersion: string;
  /** Where JSON logs go (default stdout). */
  logDestination?: DestinationStream;
  /** Called once the exporter listens (tests). */
  onStarted?: (app: App) => void;
}

/** Settings errors: one line, exit code 2. */
const SETTINGS_ERRORS = [ConfigError, AuthConfigError, TransportConfigError, WebConfigError];

/**
 * Runs the exporter with these flags until `io.signal` aborts and returns its exit code. `defaults` sit below
 * flags, the environment and --config.file (the demo's).
 */
export async function runExporter(
  argv: readonly string[],
  io: RunIo,
  defaults?: Readonly<Record<string, string>>,
): Promise<number> {
  let config: Config;
  let warnings: readonly string[];
  try {
    const cl = await loadCommandLine({ argv: [...argv], env: io.env, readFile: io.readFile, defaults });
    if (cl.kind === 'help') {
      io.stdout(helpText());
      return 0;
    }
    if (cl.kind === 'version') {
      io.stdout(`cribl-exporter ${io.version} (Node.js ${io.nodejsVersion})`);
      return 0;
    }
    ({ config, warnings } = cl);
  } catch (e) {
    if (e instanceof ConfigError) {
      io.stderr(`cribl-exporter: ${e.message}`);
      return 2;
    }
    throw e;
  }
  const logger = createLogger(config.log, io.logDestination);
  for (const w of warnings) logger.warn(w);
  let app: App;
  try {
    app = await startApp({
      config,
      logger,
      version: io.version,
      revision: io.revision,
      nodejsVersion: io.nodejsVersion,
      readFile: io.readFile,
      env: io.env,
    });
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    io.stderr(`cribl-exporter: ${msg}`);
    return SETTINGS_ERRORS.some((c) => e instanceof c) ? 2 : 1;
  }
  io.onStarted?.(app);
  const stopReloads = io.onReloadSignal?.(() => void app.reload());
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  stopReloads?.();
  logger.info('shutting down');
  await app.close();
  return 0;
}
