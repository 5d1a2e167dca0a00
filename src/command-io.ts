/**
 * What the commands (src/commands.ts, src/demo.ts, `check`, `simulate`) may touch: src/cli.ts wires it to the
 * process, tests to buffers.
 */
import type { DestinationStream } from 'pino';
import type { App } from './app.js';
import type { Simulator } from '@cribl-exporter/simulator';
import type { ReadFile } from './util/files.js';

export interface CommandIo {
  argv: readonly string[];
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
  onStarted?: (app: App, sim?: Simulator) => void;
}
