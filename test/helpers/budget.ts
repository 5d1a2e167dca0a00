/** A leader budget's state and a view of it, as a test sets them (the rounds and the status page read them). */
import type { BudgetState } from '../../src/leader/budget.js';
import type { BudgetView } from '../../src/polling/rounds.js';

/** An idle budget of 8 slots at 1,000 requests/s, with `over` on top. */
export function budgetState(over: Partial<BudgetState> = {}): BudgetState {
  return {
    limit: 8,
    maxConcurrency: 8,
    inFlight: 0,
    waiting: 0,
    paused: false,
    held: false,
    pauseUntil: 0,
    rate: 1000,
    maxRps: 1000,
    learnedRps: undefined,
    detached: 0,
    latencyMs: 5,
    baselineMs: 5,
    pausedMs: 0,
    ...over,
  };
}

/** A budget view whose state the test sets; it allows its rate, or `capacity` per second if lower. */
export function budgetView(
  over: Partial<BudgetState>,
  capacity = Infinity,
): BudgetView & { set(o: Partial<BudgetState>): void } {
  let state = budgetState(over);
  return {
    state: () => state,
    capacityPerSecond: () => Math.min(state.rate, capacity),
    set: (o) => (state = { ...state, ...o }),
  };
}
