/** Issue 52: the status page says the leader's limit learnt from its 429s, when probing starts, when it is dropped. */
import { describe, expect, it } from 'vitest';
import { createStatusPage } from '../../src/exposition/status/page.js';
import type { BudgetState } from '../../src/leader/budget.js';
import { budgetState } from '../helpers/budget.js';
import { FakeClock } from '../helpers/fake-clock.js';

const budget = (over: Partial<BudgetState>): BudgetState =>
  budgetState({ limit: 4, rate: 29, maxRps: 188, latencyMs: undefined, baselineMs: undefined, ...over });

async function pageWith(b: BudgetState, clock: FakeClock): Promise<string> {
  return createStatusPage({
    leaders: () => [
      {
        name: 'prod',
        url: 'https://leader.example.com:9000/api/v1',
        authMode: 'token',
        snapshot: { labels: {}, leader: () => ({ facts: {} }), nodes: () => [] },
        budget: () => b,
        cycle: () => ({ targetMs: 30_000, lastMs: 12_000, overrun: false }),
      },
    ],
    version: '1.2.3',
    telemetryPath: '/metrics',
    clock,
  }).html();
}

describe('status page: a learnt rate limit', () => {
  it('says the limit, when the rate probes past it, when it is dropped at the latest; nothing if none', async () => {
    const clock = new FakeClock();
    const now = clock.now();
    const learned = { rps: 30, at: now - 5_000, probeFrom: now + 15_000, until: now + 595_000 };
    const html = await pageWith(budget({ learnedRps: 30, learned }), clock);
    expect(html).toContain("learnt from the leader's 429s: 30/s 5s ago; probing upward in 15s;");
    expect(html).toContain('in 9m 55s at the latest');
    const probing = await pageWith(budget({ learnedRps: 30, learned: { ...learned, probeFrom: now - 1 } }), clock);
    expect(probing).toContain('30/s 5s ago; probing upward; dropped once the leader takes the full rate');
    expect(await pageWith(budget({}), clock)).not.toContain('learnt from');
  });
});
