import { describe, expect, it } from 'vitest';
import { classifyThreads } from '../../bench/lib/machine.mjs';

describe('classifyThreads', () => {
  it('tells the main thread, V8 pool, libuv pool and other threads apart by name and order (Node.js 22)', () => {
    // As /proc/PID/task/TID/comm reads for node 22 with one worker thread: main, V8's delayed-task scheduler and
    // its four workers, the worker thread, libuv's pool.
    const comms = {
      100: 'node',
      101: 'DelayedTaskSche',
      102: 'node',
      103: 'node',
      104: 'node',
      105: 'node',
      106: 'node',
      107: 'libuv-worker',
      108: 'libuv-worker',
    };
    expect(classifyThreads(100, comms)).toEqual({
      100: 'main',
      101: 'v8',
      102: 'v8',
      103: 'v8',
      104: 'v8',
      105: 'v8',
      106: 'other',
      107: 'libuv',
      108: 'libuv',
    });
  });

  it('orders thread ids as numbers, and follows the V8 pool size', () => {
    const comms = { 99: 'node', 100: 'DelayedTaskSche', 1000: 'node', 101: 'node', 102: 'node' };
    expect(classifyThreads(99, comms, 2)).toEqual({ 99: 'main', 100: 'v8', 101: 'v8', 102: 'v8', 1000: 'other' });
  });

  it('calls every thread but the main one other when none is named (Node.js 20)', () => {
    expect(classifyThreads(5, { 5: 'node', 6: 'node', 7: 'node' })).toEqual({ 5: 'main', 6: 'other', 7: 'other' });
  });
});
