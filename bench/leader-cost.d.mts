// Types of leader-cost.mjs (for the TypeScript tests in test/bench).

/** The simulator's flags for groups and destinations, as far as its `simulate --help` lists them. */
export function simulatorFleetArgs(helpText: string, want: { groups: number; destinations: number }): string[];
