import { spawn, spawnSync } from 'node:child_process';
import { vi } from 'vitest';

/** True in CI, where a missing tool fails its tests instead of skipping them. */
export const IN_CI = process.env.CI === 'true';

/**
 * How long a test that runs an external tool (promtool, prometheus, jsonnet, kubectl, chromium, npm, a child Node.js)
 * may take: as long as the tool needs on a busy 2-core machine (Debian's jsonnet takes seconds per evaluation, npm
 * pack tens of seconds), never a race with it; a hang still ends.
 */
export const TOOL_TIMEOUT_MS = 300_000;

/** Gives every test and hook of the calling file TOOL_TIMEOUT_MS (call it at the top of a file that runs tools). */
export function toolTimeouts(): void {
  vi.setConfig({ testTimeout: TOOL_TIMEOUT_MS, hookTimeout: TOOL_TIMEOUT_MS });
}

/** Whether an executable is on the PATH. */
export function hasTool(name: string): boolean {
  return spawnSync('which', [name], { stdio: 'ignore' }).status === 0;
}

/** Skip the tests needing `name` when it is missing locally; in CI keep them, so they fail loudly. */
export function skipWithout(name: string): boolean {
  return !IN_CI && !hasTool(name);
}

/** Runs a quick tool and returns its exit status and output; never throws on a non-zero exit. */
export function run(
  cmd: string,
  args: readonly string[],
  cwd: string,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw new Error(`${cmd} ${args.join(' ')}: ${r.error.message}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Runs a slow tool as `run` does, without blocking the test worker meanwhile (a worker blocked for a minute misses
 * vitest's own messages: "Timeout calling onTaskUpdate").
 */
export function runAsync(
  cmd: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, timeout: TOOL_TIMEOUT_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => reject(new Error(`${cmd} ${args.join(' ')}: ${e.message}`)));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
