import pino from 'pino';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/leader/budget.js';
import { createLeaderClient } from '../../src/leader/client.js';
import type { LeaderRequest } from '../../src/leader/types.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { BASE } from './helpers.js';

/** A leader client on `dispatcher`, with a budget that never holds a request back. */
function clientOn(dispatcher: Dispatcher, clock: FakeClock): ReturnType<typeof createLeaderClient> {
  return createLeaderClient({
    baseUrl: BASE,
    name: 'test',
    dispatcher,
    budget: new RequestBudget({ maxRps: 1000, burst: 10, maxConcurrency: 2, clock }),
    clock,
    random: () => 0.5,
    logger: pino({ level: 'silent' }),
  });
}

describe('leader exchange on a dispatcher that throws', () => {
  it('fails the request as a connection failure (no hang, no reject), and close() does not wait for it', async () => {
    const clock = new FakeClock(1_700_000_000_000);
    const dispatcher = {
      dispatch: () => {
        throw Object.assign(new Error('refused'), { code: 'EACCES' });
      },
      close: () => Promise.resolve(),
    } as unknown as Dispatcher;
    const client = clientOn(dispatcher, clock);
    const res = await client.request({ endpoint: '/health', path: '/health', decode: (j) => j });
    expect(res).toMatchObject({ ok: false, reason: 'connect' });
    expect(res.ok ? '' : res.message).toContain('connection failed (EACCES)');
    await client.close();
  });
});

/** A full, synchronous garbage collection (V8's `gc`, exposed for this process only). */
function fullGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('a finished exchange', () => {
  it('keeps nothing of its request reachable from the handler the dispatcher still holds', async () => {
    const clock = new FakeClock(1_700_000_000_000);
    // undici keeps a finished handler referenced for a while; this dispatcher keeps every handler for good.
    const held: Dispatcher.DispatchHandler[] = [];
    const dispatcher = {
      dispatch: (_opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) => {
        held.push(handler);
        const controller = { abort: () => undefined } as unknown as Dispatcher.DispatchController;
        queueMicrotask(() => {
          handler.onRequestStart?.(controller, {});
          handler.onResponseStart?.(controller, 200, { 'content-type': 'application/json' }, 'OK');
          handler.onResponseData?.(controller, Buffer.from('{"status":"healthy"}'));
          handler.onResponseEnd?.(controller, {});
        });
        return true;
      },
      close: () => Promise.resolve(),
    } as unknown as Dispatcher;
    const client = clientOn(dispatcher, clock);
    // The request, its decoder and what the decoder's closure holds (as a poll's frame would be) are reachable only
    // through the exchange: made in a function whose frame is gone once it returns.
    const send = async (): Promise<{ request: WeakRef<object>; frame: WeakRef<object> }> => {
      const frame = { pollState: new Array<number>(1000).fill(1) };
      const request: LeaderRequest<unknown> = {
        endpoint: '/health',
        path: '/health',
        decode: (j: unknown) => (frame.pollState.length ? j : j),
      };
      const res = await client.request(request);
      expect(res).toMatchObject({ ok: true, body: { status: 'healthy' } });
      return { request: new WeakRef(request), frame: new WeakRef(frame) };
    };
    const refs = await send();
    expect(held).toHaveLength(1);
    // WeakRefs made in this job stay alive until it ends: collect in a later macrotask.
    await new Promise((resolve) => setImmediate(resolve));
    fullGc()();
    expect(refs.request.deref(), 'the request is still reachable from the finished handler').toBeUndefined();
    expect(refs.frame.deref(), "the decoder's closure is still reachable from the finished handler").toBeUndefined();
    expect(held).toHaveLength(1);
    await client.close();
  });
});
