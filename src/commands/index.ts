/**
 * The command line: `cribl-exporter [check|demo|simulate] [flags]` to the module of its command (run, check, demo,
 * simulate, side by side in this folder). src/cli.ts wires `CommandIo` to the process, tests to buffers.
 */
import type { DemoIo } from './demo.js';
import { runExporter } from './run.js';

/** What the commands may touch: each takes its part of it (run and demo all of it but argv). */
export interface CommandIo extends DemoIo {
  argv: readonly string[];
}

/** Runs `cribl-exporter [check|demo|simulate] [flags]` and returns the exit code. */
export async function runCommand(io: CommandIo): Promise<number> {
  const [first, ...rest] = io.argv;
  // The other commands are imported when run: the exporter alone does not load the simulator and `check`
  // (idle, 0 nodes, bench/base-mem.mjs: heap used 18.1 → 16.9 MB, RSS 69.6 → 67.5 MB).
  if (first === 'simulate') return (await import('./simulate.js')).runSimulateCommand(rest, io);
  if (first === 'demo') return (await import('./demo.js')).runDemo(rest, io);
  if (first === 'check') return (await import('./check.js')).runCheckCommand(rest, io);
  if (first !== undefined && !first.startsWith('-')) {
    io.stderr(`cribl-exporter: unknown command "${first}" (commands: check, demo, simulate; see --help)`);
    return 2;
  }
  return runExporter(io.argv, io);
}
