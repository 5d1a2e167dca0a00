// Types of bench/lib/cpu-profile.mjs for the tests (test/bench/cpu-profile.test.ts).
export interface CallFrame {
  functionName: string;
  url: string;
}
export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame & Record<string, unknown>; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}
export type CpuKind = 'gc' | 'socket' | 'undici' | 'node' | 'exporter' | 'libraries' | 'runtime' | 'bench' | 'other';
export const CPU_KINDS: readonly (readonly [CpuKind, string, string])[];
export function monotonicUs(): number;
export function kindOf(frame: CallFrame): CpuKind;
export function timeByKind(
  profile: CpuProfile,
  fromUs?: number,
  toUs?: number,
): { busyMs: number; idleMs: number; ms: Record<CpuKind, number> };
