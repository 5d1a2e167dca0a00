#!/usr/bin/env node
/**
 * The entry point: the only module that touches `process` (argv, environment, stdout, exit, signals).
 * `cribl-exporter [flags]` runs the exporter; `simulate` the simulated leader; `demo` both in one process.
 */
import { createRequire } from 'node:module';
import { runCommand, type CommandIo } from './commands.js';
import { readFileSafely } from './util/files.js';

const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

const ac = new AbortController();
let stopping = false;
const stop = (signal: NodeJS.Signals): void => {
  if (stopping) {
    process.stderr.write(`cribl-exporter: second ${signal}, exiting now\n`);
    process.exit(1);
  }
  stopping = true;
  ac.abort(new Error(signal));
  // Shutdown must finish within 5 s whatever is in flight; a graceful one exits 0, this one does not.
  setTimeout(() => {
    process.stderr.write('cribl-exporter: shutdown took longer than 5s, exiting\n');
    process.exit(1);
  }, 5_000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

// SIGHUP re-reads the web config and the credential files; its default action (exit 129) never applies.
const reloadListeners = new Set<() => void>();
process.on('SIGHUP', () => {
  if (reloadListeners.size === 0) process.stderr.write('cribl-exporter: SIGHUP: nothing to reload yet\n');
  for (const listener of reloadListeners) listener();
});
const onReloadSignal = (listener: () => void): (() => void) => {
  reloadListeners.add(listener);
  return () => reloadListeners.delete(listener);
};

const io: CommandIo = {
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  readFile: readFileSafely,
  signal: ac.signal,
  onReloadSignal,
  version,
  nodejsVersion: process.version,
};

runCommand(io).then(
  (code) => {
    process.exitCode = code;
    // Exit even if a stray handle (socket, timer) would keep the loop alive.
    setImmediate(() => process.exit(code)).unref();
  },
  (e: unknown) => {
    process.stderr.write(`cribl-exporter: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
