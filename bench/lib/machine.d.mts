// Types of bench/lib/machine.mjs for the tests (test/bench/machine.test.ts).
export function classifyThreads(
  pid: number,
  comms: Record<number | string, string>,
  v8PoolSize?: number,
): Record<number, 'main' | 'v8' | 'libuv' | 'other'>;
