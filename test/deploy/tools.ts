import { spawnSync } from 'node:child_process';

/** True in CI, where a missing tool fails its tests instead of skipping them. */
export const IN_CI = process.env.CI === 'true';

/** Whether an executable is on the PATH. */
export function hasTool(name: string): boolean {
  return spawnSync('which', [name], { stdio: 'ignore' }).status === 0;
}

/** Skip the tests needing `name` when it is missing locally; in CI keep them, so they fail loudly. */
export function skipWithout(name: string): boolean {
  return !IN_CI && !hasTool(name);
}

/** Runs a tool and returns its exit status and output; never throws on a non-zero exit. */
export function run(
  cmd: string,
  args: readonly string[],
  cwd: string,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw new Error(`${cmd} ${args.join(' ')}: ${r.error.message}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
