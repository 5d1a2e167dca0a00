#!/usr/bin/env node
/**
 * The entry point: the only module that touches `process` (argv, environment, stdout, exit, signals).
 * `cribl-exporter [flags]` runs the exporter; `simulate` the simulated leader; `demo` both in one process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { runCommand, type CommandIo } from './commands/index.js';
import { buildRevision } from './revision.js';
import { signalHandlers } from './signals.js';
import { readFileSafely } from './util/files.js';

const require = createRequire(import.meta.url);
const { version } = require('../package.json') as { version: string };

/** The commit of the source checkout this runs from, if it is one (one `git` call, only when .git exists). */
function gitHead(): string | undefined {
  const root = fileURLToPath(new URL('..', import.meta.url));
  if (!existsSync(`${root}.git`)) return undefined;
  const r = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', timeout: 2_000 });
  return r.status === 0 ? r.stdout : undefined;
}

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
process.on('uncaughtException', signals.fatal);
process.on('unhandledRejection', signals.fatal);

const io: CommandIo = {
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  readFile: readFileSafely,
  signal: ac.signal,
  onReloadSignal: signals.onReload,
  version,
  revision: buildRevision(process.env, gitHead),
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
