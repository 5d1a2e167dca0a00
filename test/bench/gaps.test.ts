import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createGapMonitor } from '../../bench/lib/gaps.mjs';

describe('the benchmark gap monitor', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps the longest stretch between ticks, and counts the one under way', () => {
    const gaps = createGapMonitor(30);
    const w = gaps.window();
    vi.advanceTimersByTime(30);
    expect(w.peek()).toBe(30);
    gaps.setInterval(10);
    vi.advanceTimersByTime(10);
    // The shorter stretches since do not lower the longest.
    expect(w.peek()).toBe(30);
    gaps.setInterval(1000);
    vi.advanceTimersByTime(45);
    expect(w.end()).toBe(45);
    gaps.stop();
  });

  it('changes its interval at once, and a coarse one ticks that much less often', () => {
    const gaps = createGapMonitor(1);
    expect(gaps.setInterval(50)).toBe(1);
    expect(gaps.intervalMs).toBe(50);
    expect(vi.getTimerCount()).toBe(1);
    const w = gaps.window();
    vi.advanceTimersByTime(49);
    // No tick yet: the 49 ms since the switch count as one gap under way.
    expect(w.end()).toBeGreaterThanOrEqual(49);
    vi.advanceTimersByTime(1);
    expect(gaps.setInterval(1)).toBe(50);
    expect(vi.getTimerCount()).toBe(1);
    gaps.stop();
    expect(vi.getTimerCount()).toBe(0);
  });
});
