// Types of bench/lib/image.mjs for the tests (test/bench/image.test.ts).
export function imageSettings(repo: string): { env: Record<string, string>; nodeFlags: string[] };
export function withFlags(imageFlags: readonly string[], extra: readonly string[]): string[];
export function imageNodeMajor(repo: string): number;
export function nodeMajor(version: string): number;
export function nodeChoice(o: {
  currentVersion: string;
  imageMajor: number;
  benchNode: string | undefined;
}): { reexec: false } | { reexec: true; path: string | undefined };
export function onImageNode(repo: string): void;
export function runtimeNote(repo: string): string;
