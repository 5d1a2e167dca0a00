#!/usr/bin/env node
/**
 * The entry point: the only module that touches `process` (argv, environment, stdout, exit, signals).
 * `cribl-exporter [flags]` runs the exporter; `simulate` the simulated leader; `demo` both in one process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { runCommand, type CommandIo } from './commands.js';
import { buildRevision } from './revision.js';

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
let stopping = false;
const stop = (signal: NodeJS.Signals): void => {
  if (stopping) return;
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

const io: CommandIo = {
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  readFile: (path) => readFileSync(path, 'utf8'),
  signal: ac.signal,
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
