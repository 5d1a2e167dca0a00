import { describe, expect, it } from 'vitest';
import { EXIT_INTERNAL, signalHandlers } from '../src/signals.js';

function setup() {
  const calls: string[] = [];
  const timers: { fn: () => void; ms: number }[] = [];
  const h = signalHandlers({
    abort: (r) => void calls.push(`abort ${r.message}`),
    exit: (code) => void calls.push(`exit ${code}`),
    stderr: (line) => void calls.push(`stderr ${line}`),
    later: (fn, ms) => void timers.push({ fn, ms }),
  });
  return { h, calls, timers };
}

describe('signalHandlers', () => {
  it('the first SIGTERM starts a graceful shutdown bounded by 5 s', () => {
    const { h, calls, timers } = setup();
    h.stop('SIGTERM');
    expect(calls).toEqual(['abort SIGTERM']);
    expect(timers.map((t) => t.ms)).toEqual([5_000]);
    timers[0]!.fn();
    expect(calls.slice(1)).toEqual(['stderr cribl-exporter: shutdown took longer than 5s, exiting', 'exit 1']);
  });

  it.each(['SIGTERM', 'SIGINT'])('a second signal (%s) forces exit 1 at once', (second) => {
    const { h, calls } = setup();
    h.stop('SIGTERM');
    h.stop(second);
    expect(calls).toEqual(['abort SIGTERM', `stderr cribl-exporter: second ${second}, exiting now`, 'exit 1']);
  });

  it('SIGHUP reaches every subscriber and never exits; before any, it says so', () => {
    const { h, calls } = setup();
    h.reload();
    expect(calls).toEqual(['stderr cribl-exporter: SIGHUP: nothing to reload yet']);
    let reloads = 0;
    const off = h.onReload(() => reloads++);
    h.reload();
    h.reload();
    off();
    h.reload();
    expect(reloads).toBe(2);
    expect(calls.filter((c) => c.startsWith('exit'))).toEqual([]);
  });

  const BUG = 'stderr cribl-exporter: internal error (a bug, please report it): ';
  it.each([
    ['an Error', new Error('boom: cannot read x'), /^boom: cannot read x \(at signals\.test\.ts:\d+\)$/],
    ['a multi-line message', new Error('first\nsecond'), /^first second \(at signals\.test\.ts:\d+\)$/],
    ['a thrown string', 'plain', /^plain$/],
  ])('an uncaught exception (%s): one line, no stack trace, exit 70', (_name, err, rest) => {
    const { h, calls } = setup();
    h.fatal(err);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.startsWith(BUG)).toBe(true);
    expect(calls[0]?.slice(BUG.length)).toMatch(rest);
    expect(calls[1]).toBe(`exit ${EXIT_INTERNAL}`);
  });
});
