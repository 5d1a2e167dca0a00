// Types of leader-cost.mjs (for the TypeScript tests in test/bench).

/** Requests per discovery interval before the data-flow collectors, by endpoint (per-node routes left out). */
export const BEFORE_DATAFLOW: { commit: string; endpoints: Record<string, number>; perDiscovery: number };
export const LEADER_COST_SCENARIO: string;
