// Types of children.mjs (for the TypeScript tests in test/bench).
import type { ChildProcess } from 'node:child_process';

/** A forked child with line and message waiters and an IPC request helper. */
export class Child {
  readonly name: string;
  readonly proc: ChildProcess;
  readonly lines: string[];
  readonly stderr: string[];
  readonly exited: boolean;
  readonly done: Promise<void>;
  waitForLine<T>(test: (line: string) => T | undefined | null | false, timeoutMs: number, what?: string): Promise<{ line: string; match: T; at: number }>;
  waitForMessage(test: (message: unknown) => boolean, timeoutMs: number, what?: string): Promise<unknown>;
  call(cmd: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  stop(graceMs?: number): Promise<void>;
}

/** Every child started, so that one call kills them all. */
export class Children {
  simulator(name: string, nodes: number, extraArgs?: string[]): Promise<{ sim: Child; baseUrl: string; token: string; adminUrl: string }>;
  fork(name: string, module: string, args?: string[], options?: { execArgv?: string[]; env?: Record<string, string> }): Child;
  killAll(): void;
  stopAll(): Promise<void>;
}

/** A waitForLine test matching the JSON log line whose `msg` is `msg`. */
export function jsonLine(msg: string): (line: string) => Record<string, unknown> | undefined;
