/** `cribl-exporter check [--output text|json] [exporter flags]`: runs the checks and prints the report. */
import { AuthConfigError } from '../auth/errors.js';
import { ConfigError } from '../config/errors.js';
import { loadCommandLine } from '../config/parse.js';
import { TransportConfigError } from '../http/transport.js';
import { systemClock } from '@cribl-exporter/api/clock';
import { createLogger } from '../util/logger.js';
import { runChecks, type CheckDeps } from '../check/index.js';
import { exitCode, formatJson, formatText } from '../check/report.js';
import type { ReadFile } from '../util/files.js';

/** What the command touches; src/commands/index.ts passes the process's, tests their own (and test doubles). */
export interface CheckIo extends Partial<Pick<CheckDeps, 'clock' | 'lookup' | 'dispatcher' | 'workspaceUrl'>> {
  env: Readonly<Record<string, string | undefined>>;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Reads a file the settings name (src/util/files.ts: async, capped, regular files only). */
  readFile: ReadFile;
  version: string;
}

export const CHECK_USAGE = `Usage: cribl-exporter check [--output text|json] [exporter flags]

Contacts each configured leader once, through the exporter's own transport, request budget and
credentials, and reports one line per check, with the fix where something is wrong: DNS, TCP and
TLS (certificate chain and expiry), the leader's health, role and clock, the credentials (and a
JWT's expiry), permission on every endpoint the exporter calls (401, 403 and 404 told apart), the
leader's version and listing, the fleet per product and group, and the request rate the intervals
need against --leader.max-rps. With --cloud.discover-workspaces, the management plane and every
Active workspace too. Takes the exporter's flags, environment and --config.file.

  --output text|json  the report for people (default) or one JSON document for machines

Marks: ✓ works, ! works but look, ✗ a problem, - not checked (and why).
Exit code: 0 nothing wrong, 1 a problem found, 2 bad settings.`;

/** Runs the command; returns its exit code. */
export async function runCheckCommand(argv: readonly string[], io: CheckIo): Promise<number> {
  let output: 'text' | 'json' = 'text';
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') {
      io.stdout(CHECK_USAGE);
      return 0;
    }
    const m = /^--output(?:=(.*))?$/.exec(a);
    if (!m) {
      rest.push(a);
      continue;
    }
    const value = m[1] ?? argv[++i];
    if (value !== 'text' && value !== 'json') {
      io.stderr(`cribl-exporter check: --output: ${JSON.stringify(value ?? '')} is not one of text, json`);
      return 2;
    }
    output = value;
  }
  const fail = (e: unknown): number => {
    io.stderr(`cribl-exporter check: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  };
  let cl;
  try {
    cl = await loadCommandLine({ argv: rest, env: io.env, readFile: io.readFile });
  } catch (e) {
    if (e instanceof ConfigError) return fail(e);
    throw e;
  }
  if (cl.kind === 'help') {
    io.stdout(CHECK_USAGE);
    return 0;
  }
  if (cl.kind === 'version') {
    io.stdout(`cribl-exporter ${io.version}`);
    return 0;
  }
  // The report is the output. The client's own log lines (--log.level debug shows them) go to stderr.
  const level = cl.config.log.level === 'info' ? 'silent' : cl.config.log.level;
  const logger = createLogger({ ...cl.config.log, level }, { write: (s: string) => io.stderr(s.trimEnd()) });
  for (const w of cl.warnings) if (output === 'text') io.stderr(`cribl-exporter check: warning: ${w}`);
  let report;
  try {
    report = await runChecks(cl.config, {
      clock: io.clock ?? systemClock,
      logger,
      readFile: io.readFile,
      env: io.env,
      version: io.version,
      ...(io.lookup ? { lookup: io.lookup } : {}),
      ...(io.dispatcher ? { dispatcher: io.dispatcher } : {}),
      ...(io.workspaceUrl ? { workspaceUrl: io.workspaceUrl } : {}),
    });
  } catch (e) {
    if (e instanceof TransportConfigError || e instanceof AuthConfigError) return fail(e);
    throw e;
  }
  if (output === 'json') io.stdout(formatJson(report));
  else for (const line of formatText(report)) io.stdout(line);
  return exitCode(report);
}
