import { describe, expect, it } from 'vitest';
import { onAbort } from '../../src/leader/abort-fanout.js';

describe('abort fan-out', () => {
  it('aborts every registered target once with the reason, but not those removed, with one listener per signal', () => {
    const ac = new AbortController();
    let listeners = 0;
    const add = ac.signal.addEventListener.bind(ac.signal);
    ac.signal.addEventListener = (...args: Parameters<typeof add>) => {
      listeners++;
      add(...args);
    };
    const got: string[] = [];
    const a = { abort: (r: unknown) => got.push(`a:${String(r)}`) };
    const b = { abort: (r: unknown) => got.push(`b:${String(r)}`) };
    const c = { abort: (r: unknown) => got.push(`c:${String(r)}`) };
    const set = onAbort(ac.signal, a);
    expect(onAbort(ac.signal, b)).toBe(set);
    onAbort(ac.signal, c);
    set.delete(b);
    expect(listeners).toBe(1);
    ac.abort('closing');
    expect(got).toEqual(['a:closing', 'c:closing']);
    expect(set.size).toBe(0);
  });

  it('keeps the targets of different signals apart', () => {
    const one = new AbortController();
    const two = new AbortController();
    const got: string[] = [];
    onAbort(one.signal, { abort: () => got.push('one') });
    onAbort(two.signal, { abort: () => got.push('two') });
    two.abort();
    expect(got).toEqual(['two']);
  });
});
