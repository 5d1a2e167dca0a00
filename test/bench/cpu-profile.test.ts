import { describe, expect, it } from 'vitest';
import { kindOf, timeByKind, type CpuProfile } from '../../bench/lib/cpu-profile.mjs';

describe('kindOf', () => {
  it.each([
    [{ functionName: '(garbage collector)', url: '' }, 'gc'],
    [{ functionName: '(program)', url: '' }, 'runtime'],
    [{ functionName: 'writeLatin1String', url: '' }, 'socket'],
    [{ functionName: 'writev', url: '' }, 'socket'],
    [{ functionName: '(runMicrotasks)', url: '' }, 'node'],
    [{ functionName: 'read', url: '' }, 'runtime'],
    [{ functionName: 'wasm-function[20]', url: 'wasm://wasm/00034eea' }, 'undici'],
    [{ functionName: '_resume', url: 'file:///app/node_modules/undici/lib/dispatcher/client.js' }, 'undici'],
    [{ functionName: 'listOnTimeout', url: 'node:internal/timers' }, 'node'],
    [{ functionName: 'write', url: 'file:///app/node_modules/pino/lib/proto.js' }, 'libraries'],
    [{ functionName: 'mv', url: 'file:///app/dist/chunk-OCQBJVGX.js' }, 'exporter'],
    [{ functionName: 'decodeBody', url: 'file:///work/main/build/leader/exchange.js' }, 'exporter'],
    [{ functionName: 'tick', url: 'file:///work/main/bench/lib/gaps.mjs' }, 'bench'],
    [{ functionName: 'x', url: 'file:///elsewhere/x.js' }, 'other'],
  ])('%o is %s', (frame, kind) => {
    expect(kindOf(frame)).toBe(kind);
  });
});

describe('timeByKind', () => {
  // Four frames; samples 1 ms apart from 1,000,000 µs, each counted with the time until the next one.
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '' }, children: [2, 3, 4, 5] },
      { id: 2, callFrame: { functionName: '(idle)', url: '' } },
      { id: 3, callFrame: { functionName: '(garbage collector)', url: '' } },
      { id: 4, callFrame: { functionName: 'poll', url: 'file:///app/dist/chunk-A.js' } },
      { id: 5, callFrame: { functionName: 'writeLatin1String', url: '' } },
    ],
    startTime: 1_000_000,
    endTime: 1_010_000,
    samples: [2, 4, 4, 3, 5, 2, 4, 4, 4, 2],
    timeDeltas: [0, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
  };

  it('sums self time by kind over the whole profile, idle apart', () => {
    const r = timeByKind(profile);
    expect(r.ms.exporter).toBe(5);
    expect(r.ms.gc).toBe(1);
    expect(r.ms.socket).toBe(1);
    // The last sample has no next one: it counts nothing.
    expect(r.idleMs).toBe(2);
    expect(r.busyMs).toBe(7);
  });

  it('cuts a window on the profile clock (µs, as process.hrtime)', () => {
    // Samples at 1,002,000 .. 1,004,000: poll, gc, write.
    const r = timeByKind(profile, 1_002_000, 1_004_000);
    expect(r.ms).toMatchObject({ exporter: 1, gc: 1, socket: 1, undici: 0 });
    expect(r.busyMs).toBe(3);
    expect(r.idleMs).toBe(0);
  });
});
