import { describe, expect, it } from 'vitest';
import { signalHandlers } from '../src/signals.js';

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
});
