import pino from 'pino';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/leader/budget.js';
import { createLeaderClient } from '../../src/leader/client.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { BASE } from './helpers.js';

describe('leader exchange on a dispatcher that throws', () => {
  it('fails the request as a connection failure (no hang, no reject), and close() does not wait for it', async () => {
    const clock = new FakeClock(1_700_000_000_000);
    const dispatcher = {
      dispatch: () => {
        throw Object.assign(new Error('refused'), { code: 'EACCES' });
      },
      close: () => Promise.resolve(),
    } as unknown as Dispatcher;
    const client = createLeaderClient({
      baseUrl: BASE,
      name: 'test',
      dispatcher,
      budget: new RequestBudget({ maxRps: 1000, burst: 10, maxConcurrency: 2, clock }),
      clock,
      random: () => 0.5,
      logger: pino({ level: 'silent' }),
    });
    const res = await client.request({ endpoint: '/health', path: '/health', decode: (j) => j });
    expect(res).toMatchObject({ ok: false, reason: 'connect' });
    expect(res.ok ? '' : res.message).toContain('connection failed (EACCES)');
    await client.close();
  });
});
