#!/usr/bin/env node
/**
 * The entry point: the only module that touches `process` (argv, environment, stdout, exit, signals).
 * `cribl-exporter [flags]` runs the exporter; `simulate` the simulated leader; `demo` both in one process.
 */
import { createRequire } from 'node:module';
import { runCommand, type CommandIo } from './commands.js';
import { signalHandlers } from './signals.js';
import { readFileSafely } from './util/files.js';

const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

const ac = new AbortController();
const signals = signalHandlers({
  abort: (reason) => ac.abort(reason),
  exit: (code) => process.exit(code),
  stderr: (line) => process.stderr.write(`${line}\n`),
  later: (fn, ms) => void setTimeout(fn, ms).unref(),
});
process.on('SIGTERM', signals.stop);
process.on('SIGINT', signals.stop);
process.on('SIGHUP', signals.reload);

const io: CommandIo = {
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  readFile: readFileSafely,
  signal: ac.signal,
  onReloadSignal: signals.onReload,
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
