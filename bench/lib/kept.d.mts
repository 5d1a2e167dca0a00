// Types of kept.mjs (for the TypeScript tests in test/bench).

/** Who writes each kept section of BENCHMARKS.md. */
export const KEPT: Record<'mechanisms' | 'alternative', string>;
/** The kept blocks of a document, markers included, by name. */
export function keptSections(doc: string | undefined): Record<string, string>;
/** A block named `name` around `body`. */
export function keptBlock(name: string, body: string): string;
/** `doc` with the block named like `block` replaced, or inserted before the heading `before`. */
export function spliceKept(doc: string, block: string, before?: string): string;
/** The Mechanisms section until it is written by hand. */
export const MECHANISMS_PLACEHOLDER: string;
