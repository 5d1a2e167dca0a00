// Types of bench/lib/smaps.mjs for the tests (test/bench/smaps.test.ts).
export interface Mapping {
  range: string;
  name: string;
  perms: string;
  sizeKb: number;
  rss: number;
  dirty: number;
}
export function parseSmaps(text: string): Mapping[];
export function rssByMapping(mappings: readonly Mapping[]): Map<string, number>;
export const RESIDENT_FLOOR_KB: number;
export function residentMb(smapsText: string): Record<string, number>;
